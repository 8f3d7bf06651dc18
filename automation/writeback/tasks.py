"""Label write-back's task (named as it was in triage.tasks: queued tasks keep working)."""

from __future__ import annotations

from celery import shared_task

from automation.writeback import services as writeback
from config.task_retries import RETRY_ON_OUTAGE
from triage.sources.github import sync


@shared_task(
    bind=True,
    **{**RETRY_ON_OUTAGE, "max_retries": None},  # and a rate limit's wait, however often
    acks_late=True,
    reject_on_worker_lost=True,
    name="triage.tasks.writeback_labels",
)
def writeback_labels(self, ids: list[int]) -> str:
    """The automatic label write-back after classification (opted-in repositories only)."""
    try:
        report = writeback.labels_writeback(issue_ids=list(ids), origin="automatic")
    except writeback.WritebackDisabled as exc:  # every write to GitHub is stopped
        return str(exc)
    if report.rate_limited is not None and not self.request.is_eager:
        countdown = sync.retry_countdown(report.rate_limited.seconds_to_wait())
        raise self.retry(exc=report.rate_limited, countdown=countdown)
    return report.summary()
