"""Ownership's tasks (named as they were in triage.tasks: queued and scheduled tasks
keep working)."""

from __future__ import annotations

from celery import shared_task

from automation.ownership import services as ownership
from config.task_retries import PIPELINE_STEP


@shared_task(**PIPELINE_STEP, name="triage.tasks.route_to_owners")
def route_to_owners(ids: list[int]) -> str:
    """After classification: issues whose component is sure go to their owners, once."""
    return ownership.ownership_route(ids=ids).summary()


@shared_task(**PIPELINE_STEP, name="triage.tasks.request_owner_reviews")
def request_owner_reviews(ids: list[int]) -> str:
    """After a PR's changed files were read: their owners by path rules are asked to review."""
    return ownership.pull_requests_review_request(ids=ids).summary()


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=600,
    time_limit=720,
    name="triage.tasks.escalate_overdue_issues",
)
def escalate_overdue_issues() -> str:
    """Hourly from beat: issues past their response deadline escalate to their owners, once."""
    return ownership.ownership_overdue_sweep().summary()
