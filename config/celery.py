"""The Celery app. Queues are named by purpose; tasks are routed to them here."""

import os

from celery import Celery
from celery.signals import after_setup_logger, after_setup_task_logger, beat_init

from config import wiring

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("rocm_triage")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@beat_init.connect
def beat_jobs_install(**kwargs) -> None:
    """Every app's beat jobs (wiring.BEAT_START), each time beat starts (beat_schedules.py)."""
    for dotted in wiring.BEAT_START:
        wiring.load(dotted)()


@after_setup_logger.connect
@after_setup_task_logger.connect
def redact_secrets_in_worker_logs(logger, **kwargs):
    """A worker logs through handlers of its own, not Django's console handler: redact there."""
    from config.log_filters import RedactSecrets  # Django's settings: loaded after this app

    for handler in logger.handlers:
        handler.addFilter(RedactSecrets())
