"""Sections that later stages add to triage's pages, without triage importing them.

settings.ISSUE_PANELS lists dotted paths of functions `panel(*, issue, request) -> Panel | None`;
the issue page renders each returned panel's template with its context, in that order.
settings.HOME_PANELS and settings.SETTINGS_PANELS do the same for the home page ("what needs a
maintainer today") and the settings page, with functions `panel(*, request) -> Panel | None`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings
from django.utils.module_loading import import_string


@dataclass
class Panel:
    title: str
    template: str
    context: dict = field(default_factory=dict)
    slug: str = ""


def issue_panels(*, issue, request) -> list[Panel]:
    panels = []
    for dotted in settings.ISSUE_PANELS:
        panel = import_string(dotted)(issue=issue, request=request)
        if panel is not None:
            panels.append(panel)
    return panels


def page_panels(setting: str, *, request) -> list[Panel]:
    panels = []
    for dotted in getattr(settings, setting):
        panel = import_string(dotted)(request=request)
        if panel is not None:
            panels.append(panel)
    return panels
