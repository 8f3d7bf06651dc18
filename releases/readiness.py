"""The readiness report of a train: a plain dict, built only from stored data and `as_of`.

The same data and the same `as_of` day always give the same dict (everything sorted, no clock
read here), so the renderers in releases.report_formats give byte-identical output. The stored
data includes the active forecast model: retraining it changes the forecast section.
GO needs zero open blockers and zero open critical regressions; everything else is information.
"""

from __future__ import annotations

from datetime import date

from kernels_ci.backends import target_vendor
from kernels_ci.selectors import bisection_results, verification_of_issues
from releases import calendar, selectors
from releases.forecast import forecast_for_train
from releases.history import SeriesHistory, history_load
from releases.models import ReleaseSeries

REPORT_VERSION = 2


def _verification(items) -> tuple[list[dict], list[str], bool]:
    """One entry per (architecture, backend); the AMD GPU architectures verified fixed (by one
    backend at least, and reproducing on none of that architecture's backends; the backends
    say which targets are AMD's); any verified."""
    entries = [
        {
            "arch": v.arch,
            "backend": v.backend,
            "state": v.state,
            "passes": v.consecutive_passes,
            "required": v.required,
        }
        for v in sorted(items, key=lambda v: (v.arch, v.backend))
    ]
    by_arch: dict[str, set[str]] = {}
    for entry in entries:
        by_arch.setdefault(entry["arch"], set()).add(entry["state"])
    verified = sorted(
        arch
        for arch, states in by_arch.items()
        if target_vendor(arch) == "amd"
        and "verified_fixed" in states
        and "reproduces" not in states
    )
    return entries, verified, any(e["state"] == "verified_fixed" for e in entries)


def _blocking(blockers: list[dict], critical_regressions: list[dict]) -> list[tuple[str, list]]:
    """What makes a train NO-GO: (heading, the issue rows it names), none when it is GO."""
    return [
        (f"{len(rows)} open {what}(s)", rows)
        for what, rows in (("blocker", blockers), ("critical regression", critical_regressions))
        if rows
    ]


def reasons_linked(report: dict) -> list[dict]:
    """The report's reasons for a page: {"text", "issues"}, the issues (the report's rows, each
    with its "reference" and "url") read from the report's lists, not parsed from its text."""
    critical = [r for r in report["open_regressions"] if "critical" in r["kinds"]]
    blocking = _blocking(report["open_blockers"], critical)
    if not blocking:
        return [{"text": reason, "issues": []} for reason in report["reasons"]]
    return [{"text": heading, "issues": rows} for heading, rows in blocking]


def readiness_build(
    *, series: ReleaseSeries, version: str, as_of: date, history: SeriesHistory | None = None
) -> dict:
    """The report as of the end of day `as_of` in the series' time zone: what was open and on
    the train then, the fixes merged by then, backports in their state then, repro verification
    from the runs finished by then. Labels, flags and predictions are as they are now."""
    spec = series.spec()
    train = selectors.train_get(series, version)
    moment = selectors.instant_of(as_of, series)
    current = calendar.train_current(spec, moment)
    history = history or history_load(series)

    scope = history.scope(train, moment)
    links = selectors.train_fix_links(series, train.version, moment=moment)
    fixed_ids = sorted({link.issue_id for link in links})
    issues = selectors.issues_by_id(scope)
    predictions = selectors.predictions_for(scope + fixed_ids)
    open_rows = [
        selectors.issue_row(issues[i], history.targets.get(i), predictions.get(i))
        for i in scope
        if i in issues
    ]

    def having(*kinds):
        return [r for r in open_rows if set(kinds) <= set(r["kinds"])]

    blockers = having("blocker")
    regressions = having("regression")
    critical_regressions = [r for r in regressions if "critical" in r["kinds"]]
    critical_high = [r for r in open_rows if {"critical", "high"} & set(r["kinds"])]
    untriaged = having("untriaged")
    known = having("known_issue")

    verification = verification_of_issues(issue_ids=fixed_ids, as_of=moment)
    bisections = bisection_results(issue_ids=fixed_ids, as_of=moment)
    fixed: dict[str, dict] = {}
    for link in links:
        issue = link.issue
        entry = fixed.get(issue.reference)
        if entry is None:
            entry = selectors.issue_row(
                issue, history.targets.get(issue.id), predictions.get(issue.id)
            )
            entry["chain"] = []
            entries, verified_archs, verified = _verification(verification.get(issue.id, []))
            entry["verification"] = entries
            entry["verified_architectures"] = verified_archs
            entry["verified"] = verified
            entry["bisections"] = bisections.get(issue.id, [])
            fixed[issue.reference] = entry
        entry["chain"].append(selectors.chain_row(link))
    fixed_rows = [fixed[k] for k in sorted(fixed)]

    backports = [
        {
            "issue": b.issue.reference,
            "title": b.issue.title,
            "url": selectors.github_url(b.issue),
            "state": b.state_then,
            "automatic": b.automatic,
            "reason": b.reason,
        }
        for b in selectors.backports_of_train(
            series, train.version, pending_only=True, moment=moment
        )
    ]
    unlinked = [
        {
            "pull_request": pr.reference,
            "title": pr.title,
            "url": selectors.github_url(pr),
            "base_ref": pr.base_ref,
        }
        for pr in selectors.unlinked_release_merges(series, train.version, moment=moment)
    ]
    unapproved = [
        {
            "pull_request": link.pull_request.reference,
            "title": link.pull_request.title,
            "url": selectors.github_url(link.pull_request),
            "base_ref": link.base_ref,
            "issue": link.issue.reference,
            "backport": state,
        }
        for link, state in selectors.unapproved_release_fixes(series, train.version, moment=moment)
    ]
    missed = selectors.missed_backport_rows(series, train, moment)
    reported_again = selectors.reported_again(series, train, moment)
    punts = [
        {"issue": p.issue.reference, "to": p.to_version, "at": p.created_at.date().isoformat()}
        for p in selectors.punts_of_train(series, train.version, moment=moment)
    ]
    candidates = [
        {"tag": c.tag, "tagged_at": c.tagged_at.isoformat()}
        for c in selectors.candidates_of_train(series, train.version, moment=moment)
    ]
    forecast = forecast_for_train(history, train, moment, scope)

    matrix: dict[str, dict[str, int]] = {}

    def bump(arch: str, column: str) -> None:
        cell = matrix.setdefault(
            arch, {"open_blockers": 0, "open_regressions": 0, "fixes": 0, "verified_fixes": 0}
        )
        cell[column] += 1

    for row in blockers:
        for arch in row["architectures"]:
            bump(arch, "open_blockers")
    for row in regressions:
        for arch in row["architectures"]:
            bump(arch, "open_regressions")
    for row in fixed_rows:
        for arch in row["architectures"]:
            bump(arch, "fixes")
        for arch in row["verified_architectures"]:
            bump(arch, "verified_fixes")

    reasons = [
        f"{heading}: " + ", ".join(r["reference"] for r in rows)
        for heading, rows in _blocking(blockers, critical_regressions)
    ]
    verdict = "NO-GO" if reasons else "GO"
    if not reasons:
        reasons.append("no open blockers and no open critical regressions")
    notes = []
    if regressions:
        notes.append(f"{len(regressions)} open regression(s)")
    nominated = sum(1 for b in backports if b["state"] == "nominated")
    if nominated:
        notes.append(f"{nominated} backport(s) awaiting a decision")
    if len(backports) > nominated:
        notes.append(f"{len(backports) - nominated} approved backport(s) not merged yet")
    if unlinked:
        notes.append(f"{len(unlinked)} release-branch merge(s) with no issue or backport")
    if unapproved:
        notes.append(
            f"{len(unapproved)} release-branch fix(es) merged without an approved backport"
        )
    if missed:
        notes.append(
            f"{len(missed)} fix(es) merged on the default branch for issues of this cut train "
            "with no backport nomination (missed backports: nominate them)"
        )
    if reported_again:
        notes.append(
            f"{len(reported_again)} issue(s) fixed in {reported_again[0]['fixed_in']} reported "
            "again against it"
        )
    if untriaged:
        notes.append(f"{len(untriaged)} untriaged issue(s)")

    return {
        "report_version": REPORT_VERSION,
        "series": series.name,
        "train": train.version,
        "label": train.label,
        "as_of": as_of.isoformat(),
        "phase": train.phase(moment),
        "current_train": current.version if current else "",
        "dates": {
            "branch_cut": train.branch_cut.isoformat(),
            "code_freeze": train.code_freeze.isoformat(),
            "rc": train.rc.isoformat(),
            "release": train.release.isoformat(),
            "time_zone": train.time_zone,
        },
        "verdict": verdict,
        "reasons": reasons,
        "notes": notes,
        "counts": {
            "open_in_train": len(open_rows),
            "open_blockers": len(blockers),
            "open_regressions": len(regressions),
            "open_critical_regressions": len(critical_regressions),
            "open_critical_high": len(critical_high),
            "untriaged": len(untriaged),
            "pending_backports": len(backports),
            "unlinked_release_merges": len(unlinked),
            "fixed": len(fixed_rows),
            "verified_fixed": sum(1 for r in fixed_rows if r["verified"]),
            "unapproved_release_fixes": len(unapproved),
            "missed_backports": len(missed),
            "reported_again": len(reported_again),
            "known_issues": len(known),
            "punted": len(punts),
        },
        "open_blockers": blockers,
        "open_regressions": regressions,
        "open_critical_high": critical_high,
        "pending_backports": backports,
        "unlinked_release_merges": unlinked,
        "unapproved_release_fixes": unapproved,
        "missed_backports": missed,
        "reported_again": reported_again,
        "fixed": fixed_rows,
        "known_issues": known,
        "punted": punts,
        "release_candidates": candidates,
        "gpu_matrix": [{"arch": arch, **matrix[arch]} for arch in sorted(matrix)],
        "forecast": forecast,
    }
