"""Which repositories the service tracks, and their sync schedules in django-celery-beat."""

from __future__ import annotations

import json

from django.conf import settings
from django.db import transaction
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from config import beat_schedules
from triage.models import Repository
from triage.services.ingest import repository_get_or_create

SYNC_TASK = "triage.tasks.sync_repository"


def _task_name(repository: Repository) -> str:
    return f"sync GitHub {repository.full_name}"


def repository_schedule_sync(*, repository: Repository, every_minutes: int | None = None) -> None:
    """Create or refresh the beat entry that syncs this repository (disabled when untracked)."""
    minutes = every_minutes or settings.GITHUB_SYNC_INTERVAL_MINUTES
    interval, _ = IntervalSchedule.objects.get_or_create(
        every=minutes, period=IntervalSchedule.MINUTES
    )
    PeriodicTask.objects.update_or_create(
        name=_task_name(repository),
        defaults={
            "task": SYNC_TASK,
            "interval": interval,
            "kwargs": json.dumps({"repository_id": repository.pk}),
            "queue": "ingest",
            "enabled": repository.tracked,
            "description": "Incremental GitHub sync (issues, pull requests, comments).",
        },
    )


@transaction.atomic
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
                name="redeliver failed webhook deliveries",
                task="triage.tasks.redeliver_failed_webhook_deliveries",
                cron={"minute": "*/5"},
                description="Deliveries GitHub recorded as failed and we never stored are "
                "asked for again through GitHub's hook deliveries API (each once).",
            ),
        ]
    )
