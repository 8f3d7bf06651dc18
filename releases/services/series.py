"""Writes of release series and their overrides; every change re-assigns the trains of fixes."""

from __future__ import annotations

from datetime import date

from django.db import transaction

from releases import calendar
from releases.models import ReleaseSeries, TrainOverride
from releases.services.fixes import fix_links_assign_trains


@transaction.atomic
def series_create(
    *,
    name: str,
    epoch_version: str,
    epoch_date: date,
    cadence_days: int = 42,
    time_zone: str = "UTC",
    repositories=(),
    **fields,
) -> ReleaseSeries:
    """Create or update the series `name` (validated as a calendar first; nothing half-written)."""
    series = ReleaseSeries.objects.filter(name=name).first() or ReleaseSeries(name=name)
    for key, value in {
        "epoch_version": epoch_version,
        "epoch_date": epoch_date,
        "cadence_days": cadence_days,
        "time_zone": time_zone,
        **fields,
    }.items():
        setattr(series, key, value)
    calendar.SeriesSpec(
        name=name,
        epoch_version=series.epoch_version,
        epoch_date=series.epoch_date,
        cadence_days=series.cadence_days,
        time_zone=series.time_zone,
        branch_cut_days=series.branch_cut_days,
        code_freeze_days=series.code_freeze_days,
        rc_days=series.rc_days,
    ).validate()
    series.save()
    if repositories:
        series.repositories.set(repositories)
    _reassign_on_commit(series)
    return series


@transaction.atomic
def override_set(*, series: ReleaseSeries, slot: date, **fields) -> TrainOverride:
    """Slip, skip or renumber the train of one slot (slot = its scheduled GA date)."""
    spec = series.spec()
    offset = (slot - spec.epoch_date).days
    if offset < 0 or offset % spec.cadence_days:
        raise calendar.CalendarError(
            f"{slot} is not a slot of {series.name} (epoch {spec.epoch_date}, "
            f"every {spec.cadence_days} days)"
        )
    if fields.get("version"):
        calendar.parse_version(fields["version"])
    override, _ = TrainOverride.objects.update_or_create(series=series, slot=slot, defaults=fields)
    _reassign_on_commit(series)
    return override


def _reassign_on_commit(series: ReleaseSeries) -> None:
    transaction.on_commit(lambda: fix_links_assign_trains(series=series))
