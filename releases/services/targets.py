"""Release-side state of issues: target train and flags (blocker, known issue, ...)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from config import linear_re
from releases import calendar
from releases.models import ReleaseSeries, TrainTarget
from triage.models import Issue

MAX_FLAGS = 20
FLAG_RE = linear_re.compile(r"^[\w .:/+-]{1,50}$")


class TargetError(ValueError):
    pass


@transaction.atomic
def target_set(
    *, issue: Issue, series: ReleaseSeries, version: str = "", flags=None, note=None, user=None
) -> TrainTarget:
    """Target `issue` at train `version` ('' keeps the current target) and set its flags."""
    if issue.is_pull_request:
        raise TargetError("target an issue, not a pull request")
    if version:
        series.train(version)  # CalendarError when it has no such train
    cleaned = None
    if flags is not None:
        cleaned = sorted({f.strip().lower() for f in flags if f and f.strip()})
        bad = [f for f in cleaned if not FLAG_RE.match(f)]
        if bad or len(cleaned) > MAX_FLAGS:
            raise TargetError(
                f"flags are at most {MAX_FLAGS} short names (letters, digits, space . : / + - _)"
            )
    target, _ = TrainTarget.objects.get_or_create(issue=issue, series=series)
    if version:
        target.train_version = calendar.format_version(calendar.parse_version(version))
    if cleaned is not None:
        target.flags = cleaned
    if note is not None:
        target.note = note[:255]
    target.set_by = user
    target.updated_at = timezone.now()
    target.save()
    return target
