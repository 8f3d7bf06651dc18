"""Backports: nominated → approved | rejected → merged. Approving or rejecting needs the
permission releases.approve_backport (the "release managers" role holds it).

A fixed issue labelled regression, critical or high (by a label, a flag, or triage's severity
prediction) is nominated automatically for the trains that are already cut and not yet released
when its fix lands on a later train. A merge into a release branch that fixes an issue marks its
approved nomination merged; a nomination that was never approved stays as it is, and the
readiness report flags the merge (releases.selectors.unapproved_release_fixes).
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone

from releases import calendar, selectors
from releases.models import Backport, FixLink, ReleaseSeries, TrainTarget
from triage.models import Issue
from triage.permissions import APPROVE_BACKPORT

logger = logging.getLogger(__name__)


class BackportError(ValueError):
    pass


class NotReleaseManager(PermissionError):
    pass


def can_decide_backports(user) -> bool:
    return bool(user and user.is_authenticated and user.has_perm(APPROVE_BACKPORT))


def _train_or_error(series: ReleaseSeries, version: str) -> calendar.Train:
    try:
        return series.train(version)
    except calendar.CalendarError as exc:
        raise BackportError(str(exc)) from exc


@transaction.atomic
def backport_nominate(
    *,
    issue: Issue,
    series: ReleaseSeries,
    version: str,
    user=None,
    reason: str = "",
    automatic=False,
) -> Backport:
    """Nominate the fix of `issue` for train `version` (idempotent; a rejection stays)."""
    train = _train_or_error(series, version)
    backport, created = Backport.objects.get_or_create(
        issue=issue,
        series=series,
        train_version=train.version,
        defaults={
            "nominated_by": user,
            "reason": reason[:255],
            "automatic": automatic,
            "created_at": timezone.now(),
        },
    )
    return backport


def _decide(*, backport: Backport, user, state: str) -> Backport:
    if not can_decide_backports(user):
        raise NotReleaseManager(f"approving or rejecting a backport needs {APPROVE_BACKPORT}")
    updated = Backport.objects.filter(pk=backport.pk, state=Backport.State.NOMINATED).update(
        state=state, decided_by=user, decided_at=timezone.now()
    )
    backport.refresh_from_db()
    if not updated and backport.state != state:
        raise BackportError(f"backport is {backport.state}, not nominated")
    if updated and state == Backport.State.APPROVED:
        _merge_if_already_fixed(backport)
    return backport


def _merge_if_already_fixed(backport: Backport) -> None:
    """Approved after its release-branch fix merged: the backport is merged."""
    link = (
        FixLink.objects.filter(
            issue_id=backport.issue_id,
            series_id=backport.series_id,
            train_version=backport.train_version,
            via=FixLink.Via.RELEASE_BRANCH,
            removed=False,
        )
        .order_by("merged_at", "id")
        .first()
    )
    if link is not None:
        Backport.objects.filter(pk=backport.pk, state=Backport.State.APPROVED).update(
            state=Backport.State.MERGED, merged_pull_request_id=link.pull_request_id
        )
        backport.refresh_from_db()


def backport_approve(*, backport: Backport, user) -> Backport:
    """Approve a nomination; where the series asks for a second approver
    (ReleaseSeries.backport_second_approver), not one's own."""
    if (
        backport.series.backport_second_approver
        and backport.nominated_by_id is not None
        and backport.nominated_by_id == getattr(user, "pk", None)
    ):
        raise BackportError(
            f"{backport.series.name} asks for a second approver: another release manager "
            "approves your own nomination"
        )
    return _decide(backport=backport, user=user, state=Backport.State.APPROVED)


def backport_reject(*, backport: Backport, user) -> Backport:
    return _decide(backport=backport, user=user, state=Backport.State.REJECTED)


def _kinds(issue: Issue, series: ReleaseSeries) -> set[str]:
    names = list(issue.labels.values_list("name", flat=True))
    target = TrainTarget.objects.filter(issue=issue, series=series).first()
    predictions = selectors.predictions_for([issue.id]).get(issue.id, {})
    return set(
        selectors.issue_facts(names + (target.flags if target else []), predictions)["kinds"]
    )


def backports_after_links(*, pull_request: Issue, now=None) -> list[Backport]:
    """Mark approved nominations merged by a release-branch fix; nominate urgent regressions."""
    now = now or timezone.now()
    touched = []
    links = FixLink.objects.filter(
        pull_request=pull_request, removed=False, series__isnull=False
    ).select_related("series", "issue")
    for link in links:
        if link.via == FixLink.Via.RELEASE_BRANCH:
            merged = Backport.objects.filter(
                issue=link.issue,
                series=link.series,
                train_version=link.train_version,
                state=Backport.State.APPROVED,
            ).update(state=Backport.State.MERGED, merged_pull_request=pull_request)
            if (
                not merged
                and Backport.objects.filter(
                    issue=link.issue, series=link.series, train_version=link.train_version
                )
                .exclude(state=Backport.State.MERGED)
                .exists()
            ):
                logger.warning(
                    "%s merged into %s fixes %s, whose backport to %s is not approved",
                    pull_request.reference,
                    link.base_ref,
                    link.issue.reference,
                    link.train_version,
                )
            continue
        kinds = _kinds(link.issue, link.series)
        if "regression" not in kinds or not kinds & {"critical", "high"}:
            continue
        fixed_in = calendar.parse_version(link.train_version) if link.train_version else None
        for train in calendar.trains_open(link.series.spec(), now):
            if fixed_in is None or train.key < fixed_in:
                touched.append(
                    backport_nominate(
                        issue=link.issue,
                        series=link.series,
                        version=train.version,
                        reason=(
                            f"regression fixed in {link.train_version}, "
                            f"train {train.version} is cut"
                        ),
                        automatic=True,
                    )
                )
    return touched
