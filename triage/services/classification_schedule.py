"""The classify queue's beat entries in django-celery-beat (installed when beat starts; idempotent).

- weekly retraining (Sundays 03:00 UTC); a version that becomes active reclassifies open issues;
- hourly re-prioritization of every open issue: "time without a maintainer response" grows by
  itself, and later stages' parts (the release train) change without the issue changing.

An admin may change or disable either entry; installing again leaves their changes alone.
"""

from __future__ import annotations

from django_celery_beat.models import IntervalSchedule, PeriodicTask

from config.beat_schedules import CrontabJob, crontab_jobs_install

RETRAIN_TASK = "triage.tasks.classify_retrain_models"
RETRAIN_NAME = "retrain classifiers weekly"
REPRIORITIZE_TASK = "triage.tasks.classify_reprioritize_open"
REPRIORITIZE_NAME = "reprioritize open issues hourly"
RETRAINING = CrontabJob(
    RETRAIN_NAME,
    RETRAIN_TASK,
    {"minute": "0", "hour": "3", "day_of_week": "0"},  # Sundays 03:00 UTC
    "classify",
    "Retrain kind, component, severity and the duplicates index from the database (weak labels "
    "and triagers' corrections); a new version becomes active only if it is not worse, and then "
    "the open issues are classified again.",
)


def reprioritization_schedule_install() -> PeriodicTask:
    """Every hour, on the classify queue (one task per chunk of open issues)."""
    hourly, _ = IntervalSchedule.objects.get_or_create(every=1, period=IntervalSchedule.HOURS)
    task, _ = PeriodicTask.objects.get_or_create(
        name=REPRIORITIZE_NAME,
        defaults={
            "task": REPRIORITIZE_TASK,
            "interval": hourly,
            "queue": "classify",
            "description": "Recompute the priority of every open issue (waiting time, release "
            "train and the other parts), in chunks.",
        },
    )
    return task


def schedules_install() -> list[PeriodicTask]:
    return [*crontab_jobs_install([RETRAINING]), reprioritization_schedule_install()]
