"""Release-side state of issues: target train and flags (blocker, known issue, ...)."""

from __future__ import annotations

from django.utils import timezone

from releases import calendar
from releases.models import ReleaseSeries, TrainTarget
from triage.models import Issue


def target_set(
    *, issue: Issue, series: ReleaseSeries, version: str = "", flags=None, note=None, user=None
) -> TrainTarget:
    """Target `issue` at train `version` ('' keeps the current target) and set its flags."""
    if version and calendar.train_get(series.spec(), version) is None:
        raise calendar.CalendarError(f"{series.name} has no train {version}")
    target, _ = TrainTarget.objects.get_or_create(issue=issue, series=series)
    if version:
        target.train_version = calendar.format_version(calendar.parse_version(version))
    if flags is not None:
        target.flags = sorted({f.strip().lower() for f in flags if f.strip()})
    if note is not None:
        target.note = note[:255]
    target.set_by = user
    target.updated_at = timezone.now()
    target.save()
    return target
