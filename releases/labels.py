"""What an issue's labels (and the release side's flags) mean for a release, and its GPUs.

Label sets are configurable through settings.RELEASES_LABELS ({kind: [label, ...]}), merged over
DEFAULT_LABELS; names compare lower-cased. Pure functions of names and text.
"""

from __future__ import annotations

import re

from django.conf import settings

DEFAULT_LABELS: dict[str, list[str]] = {
    "blocker": ["blocker", "release blocker", "release-blocker", "priority: blocker"],
    "regression": ["regression", "type: regression", "kind/regression"],
    "critical": ["priority: critical", "critical", "p0", "severity: critical"],
    "high": ["priority: high", "high priority", "p1", "severity: high"],
    "known_issue": ["known issue", "known-issue"],
    "untriaged": ["status: triage", "needs triage", "triage"],
    "punt_exempt": ["blocker", "release blocker", "regression", "security"],
}
ARCH_RE = re.compile(r"\bgfx[0-9]{3,4}[a-z]?\b", re.IGNORECASE)
GPU_SECTION_RE = re.compile(r"^#{2,4}\s*GPU\s*$\n+(?P<text>.+?)(?:\n#{2,4}\s|\Z)", re.M | re.S)
# Marketing names → gfx targets, most specific first (a small, self-contained table).
GPU_NAMES: list[tuple[str, str]] = [
    ("mi355", "gfx950"),
    ("mi350", "gfx950"),
    ("mi325", "gfx942"),
    ("mi300", "gfx942"),
    ("mi250", "gfx90a"),
    ("mi210", "gfx90a"),
    ("mi100", "gfx908"),
    ("rx 9070", "gfx1201"),
    ("rx 9060", "gfx1200"),
    ("rx 7900", "gfx1100"),
    ("pro w7900", "gfx1100"),
    ("pro w7800", "gfx1100"),
    ("rx 7800", "gfx1101"),
    ("rx 7700", "gfx1101"),
    ("rx 7600", "gfx1102"),
    ("rx 6800", "gfx1030"),
    ("rx 6900", "gfx1030"),
    ("strix halo", "gfx1151"),
    ("8060s", "gfx1151"),
    ("780m", "gfx1103"),
]


def label_sets() -> dict[str, set[str]]:
    configured = getattr(settings, "RELEASES_LABELS", {}) or {}
    merged = {**DEFAULT_LABELS, **configured}
    return {kind: {name.lower() for name in names} for kind, names in merged.items()}


def kinds_of(names: list[str], sets: dict[str, set[str]] | None = None) -> set[str]:
    """{"blocker", "regression", ...}: the kinds that these labels or flags name."""
    sets = sets if sets is not None else label_sets()
    lowered = {n.lower() for n in names}
    return {kind for kind, members in sets.items() if lowered & members}


def architectures(labels: list[str], body: str) -> list[str]:
    """gfx targets from labels (gfx942), else from the issue form's "### GPU" section."""
    found = {m.lower() for name in labels for m in ARCH_RE.findall(name)}
    if found:
        return sorted(found)
    section = GPU_SECTION_RE.search(body or "")
    if not section:
        return []
    text = section.group("text")[:500]
    found = {m.lower() for m in ARCH_RE.findall(text)}
    lowered = text.lower()
    for name, arch in GPU_NAMES:
        if name in lowered:
            found.add(arch)
            break
    return sorted(found)
