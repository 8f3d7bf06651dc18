"""Recording the burndown: today's open issues per train (the beat task, hourly: a day's row is
updated until the day ends in the series' time zone, then it stays)."""

from __future__ import annotations

from django.utils import timezone

from releases import calendar
from releases.history import SeriesHistory, history_load
from releases.models import FixLink, ReleaseSeries, TrainSnapshot


def train_snapshot_record(
    *, series: ReleaseSeries, train: calendar.Train, now=None, history: SeriesHistory | None = None
) -> TrainSnapshot:
    now = now or timezone.now()
    history = history or history_load(series)
    ids = history.scope(train, now)
    facts = history.facts(ids)
    kinds = [set(facts[i]["kinds"]) for i in ids if i in facts]
    fixed = (
        FixLink.objects.filter(
            series=series, train_version=train.version, removed=False, merged_at__lte=now
        )
        .values("issue_id")
        .distinct()
        .count()
    )
    snapshot, _ = TrainSnapshot.objects.update_or_create(
        series=series,
        train_version=train.version,
        day=calendar.day_in(now, series.time_zone),
        defaults={
            "open_issues": len(ids),
            "open_blockers": sum(1 for k in kinds if "blocker" in k),
            "open_regressions": sum(1 for k in kinds if "regression" in k),
            "fixed": fixed,
            "issue_ids": ids,
            "recorded_at": now,
        },
    )
    return snapshot


def trains_snapshot(*, now=None) -> list[TrainSnapshot]:
    """Today's row for every train not yet released: the cut ones, the current one, the next."""
    now = now or timezone.now()
    recorded = []
    for series in ReleaseSeries.objects.order_by("name"):
        spec = series.spec()
        _, current, after = calendar.trains_window(spec, now, past=0, upcoming=1)
        trains = {t.slot: t for t in [*calendar.trains_open(spec, now), current, *after] if t}
        history = history_load(series)
        for slot in sorted(trains):
            recorded.append(
                train_snapshot_record(series=series, train=trains[slot], now=now, history=history)
            )
    return recorded
