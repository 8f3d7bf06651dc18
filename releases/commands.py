"""Comment commands of releases (config/wiring.py COMMENT_COMMANDS): `/target 7.9`, `/backport 7.9`.

Each is the service a release manager's click calls, with the collaborator's login as the
actor (automation.commands.services says who may command and how it is acknowledged)."""

from __future__ import annotations

from django.utils import timezone

from automation.commands.services import CommandRefused
from releases import calendar, selectors
from releases.services import backports, targets
from triage.models import TriageAction


def _series(issue):
    series = selectors.series_for_repository(issue.repository_id)
    if series is None:
        raise CommandRefused(f"{issue.repository.full_name} ships in no release series")
    return series


def _version(argument: str) -> str:
    word = (argument.split() or [""])[0]
    try:
        return calendar.format_version(calendar.parse_version(word))
    except (calendar.CalendarError, ValueError):
        raise CommandRefused(f"{word or 'nothing'!r} is not a train version: /target 7.9") from None


def target_command(*, issue, argument: str, login: str, ref: str = "", user=None) -> str:
    """`/target 7.9` by a collaborator (`login`), or the queue's bulk action by `user`."""
    series, version = _series(issue), _version(argument)
    before = getattr(issue.targets.filter(series=series).first(), "train_version", "")
    try:
        targets.target_set(issue=issue, series=series, version=version, user=user)
    except (targets.TargetError, calendar.CalendarError) as exc:
        raise CommandRefused(str(exc)) from None
    TriageAction.objects.create(
        issue=issue,
        action="train.target",
        actor=user,
        github_login=login,
        before={"train": before},
        after={"train": version, "series": series.name},
    )
    return f"targeted at {series.name} {version}"


def target_undo(*, issue, undo: dict, user) -> str:
    """A bulk "target a train" taken back: the issue's target in that series as it was before
    (`undo`: {"series", "train" (before; '' none)}), unless it was changed again since."""
    series = selectors.series_get(undo["series"])
    target = issue.targets.filter(series=series).first()
    if target is None or target.train_version != undo.get("after_train", target.train_version):
        raise CommandRefused("its train target changed since")
    before = undo.get("train", "")
    target.train_version, target.set_by, target.updated_at = before, user, timezone.now()
    target.save(update_fields=["train_version", "set_by", "updated_at"])
    TriageAction.objects.create(
        issue=issue,
        action="train.target",
        actor=user,
        before={"train": undo.get("after_train", "")},
        after={"train": before, "series": series.name, "undo": True},
    )
    return f"target back to {before}" if before else "no longer targeted"


def backport_command(*, issue, argument: str, login: str, ref: str = "") -> str:
    series, version = _series(issue), _version(argument)
    try:
        backport = backports.backport_nominate(
            issue=issue, series=series, version=version, reason=f"/backport by @{login}"
        )
    except backports.BackportError as exc:
        raise CommandRefused(str(exc)) from None
    TriageAction.objects.create(
        issue=issue,
        action="backport.nominate",
        github_login=login,
        after={"train": backport.train_version, "state": backport.state},
    )
    return f"backport to {series.name} {backport.train_version} nominated ({backport.state})"
