"""What an issue's labels (and the release side's flags) mean for a release.

Label sets are configurable through settings.RELEASES_LABELS ({kind: [label, ...]}), merged over
DEFAULT_LABELS; names compare lower-cased. Pure functions of names: what triage predicted from
the issue's text (severity, component, environment) is read by releases.selectors.issue_facts,
and these label rules are the fallback where triage has stored nothing.
"""

from __future__ import annotations

from django.conf import settings

from config import linear_re

DEFAULT_LABELS: dict[str, list[str]] = {
    "blocker": ["blocker", "release blocker", "release-blocker", "priority: blocker"],
    "regression": ["regression", "type: regression", "kind/regression"],
    "critical": ["priority: critical", "critical", "p0", "severity: critical"],
    "high": ["priority: high", "high priority", "p1", "severity: high"],
    "known_issue": ["known issue", "known-issue"],
    "punt_exempt": ["blocker", "release blocker", "regression", "security"],
}
ARCH_RE = linear_re.compile(r"\bgfx[0-9]{3,4}[a-z]?\b", linear_re.IGNORECASE)


def label_sets() -> dict[str, set[str]]:
    configured = getattr(settings, "RELEASES_LABELS", {}) or {}
    merged = {**DEFAULT_LABELS, **configured}
    return {kind: {name.lower() for name in names} for kind, names in merged.items()}


def kinds_of(names: list[str], sets: dict[str, set[str]] | None = None) -> set[str]:
    """{"blocker", "regression", ...}: the kinds that these labels or flags name."""
    sets = sets if sets is not None else label_sets()
    lowered = {n.lower() for n in names}
    return {kind for kind, members in sets.items() if lowered & members}


def architectures(labels: list[str]) -> list[str]:
    """gfx targets named by labels or flags ("gfx942"); the issue text is triage's to read."""
    return sorted({m.lower() for name in labels for m in ARCH_RE.findall(name)})


def component_from_labels(labels: list[str]) -> str:
    """ "project: rocBLAS" or "component: HIP" -> the component ("" when no label names one)."""
    for name in sorted(labels, key=str.lower):
        prefix, sep, rest = name.partition(":")
        if sep and prefix.strip().lower() in ("project", "component") and rest.strip():
            return rest.strip()[:100]
    return ""
