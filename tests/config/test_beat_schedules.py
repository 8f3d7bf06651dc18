"""Beat installs every app's jobs when it starts, and leaves an admin's changes alone."""

from __future__ import annotations

import pytest
from celery.signals import beat_init
from django_celery_beat.models import PeriodicTask

from config.celery import app
from kernels_ci import schedules as kernels_ci_schedules
from releases import schedules as releases_schedules

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def task_modules_imported():
    app.loader.import_default_modules()  # as `celery beat` does before it sends beat_init


def test_beat_start_installs_the_jobs_of_every_app_on_a_database_without_them():
    PeriodicTask.objects.all().delete()
    beat_init.send(sender=None)
    tasks = set(PeriodicTask.objects.values_list("task", flat=True))
    expected = {job.task for job in kernels_ci_schedules.JOBS + releases_schedules.JOBS}
    assert expected <= tasks
    assert {
        "triage.tasks.classify_retrain_models",
        "triage.tasks.process_pending_webhook_deliveries",
        "triage.tasks.prune_webhook_deliveries",
        "triage.tasks.redeliver_failed_webhook_deliveries",
        "triage.tasks.resend_pending_github_writes",
    } <= tasks
    nightly = PeriodicTask.objects.get(task="kernels_ci.tasks.verification_nightly")
    assert (nightly.crontab.hour, nightly.crontab.minute, nightly.queue) == ("2", "30", "ingest")


def test_installing_again_keeps_a_disabled_or_rescheduled_job_as_the_admin_left_it():
    PeriodicTask.objects.all().delete()
    releases_schedules.schedules_install()
    job = PeriodicTask.objects.get(task="releases.tasks.retrain_forecast")
    job.enabled, job.queue = False, "slow"
    job.save()
    beat_init.send(sender=None)
    again = PeriodicTask.objects.filter(task="releases.tasks.retrain_forecast")
    assert again.count() == 1
    assert (again.get().enabled, again.get().queue) == (False, "slow")
