"""Backports: nominated → approved | rejected → merged. Only release managers approve or reject.

A fixed issue labelled regression and critical or high is nominated automatically for the trains
that are already cut and not yet released when its fix lands on a later train. A merge into a
release branch that fixes a nominated issue marks the nomination merged.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from releases import calendar
from releases.labels import kinds_of
from releases.models import Backport, FixLink, ReleaseSeries, TrainTarget
from triage.models import Issue

RELEASE_MANAGERS_GROUP = "release managers"


class BackportError(ValueError):
    pass


class NotReleaseManager(PermissionError):
    pass


def is_release_manager(user) -> bool:
    group = getattr(settings, "RELEASES_MANAGER_GROUP", RELEASE_MANAGERS_GROUP)
    return bool(user and user.is_authenticated and user.groups.filter(name=group).exists())


def _train_or_error(series: ReleaseSeries, version: str) -> calendar.Train:
    try:
        train = calendar.train_get(series.spec(), version)
    except calendar.CalendarError as exc:
        raise BackportError(str(exc)) from exc
    if train is None:
        raise BackportError(f"{series.name} has no train {version}")
    return train


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
    if not is_release_manager(user):
        raise NotReleaseManager("only members of the release managers group decide backports")
    updated = Backport.objects.filter(pk=backport.pk, state=Backport.State.NOMINATED).update(
        state=state, decided_by=user, decided_at=timezone.now()
    )
    backport.refresh_from_db()
    if not updated and backport.state != state:
        raise BackportError(f"backport is {backport.state}, not nominated")
    return backport


def backport_approve(*, backport: Backport, user) -> Backport:
    return _decide(backport=backport, user=user, state=Backport.State.APPROVED)


def backport_reject(*, backport: Backport, user) -> Backport:
    return _decide(backport=backport, user=user, state=Backport.State.REJECTED)


def _kinds(issue: Issue, series: ReleaseSeries) -> set[str]:
    names = list(issue.labels.values_list("name", flat=True))
    target = TrainTarget.objects.filter(issue=issue, series=series).first()
    return kinds_of(names + (target.flags if target else []))


def backports_after_links(*, pull_request: Issue, now=None) -> list[Backport]:
    """Mark nominations merged by a release-branch fix; nominate urgent regressions."""
    now = now or timezone.now()
    touched = []
    links = FixLink.objects.filter(
        pull_request=pull_request, removed=False, series__isnull=False
    ).select_related("series", "issue")
    for link in links:
        if link.via == FixLink.Via.RELEASE_BRANCH:
            Backport.objects.filter(
                issue=link.issue, series=link.series, train_version=link.train_version
            ).exclude(state__in=[Backport.State.REJECTED, Backport.State.MERGED]).update(
                state=Backport.State.MERGED, merged_pull_request=pull_request
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
