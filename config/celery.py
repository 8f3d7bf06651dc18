"""The Celery app. Queues are named by purpose; tasks are routed to them here."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("rocm_triage")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
