"""The burndown of a train: open issues on it per day, from the day it became the current train
to its release. A day's value is the snapshot the beat task recorded (releases.tasks.
snapshot_trains), else it is reconstructed from timestamps (releases.history); days after
`today` have none. Pure reads; the chart's data is passed to the page with json_script."""

from __future__ import annotations

from datetime import date, timedelta

from releases import calendar, selectors
from releases.history import SeriesHistory, history_load
from releases.models import ReleaseSeries

RECORDED_COLOUR = "#1d4ed8"
RECONSTRUCTED_COLOUR = "#94a3b8"
IDEAL_COLOUR = "#16a34a"


def train_window(series: ReleaseSeries, train: calendar.Train) -> tuple[date, date]:
    """The first day the train is the current one (after the previous train's release), and its
    release day."""
    previous = None
    for candidate in calendar.iter_trains(series.spec()):
        if candidate.slot >= train.slot:
            break
        previous = candidate
    start = (
        previous.release + timedelta(days=1)
        if previous
        else train.release - timedelta(days=series.cadence_days - 1)
    )
    return start, train.release


def burndown_build(
    *,
    series: ReleaseSeries,
    train: calendar.Train,
    today: date,
    history: SeriesHistory | None = None,
) -> dict:
    start, end = train_window(series, train)
    recorded = selectors.snapshots_of_train(series, train.version)
    history = history or history_load(series)
    days, recorded_values, reconstructed_values = [], [], []
    day = start
    while day <= end:
        days.append(day.isoformat())
        snapshot = recorded.get(day)
        if day > today:
            recorded_values.append(None)
            reconstructed_values.append(None)
        elif snapshot is not None:
            recorded_values.append(snapshot.open_issues)
            reconstructed_values.append(None)
        else:
            moment = calendar.end_of_day(day, series.time_zone)
            recorded_values.append(None)
            reconstructed_values.append(len(history.scope(train, moment)))
        day += timedelta(days=1)
    known = [
        r if r is not None else c
        for r, c in zip(recorded_values, reconstructed_values, strict=True)
    ]
    first = next((v for v in known if v is not None), None)
    ideal = _ideal(days, first, train.branch_cut)
    return {
        "series": series.name,
        "train": train.version,
        "start": start.isoformat(),
        "branch_cut": train.branch_cut.isoformat(),
        "release": train.release.isoformat(),
        "days": days,
        "recorded": recorded_values,
        "reconstructed": reconstructed_values,
        "rows": [
            (d, r, c)
            for d, r, c in zip(days, recorded_values, reconstructed_values, strict=True)
            if r is not None or c is not None
        ],
        "chart": {
            "type": "line",
            "labels": days,
            "datasets": [
                {"label": "open, recorded", "data": recorded_values, "color": RECORDED_COLOUR},
                {
                    "label": "open, reconstructed from timestamps",
                    "data": reconstructed_values,
                    "color": RECONSTRUCTED_COLOUR,
                },
                {"label": "ideal: none open at branch cut", "data": ideal, "color": IDEAL_COLOUR},
            ],
        },
    }


def _ideal(days: list[str], first: int | None, branch_cut: date) -> list[float | None]:
    """A straight line from the first day's count to zero on the branch cut day."""
    if first is None or not days:
        return [None] * len(days)
    start = date.fromisoformat(days[0])
    span = max(1, (branch_cut - start).days)
    values = []
    for text in days:
        elapsed = (date.fromisoformat(text) - start).days
        values.append(round(first * (1 - elapsed / span), 1) if elapsed <= span else None)
    return values
