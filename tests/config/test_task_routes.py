"""The plug points of Celery check themselves: every task has a route to a queue some worker
of docs/DEPLOYMENT.md consumes, every route names a task, and every job beat installs names a
registered task (a misspelled one would otherwise be sent to no task at all)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from celery.signals import beat_init
from django.apps import apps
from django.conf import settings
from django_celery_beat.models import CrontabSchedule, PeriodicTask

from config.celery import app

DEPLOYMENT = Path(settings.BASE_DIR) / "docs" / "DEPLOYMENT.md"
WORKER = re.compile(r"celery -A config worker -Q ([\w.,]+)")


def registered() -> set[str]:
    """The service's tasks, as a worker and beat know them when they start (Celery's own and the
    tests' toys, tests/recipes/, left out)."""
    app.loader.import_default_modules()
    ours = {config.name for config in apps.get_app_configs()}
    return {name for name in app.tasks if name.partition(".")[0] in ours}


def consumed_queues() -> set[str]:
    found = {q for line in WORKER.findall(DEPLOYMENT.read_text()) for q in line.split(",")}
    assert {"ingest", "classify", "releases", "repro.cpu"} <= found  # the doc was read
    return found


def unregistered_jobs() -> list[str]:
    """Beat's jobs whose task no process registers: "name -> task"."""
    names = registered()
    return [f"{job.name} -> {job.task}" for job in PeriodicTask.objects.exclude(task__in=names)]


def test_every_task_is_routed_by_its_name_to_a_queue_a_documented_worker_consumes():
    routes = settings.CELERY_TASK_ROUTES
    queues = consumed_queues()
    unrouted = sorted(registered() - set(routes))
    assert unrouted == []
    assert sorted(name for name, route in routes.items() if route["queue"] not in queues) == []


def test_every_route_names_a_registered_task():
    assert sorted(set(settings.CELERY_TASK_ROUTES) - registered()) == []


@pytest.mark.django_db
def test_every_job_beat_installs_names_a_registered_task_on_a_queue_a_worker_consumes(settings):
    settings.X_BEARER_TOKEN = "token-for-the-test"  # the optional jobs too
    settings.GITHUB_OAUTH_CLIENT_ID, settings.GITHUB_OAUTH_CLIENT_SECRET = "id", "secret"
    settings.GITHUB_TEAM_ROLES = {"ROCm/triage-team": ["triagers"]}
    PeriodicTask.objects.all().delete()
    registered()
    beat_init.send(sender=None)
    jobs = list(PeriodicTask.objects.all())
    assert len(jobs) >= 15
    assert unregistered_jobs() == []
    queues = consumed_queues()
    assert [job.name for job in jobs if job.queue and job.queue not in queues] == []


@pytest.mark.django_db
def test_a_job_naming_a_task_that_does_not_exist_is_found():
    crontab, _ = CrontabSchedule.objects.get_or_create(minute="0", hour="4")
    PeriodicTask.objects.create(
        name="misspelled", task="triage.tasks.needs_info_sweap", crontab=crontab
    )
    assert unregistered_jobs() == ["misspelled -> triage.tasks.needs_info_sweap"]


# Every task name registered before the features that act on GitHub left triage (13fe61c): a
# task queued or scheduled under one of them before an upgrade still runs after it.
NAMES_BEFORE = {
    *(
        f"triage.tasks.{name}"
        for name in [
            "classify_comments",
            "classify_environment",
            "classify_issues",
            "classify_posts",
            "classify_prioritize_issues",
            "classify_reprioritize_open",
            "classify_retrain_models",
            "deliver_github_write",
            "detect_spikes",
            "escalate_overdue_issues",
            "github_roles_refresh",
            "index_issues",
            "match_known_errors",
            "needs_info_refresh",
            "needs_info_sweep",
            "pipeline_sweep",
            "process_pending_webhook_deliveries",
            "process_webhook_deliveries",
            "process_webhook_delivery",
            "prune_webhook_deliveries",
            "read_pull_request_commits",
            "read_pull_request_files",
            "redeliver_failed_webhook_deliveries",
            "request_owner_reviews",
            "resend_pending_github_writes",
            "response_digest_send",
            "route_to_owners",
            "run_comment_commands",
            "sync_repository",
            "sync_saved_search",
            "update_inboxes",
            "writeback_labels",
        ]
    ),
    *(
        f"kernels_ci.tasks.{name}"
        for name in [
            "cases_refresh",
            "run_comment",
            "run_execute",
            "runners_check",
            "verification_nightly",
            "verification_request",
        ]
    ),
    *(
        f"releases.tasks.{name}"
        for name in [
            "announce_released_fixes",
            "link_fixes",
            "punt_due_trains",
            "retrain_forecast",
            "snapshot_trains",
        ]
    ),
}


def test_every_task_name_registered_before_the_move_is_still_registered():
    assert sorted(NAMES_BEFORE - registered()) == []
