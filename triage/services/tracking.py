"""Which repositories the service tracks, and their sync schedules in django-celery-beat.

A repository is known by its GitHub id. GitHub compares names case-insensitively, and so does
every lookup here; a rename (the `repository` webhook's `renamed`, a delivery or a sync whose
repository has our id under another name) keeps the row, its issues and its schedule, and the
old name stays known (RepositoryFormerName): GITHUB_REPOS and label maps written for it still
name this repository.
"""

from __future__ import annotations

import json
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from config import beat_schedules
from triage.models import Repository, RepositoryFormerName
from triage.sources.github import ingest
from triage.sources.github.ingest import repository_get_or_create

SYNC_TASK = "triage.tasks.sync_repository"


def _task_name(repository: Repository) -> str:
    return f"sync GitHub {repository.full_name}"


def repository_schedule_sync(*, repository: Repository, every_minutes: int | None = None) -> None:
    """Create or refresh the beat entry that syncs this repository (disabled when untracked).

    A repository that starts being synced (a new entry, or a disabled one enabled again) is due
    at once: its first sync starts at beat's next tick, not one interval later."""
    minutes = every_minutes or settings.GITHUB_SYNC_INTERVAL_MINUTES
    interval, _ = IntervalSchedule.objects.get_or_create(
        every=minutes, period=IntervalSchedule.MINUTES
    )
    name = _task_name(repository)
    was_enabled = PeriodicTask.objects.filter(name=name).values_list("enabled", flat=True).first()
    defaults = {
        "task": SYNC_TASK,
        "interval": interval,
        "kwargs": json.dumps({"repository_id": repository.pk}),
        "queue": "ingest",
        "enabled": repository.tracked,
        "description": "Incremental GitHub sync (issues, pull requests, comments).",
    }
    if repository.tracked and not was_enabled:
        defaults["last_run_at"] = timezone.now() - timedelta(minutes=minutes)
    PeriodicTask.objects.update_or_create(name=name, defaults=defaults)


@transaction.atomic
def account_trusted(login: str) -> bool:
    """May the GitHub App's installation on this account (a user or an organization) be acted
    on? The accounts of settings.GITHUB_APP_ACCOUNTS ("*": any, for a private App), of
    GITHUB_REPOS, and of the repositories already tracked on GitHub; compared as GitHub
    compares names, in any case."""
    allowed = {a.strip().lower() for a in settings.GITHUB_APP_ACCOUNTS if a.strip()}
    if "*" in allowed:
        return True
    login = (login or "").strip().lower()
    if not login:
        return False
    allowed |= {name.split("/", 1)[0].strip().lower() for name in settings.GITHUB_REPOS}
    if login in allowed:
        return True
    return (
        Repository.objects.on_github()
        .filter(tracked=True, full_name__istartswith=f"{login}/")
        .exists()
    )


def repository_track(*, full_name: str) -> Repository:
    repository = repository_get_or_create(full_name=full_name)
    if not repository.tracked:
        repository.tracked = True
        repository.save(update_fields=["tracked"])
    repository_schedule_sync(repository=repository)
    return repository


@transaction.atomic
def repository_forget(*, repository: Repository) -> None:
    """Stop tracking a repository: its beat entry goes; a row that holds nothing goes too."""
    PeriodicTask.objects.filter(name=_task_name(repository)).delete()
    if repository.github_id is None and not repository.issues.exists():
        repository.delete()
    else:
        Repository.objects.filter(pk=repository.pk).update(tracked=False)


class RepositoryConflict(ValueError):
    """GitHub gives a name we hold for one repository to another one (by id)."""


def repository_rename(*, repository: Repository, full_name: str) -> Repository:
    """Give the repository GitHub's name for it now, keeping the old one as a former name (a
    change of case only is a new spelling, not a former name) and its beat entry under the
    new name."""
    full_name = full_name.strip()
    old = repository.full_name
    if full_name == old:
        return repository
    owner, _, name = full_name.partition("/")
    if not owner or not name or "/" in name:
        raise ValueError(f"expected OWNER/NAME, got {full_name!r}")
    old_task = _task_name(repository)
    with transaction.atomic():
        _free_name(full_name, repository)
        RepositoryFormerName.objects.filter(full_name__iexact=full_name).delete()
        if full_name.lower() != old.lower():
            RepositoryFormerName.objects.create(repository=repository, full_name=old)
        repository.full_name = full_name
        repository.owner, repository.name = full_name.split("/", 1)
        repository.save(update_fields=["full_name", "owner", "name"])
        task = PeriodicTask.objects.filter(name=old_task).first()
        if task is not None:
            PeriodicTask.objects.filter(name=_task_name(repository)).exclude(pk=task.pk).delete()
            task.name = _task_name(repository)
            task.save(update_fields=["name"])
    return repository


def _free_name(full_name: str, repository: Repository) -> None:
    """Another row holding the name: a placeholder never synced (tracked by that name before
    we knew it was this repository) goes; one with history of its own is a conflict."""
    holder = (
        Repository.objects.filter(full_name__iexact=full_name).exclude(pk=repository.pk).first()
    )
    if holder is None:
        return
    if holder.github_id is not None or holder.issues.exists():
        raise RepositoryConflict(
            f"cannot rename {repository.full_name} to {full_name}: that name is held by "
            f"another repository with its own history (GitHub id {holder.github_id})"
        )
    repository_forget(repository=holder)  # its beat entry and the empty row


def repository_of_github(*, data: dict, former_name: str = "") -> Repository:
    """The repository of a GitHub repository object (a delivery's `repository`, the API's):
    ours with its id, under its name now (renamed if it had another); else the one we track
    by `former_name` (what a rename's delivery says it was) or by that name, current or
    former; else a new tracked one. Its fields are refreshed from `data` when they are
    missing or its id or name changed."""
    github_id, full_name = data.get("id"), str(data.get("full_name") or "").strip()
    repository = None
    if isinstance(github_id, int):
        repository = Repository.objects.filter(github_id=github_id).first()
    for name in (former_name, full_name):
        if repository is None and name:
            repository = _by_name(name, github_id)
    if repository is None:
        repository = repository_track(full_name=full_name)
    renamed = repository.full_name != full_name
    if renamed:
        repository_rename(repository=repository, full_name=full_name)
    if renamed or repository.github_id != github_id or not repository.default_branch:
        ingest.repository_update_from_github(repository=repository, data=data)
    return repository


def _by_name(full_name: str, github_id) -> Repository | None:
    """The repository we know by this name, unless it is another repository (another id)."""
    repository = ingest.repository_named(full_name)
    if repository is None or repository.github_id in (None, github_id):
        return repository
    former = RepositoryFormerName.objects.filter(repository=repository, full_name__iexact=full_name)
    if former.exists():  # GitHub gave the old name to a new repository: no longer ours
        former.delete()
        return None
    raise RepositoryConflict(
        f"{full_name} is GitHub repository {github_id} now; we hold that name for repository "
        f"{repository.github_id}, which GitHub must have renamed (a sync of it tells its name)"
    )


def repositories_track_configured() -> list[Repository]:
    """Track every OWNER/NAME of GITHUB_REPOS (idempotent; run when beat starts)."""
    return [repository_track(full_name=name) for name in settings.GITHUB_REPOS]


def schedules_install_defaults() -> None:
    """Beat entries that do not belong to one repository (idempotent)."""
    every_minute, _ = IntervalSchedule.objects.get_or_create(
        every=1, period=IntervalSchedule.MINUTES
    )
    PeriodicTask.objects.get_or_create(
        name="process pending webhook deliveries",
        defaults={
            "task": "triage.tasks.process_pending_webhook_deliveries",
            "interval": every_minute,
            "queue": "ingest",
            "description": "Deliveries stored while no worker ran are processed here.",
        },
    )
    beat_schedules.crontab_jobs_install(
        [
            beat_schedules.CrontabJob(
                name="prune old webhook deliveries",
                task="triage.tasks.prune_webhook_deliveries",
                cron={"minute": "40", "hour": "3"},
                description="Processed and ignored deliveries older than "
                "WEBHOOK_DELIVERY_RETENTION_DAYS are deleted (their effects stay).",
            ),
            beat_schedules.CrontabJob(
                name="pipeline sweep",
                task="triage.tasks.pipeline_sweep",
                cron={"minute": "*/10"},
                description="Issues stored more than 10 minutes ago whose classification or "
                "search vector was lost (a task gone with the broker, a worker or an outage "
                "past its retries) are classified or indexed again.",
            ),
            beat_schedules.CrontabJob(
                name="redeliver failed webhook deliveries",
                task="triage.tasks.redeliver_failed_webhook_deliveries",
                cron={"minute": "*/5"},
                description="Deliveries GitHub recorded as failed and we never stored are "
                "asked for again through GitHub's hook deliveries API (each once).",
            ),
        ]
    )
