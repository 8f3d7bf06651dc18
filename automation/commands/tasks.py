"""Comment commands' task (named as it was in triage.tasks: queued tasks keep working)."""

from __future__ import annotations

from celery import shared_task

from automation.commands import services as commands
from config.task_retries import PIPELINE_STEP


@shared_task(**PIPELINE_STEP, name="triage.tasks.run_comment_commands")
def run_comment_commands(ids: list[int]) -> str:
    """`/kind bug`, `/assign @a` ... in the comments of these issues, each acted on once."""
    return commands.comments_commands_run(issue_ids=ids).summary()
