"""Sections that later stages add to triage's pages, without triage importing them.

config/wiring.py's ISSUE_PANELS lists dotted paths of functions
`panel(*, issue, request) -> Panel | None`; the issue page renders each returned panel's template
with its context, in that order. HOME_PANELS and SETTINGS_PANELS do the same for the home page
("what needs a maintainer today") and the settings page, with `panel(*, request) -> Panel | None`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from config import wiring


@dataclass
class Panel:
    title: str
    template: str
    context: dict = field(default_factory=dict)
    slug: str = ""
    wide: bool = False  # a page grid gives it the full width (its tables have many columns)


def issue_panels(*, issue, request) -> list[Panel]:
    panels = []
    for dotted in wiring.ISSUE_PANELS:
        panel = wiring.load(dotted)(issue=issue, request=request)
        if panel is not None:
            panels.append(panel)
    return panels


def page_panels(names: list[str], *, request) -> list[Panel]:
    """The panels of the home page (wiring.HOME_PANELS) or the settings page (SETTINGS_PANELS)."""
    panels = []
    for dotted in names:
        panel = wiring.load(dotted)(request=request)
        if panel is not None:
            panels.append(panel)
    return panels
