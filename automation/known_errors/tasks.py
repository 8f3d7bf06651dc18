"""Known errors' task (named as it was in triage.tasks: queued tasks keep working)."""

from __future__ import annotations

from celery import shared_task

from automation.known_errors import services as known_errors
from config.task_retries import PIPELINE_STEP


@shared_task(**PIPELINE_STEP, name="triage.tasks.match_known_errors")
def match_known_errors(ids: list[int]) -> str:
    """After classification: propose (or, opted in, answer) the known errors issues show."""
    return known_errors.known_errors_match(ids=ids).summary()
