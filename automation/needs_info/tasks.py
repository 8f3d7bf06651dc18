"""Needs-info's tasks (named as they were in triage.tasks: queued and scheduled tasks
keep working)."""

from __future__ import annotations

from celery import shared_task

from automation.needs_info import services as needs_info
from config.task_retries import PIPELINE_STEP


@shared_task(**PIPELINE_STEP, name="triage.tasks.needs_info_refresh")
def needs_info_refresh(ids: list[int]) -> str:
    """After classification: new bugs of opted-in repositories lacking facts are asked."""
    return needs_info.needs_info_refresh(ids=ids).summary()


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=600,
    time_limit=720,
    name="triage.tasks.needs_info_sweep",
)
def needs_info_sweep() -> str:
    """Daily from beat: one reminder, then closing, for reporters who stayed silent."""
    return needs_info.needs_info_sweep().summary()
