"""releases' sections of the home page and the settings page (config/wiring.py HOME_PANELS ...)."""

from __future__ import annotations

from django.utils import timezone

from releases import calendar, selectors
from releases.readiness import readiness_build, reasons_linked
from triage.panels import Panel


def next_train_panel(*, request) -> Panel:
    """Per series: the next train to ship, its verdict and reasons, days to branch cut/release."""
    now = timezone.now()
    rows = []
    for series in selectors.series_all():
        train = calendar.train_current(series.spec(), now)
        if train is None:
            continue
        today = selectors.today_in(series, now)
        report = readiness_build(series=series, version=train.version, as_of=today)
        rows.append(
            {
                "series": series,
                "train": train,
                "phase": train.phase(now),
                "verdict": report["verdict"],
                "reasons": reasons_linked(report)[:3],
                "days_to_branch_cut": (train.branch_cut - today).days,
                "days_to_release": (train.release - today).days,
            }
        )
    return Panel(
        title="Next train",
        template="releases/home/next_train.html",
        context={"rows": rows},
        slug="train",
    )


def series_settings_panel(*, request) -> Panel:
    return Panel(
        title="Release series",
        template="releases/home/series_settings.html",
        context={"series_list": selectors.series_all()},
        slug="release-series",
    )
