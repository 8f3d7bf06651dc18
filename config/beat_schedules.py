"""The crontab jobs an app schedules in django-celery-beat, installed when beat starts.

Each app lists its jobs (kernels_ci/schedules.py, releases/schedules.py) and a function that
installs them; config/wiring.py's BEAT_START names those functions, and beat runs them all when it
starts (config/celery.py): a database flushed or restored without them (a test database, a
restore of the data tables only) gets them back the next time beat starts. Installing
is idempotent and leaves an existing entry alone, so an admin's change to a schedule, or a job
disabled in the admin, stays as it is (disable a job rather than delete it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django_celery_beat.models import CrontabSchedule, PeriodicTask


@dataclass(frozen=True)
class CrontabJob:
    name: str
    task: str
    cron: dict = field(default_factory=dict)  # minute, hour, ...; "*" where left out
    queue: str = "ingest"
    description: str = ""


def crontab_jobs_install(jobs: list[CrontabJob]) -> list[PeriodicTask]:
    installed = []
    for job in jobs:
        fields = {
            "minute": "*",
            "hour": "*",
            "day_of_week": "*",
            "day_of_month": "*",
            "month_of_year": "*",
            "timezone": "UTC",
            **job.cron,
        }
        schedule, _ = CrontabSchedule.objects.get_or_create(**fields)
        task, _ = PeriodicTask.objects.get_or_create(
            name=job.name,
            defaults={
                "task": job.task,
                "crontab": schedule,
                "queue": job.queue,
                "description": job.description,
            },
        )
        installed.append(task)
    return installed
