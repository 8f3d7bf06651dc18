"""Renderers of the readiness report and the release notes: the same dict, the same bytes."""

from __future__ import annotations

import json

from django.template.loader import render_to_string

FORMATS = ("md", "json", "html")


def report_json(report: dict) -> str:
    return json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _section(title: str, rows: list[str]) -> list[str]:
    """A report section: its heading, then its rows, or "None."."""
    return ["", f"## {title}", "", *(rows or ["None."])]


def _issue_line(row: dict) -> str:
    extra = []
    if row.get("architectures"):
        extra.append(", ".join(row["architectures"]))
    if row.get("component"):
        extra.append(row["component"])
    tail = f" ({'; '.join(extra)})" if extra else ""
    return f"- {_link(row['reference'], row['url'])} {_md(row['title'])}{tail}"


def _link(text: str, url: str) -> str:
    """A Markdown link, or the text alone where the report has no URL (the selectors give only
    http(s) ones: releases.selectors.github_url). Brackets in the text are escaped, and the
    characters that could end the destination or open a tag in it are percent-encoded."""
    for char in "\\[]":
        text = text.replace(char, "\\" + char)
    if not url:
        return text
    for char, encoded in _DESTINATION_ESCAPES:
        url = url.replace(char, encoded)
    return f"[{text}]({url})"


_DESTINATION_ESCAPES = (("(", "%28"), (")", "%29"), ("<", "%3C"), (">", "%3E"))


def _md(text: str) -> str:
    """Issue text is untrusted: escape what Markdown or HTML would interpret."""
    for char in "\\`*_[]<>|#":
        text = text.replace(char, "\\" + char)
    return " ".join(text.split())


def report_markdown(report: dict) -> str:
    d = report["dates"]
    lines = [
        f"# Readiness of {report['series']} {report['label']}: {report['verdict']}",
        "",
        f"As of {report['as_of']} · phase {report['phase']} · branch cut {d['branch_cut']} · "
        f"code freeze {d['code_freeze']} · RC {d['rc']} · release {d['release']} "
        f"({d['time_zone']})",
        "",
        "## Verdict",
        "",
        *[f"- {reason}" for reason in report["reasons"]],
        *[f"- note: {note}" for note in report["notes"]],
        "",
        "## Counts",
        "",
        "| | |",
        "| --- | ---: |",
        *[
            f"| {name.replace('_', ' ')} | {value} |"
            for name, value in sorted(report["counts"].items())
        ],
    ]
    for title, key in (
        ("Open blockers", "open_blockers"),
        ("Open regressions", "open_regressions"),
        ("Open critical and high", "open_critical_high"),
        ("Known issues", "known_issues"),
    ):
        lines += _section(title, [_issue_line(row) for row in report[key]])
    lines += _section(
        "Pending backports",
        [
            f"- {_link(b['issue'], b['url'])} {_md(b['title'])}: {b['state']}"
            + (" (automatic)" if b["automatic"] else "")
            for b in report["pending_backports"]
        ],
    )
    lines += _section(
        "Release-branch merges with no issue or backport",
        [
            f"- {_link(m['pull_request'], m['url'])} {_md(m['title'])} into `{m['base_ref']}`"
            for m in report["unlinked_release_merges"]
        ],
    )
    lines += _section(
        "Release-branch fixes merged without an approved backport",
        [
            f"- {_link(m['pull_request'], m['url'])} {_md(m['title'])} into `{m['base_ref']}` "
            f"fixes {m['issue']} (backport {m['backport']})"
            for m in report["unapproved_release_fixes"]
        ],
    )
    lines += _section(
        "Missed backports (fixed on the default branch, not nominated)",
        [
            f"- {_link(m['issue'], m['url'])} {_md(m['title'])}: fixed by {m['pull_request']} "
            f"in {m['fixed_in']}"
            for m in report.get("missed_backports", [])
        ],
    )
    lines += _section(
        "Fixed issues reported again",
        [
            f"- {_link(m['issue'], m['url'])} {_md(m['title'])}: duplicate of {m['fixed_issue']} "
            f"(fixed in {m['fixed_in']}), reported on {m['reported_version']}"
            for m in report.get("reported_again", [])
        ],
    )
    lines += _section(
        "Release candidates",
        [f"- `{_md(c['tag'])}` tagged {c['tagged_at']}" for c in report["release_candidates"]],
    )
    lines += ["", "## Fixed issues", ""]
    for row in report["fixed"]:
        lines.append(_issue_line(row))
        for link in row["chain"]:
            lines.append(
                f"  - {link['pull_request']} → {(link['merge_commit'] or 'not merged')[:12]} "
                f"on `{link['base_ref']}` → {link['train'] or 'no train'} ({link['source']})"
            )
        if row["verification"]:
            states = ", ".join(
                f"{v['arch']} ({v['backend']}): {v['state']}" for v in row["verification"]
            )
            lines.append(f"  - verification: {states}")
        for result in row.get("bisections", []):
            lines.append(f"  - bisection: {result}")
    if not report["fixed"]:
        lines.append("None.")
    lines += ["", "## GPU architectures", ""]
    if report["gpu_matrix"]:
        lines += [
            "| architecture | open blockers | open regressions | fixes | verified fixes |",
            "| --- | ---: | ---: | ---: | ---: |",
        ]
        lines += [
            f"| {r['arch']} | {r['open_blockers']} | {r['open_regressions']} | {r['fixes']} | "
            f"{r['verified_fixes']} |"
            for r in report["gpu_matrix"]
        ]
    else:
        lines.append("None.")
    lines += _forecast_markdown(report["forecast"])
    return "\n".join(lines) + "\n"


def _forecast_markdown(forecast: dict) -> list[str]:
    lines = ["", "## Forecast: fixed before the branch cut", ""]
    if not forecast["available"]:
        return [*lines, forecast["note"] or "None."]
    lines.append(
        f"Model {forecast['model_version']}, trained on trains "
        f"{', '.join(forecast['trained_on'])} (base rate {forecast['base_rate']:.3f}); "
        f"expected fixes by the branch cut: {forecast['expected_fixed']}."
    )
    lines.append("")
    if not forecast["issues"]:
        return [*lines, "No open issue to forecast."]
    lines += [
        "| issue | probability | open pull request | days left |",
        "| --- | ---: | --- | ---: |",
    ]
    lines += [
        f"| {_link(r['reference'], r['url'])} {_md(r['title'])} | {r['probability']:.3f} | "
        f"{'yes' if r['open_pull_request'] else 'no'} | {r['days_left']} |"
        for r in forecast["issues"]
    ]
    return lines


def report_html(report: dict) -> str:
    return render_to_string("releases/readiness_document.html", {"report": report})


def report_render(report: dict, fmt: str) -> str:
    if fmt == "json":
        return report_json(report)
    if fmt == "md":
        return report_markdown(report)
    if fmt == "html":
        return report_html(report)
    raise ValueError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")


def release_notes_markdown(report: dict, *, product: str = "ROCm") -> str:
    """ "Resolved issues" and "Known issues" in the shape of ROCm's release notes."""
    lines = [f"## {product} {report['label']}", "", "### Resolved issues", ""]
    for row in report["fixed"]:
        lines += _note(row, verified=bool(row["verified_architectures"]))
    if not report["fixed"]:
        lines += ["No resolved issues.", ""]
    lines += ["### Known issues", ""]
    for row in report["known_issues"] + [
        r for r in report["open_regressions"] if r not in report["known_issues"]
    ]:
        lines += _note(row, verified=False)
    if not report["known_issues"] and not report["open_regressions"]:
        lines += ["No known issues.", ""]
    return "\n".join(lines).rstrip() + "\n"


def _note(row: dict, *, verified: bool) -> list[str]:
    details = []
    if row.get("architectures"):
        details.append("Affected GPUs: " + ", ".join(row["architectures"]) + ".")
    if row.get("component"):
        details.append(f"Component: {_md(row['component'])}.")
    if verified:
        details.append("Fix verified on " + ", ".join(row["verified_architectures"]) + ".")
    number = row["reference"].rsplit("#", 1)[1]
    details.append(f"See {_link(f'GitHub issue #{number}', row['url'])}.")
    return [f"* **{_md(row['title'])}**. " + " ".join(details), ""]
