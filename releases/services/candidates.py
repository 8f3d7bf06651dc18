"""Release candidates: the release manager records that a train's RC was tagged, and every
issue fixed on the train gets its repro verification re-run (kernels_ci, on commit)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from config import linear_re
from releases import calendar
from releases.models import FixLink, ReleaseCandidate, ReleaseSeries
from releases.services.verification import verification_enqueue

TAG_RE = linear_re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+/-]{0,99}$")


class CandidateError(ValueError):
    pass


@transaction.atomic
def train_rc_tag(*, series: ReleaseSeries, version: str, tag: str, user=None) -> ReleaseCandidate:
    """Record RC `tag` of train `version` (idempotent: the same tag again changes nothing)."""
    tag = (tag or "").strip()
    if not TAG_RE.match(tag):
        raise CandidateError(
            "a tag is 1-100 characters: letters, digits and . _ + / - (e.g. rocm-7.9.0-rc1)"
        )
    try:
        train = series.train(version)
    except calendar.CalendarError as exc:
        raise CandidateError(str(exc)) from exc
    candidate, created = ReleaseCandidate.objects.get_or_create(
        series=series,
        train_version=train.version,
        tag=tag,
        defaults={"tagged_by": user, "tagged_at": timezone.now()},
    )
    if created:
        fixed = FixLink.objects.filter(
            series=series, train_version=train.version, removed=False, merged_at__isnull=False
        ).values_list("issue_id", flat=True)
        ids = verification_enqueue(
            issue_ids=fixed, reason=f"release candidate {tag} of {series.name} {train.label}"
        )
        candidate.verification_requested = len(ids)
        candidate.save(update_fields=["verification_requested"])
    return candidate
