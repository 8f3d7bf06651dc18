"""The readiness report of a train: a plain dict, built only from stored data and `as_of`.

The same data and the same `as_of` day always give the same dict (everything sorted, no clock
read here), so the renderers in releases.report_formats give byte-identical output.
GO needs zero open blockers and zero open critical regressions; everything else is information.
"""

from __future__ import annotations

from datetime import date

from kernels_ci.selectors import verification_for_issue
from releases import calendar, selectors
from releases.labels import kinds_of, label_sets
from releases.models import ReleaseSeries

REPORT_VERSION = 1


def _verification(issue_id: int) -> dict[str, str]:
    return {result.arch: result.state for result in verification_for_issue(issue_id).values()}


def readiness_build(*, series: ReleaseSeries, version: str, as_of: date) -> dict:
    spec = series.spec()
    train = selectors.train_get(series, version)
    moment = selectors.instant_of(as_of, series)
    current = calendar.train_current(spec, moment)
    sets = label_sets()

    open_rows = []
    for issue, target in selectors.train_scope(series, train, current):
        row = selectors.issue_row(issue, target)
        row["kinds"] = sorted(kinds_of(row["labels"], sets))
        open_rows.append(row)

    def having(*kinds):
        return [r for r in open_rows if set(kinds) <= set(r["kinds"])]

    blockers = having("blocker")
    regressions = having("regression")
    critical_regressions = [r for r in regressions if "critical" in r["kinds"]]
    critical_high = [r for r in open_rows if {"critical", "high"} & set(r["kinds"])]
    untriaged = [r for r in open_rows if "untriaged" in r["kinds"] or not r["labels"]]
    known = having("known_issue")

    fixed: dict[str, dict] = {}
    for link in selectors.train_fix_links(series, train.version):
        issue = link.issue
        entry = fixed.get(issue.reference)
        if entry is None:
            entry = selectors.issue_row(issue)
            entry["chain"] = []
            entry["verification"] = _verification(issue.id)
            entry["verified_architectures"] = sorted(
                a for a, state in entry["verification"].items() if state == "verified_fixed"
            )
            fixed[issue.reference] = entry
        entry["chain"].append(selectors.chain_row(link))
    fixed_rows = [fixed[k] for k in sorted(fixed)]

    backports = [
        {
            "issue": b.issue.reference,
            "title": b.issue.title,
            "url": b.issue.html_url,
            "state": b.state,
            "automatic": b.automatic,
            "reason": b.reason,
        }
        for b in selectors.backports_of_train(series, train.version, pending_only=True)
    ]
    unlinked = [
        {
            "pull_request": pr.reference,
            "title": pr.title,
            "url": pr.html_url,
            "base_ref": pr.base_ref,
        }
        for pr in selectors.unlinked_release_merges(series, train.version)
    ]
    punts = [
        {"issue": p.issue.reference, "to": p.to_version, "at": p.created_at.date().isoformat()}
        for p in selectors.punts_of_train(series, train.version)
    ]

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

    reasons = []
    if blockers:
        reasons.append(
            f"{len(blockers)} open blocker(s): " + ", ".join(r["reference"] for r in blockers)
        )
    if critical_regressions:
        reasons.append(
            f"{len(critical_regressions)} open critical regression(s): "
            + ", ".join(r["reference"] for r in critical_regressions)
        )
    verdict = "NO-GO" if reasons else "GO"
    if not reasons:
        reasons.append("no open blockers and no open critical regressions")
    notes = []
    if regressions:
        notes.append(f"{len(regressions)} open regression(s)")
    if backports:
        notes.append(f"{len(backports)} backport(s) pending")
    if unlinked:
        notes.append(f"{len(unlinked)} release-branch merge(s) with no issue or backport")
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
            "verified_fixed": sum(1 for r in fixed_rows if r["verified_architectures"]),
            "known_issues": len(known),
            "punted": len(punts),
        },
        "open_blockers": blockers,
        "open_regressions": regressions,
        "open_critical_high": critical_high,
        "pending_backports": backports,
        "unlinked_release_merges": unlinked,
        "fixed": fixed_rows,
        "known_issues": known,
        "punted": punts,
        "gpu_matrix": [{"arch": arch, **matrix[arch]} for arch in sorted(matrix)],
    }
