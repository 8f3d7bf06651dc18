"""The weekly retraining entry in django-celery-beat (installed when beat starts; idempotent)."""

from __future__ import annotations

from django_celery_beat.models import CrontabSchedule, PeriodicTask

RETRAIN_TASK = "triage.tasks.classify_retrain_models"
RETRAIN_NAME = "retrain classifiers weekly"


def retraining_schedule_install() -> PeriodicTask:
    """Sundays 03:00 UTC, on the classify queue; an admin may change or disable it."""
    weekly, _ = CrontabSchedule.objects.get_or_create(
        minute="0", hour="3", day_of_week="0", day_of_month="*", month_of_year="*", timezone="UTC"
    )
    task, _ = PeriodicTask.objects.get_or_create(
        name=RETRAIN_NAME,
        defaults={
            "task": RETRAIN_TASK,
            "crontab": weekly,
            "queue": "classify",
            "description": "Retrain kind, component, severity and the duplicates index from the "
            "database (weak labels and triagers' corrections); a new version becomes active "
            "only if it is not worse.",
        },
    )
    return task
