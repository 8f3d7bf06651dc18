"""Punting at branch cut: open issues targeted at a train move to the next one, each move kept.

Issues carrying an exempt label or flag (blocker, regression, security; settings.RELEASES_LABELS
["punt_exempt"]) stay on the train.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from releases import calendar
from releases.labels import kinds_of
from releases.models import Punt, ReleaseSeries, TrainTarget


@dataclass
class PuntResult:
    moved: list[int] = field(default_factory=list)
    kept: list[int] = field(default_factory=list)
    to_version: str = ""

    def summary(self) -> str:
        return f"{len(self.moved)} issues punted to {self.to_version}, {len(self.kept)} exempt"


@transaction.atomic
def train_punt(*, series: ReleaseSeries, version: str) -> PuntResult:
    spec = series.spec()
    train = calendar.train_get(spec, version)
    if train is None:
        raise calendar.CalendarError(f"{series.name} has no train {version}")
    following = calendar.train_after(spec, train)
    result = PuntResult(to_version=following.version if following else "")
    if following is None:
        return result
    targets = (
        TrainTarget.objects.select_for_update()
        .filter(series=series, train_version=train.version, issue__state="open")
        .select_related("issue")
        .prefetch_related("issue__labels")
        .order_by("issue_id")
    )
    now = timezone.now()
    for target in targets:
        names = [label.name for label in target.issue.labels.all()] + list(target.flags)
        if "punt_exempt" in kinds_of(names):
            result.kept.append(target.issue_id)
            continue
        target.train_version = following.version
        target.updated_at = now
        target.save(update_fields=["train_version", "updated_at"])
        Punt.objects.get_or_create(
            issue=target.issue,
            series=series,
            from_version=train.version,
            defaults={"to_version": following.version, "reason": "branch cut", "created_at": now},
        )
        result.moved.append(target.issue_id)
    return result


def trains_punt_due(*, now=None) -> list[PuntResult]:
    """Punt every train whose branch cut has passed and that is not released (idempotent)."""
    now = now or timezone.now()
    results = []
    for series in ReleaseSeries.objects.order_by("name"):
        for train in calendar.trains_open(series.spec(), now):
            results.append(train_punt(series=series, version=train.version))
    return results
