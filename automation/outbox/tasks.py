"""The outbox's tasks (named as they were in triage.tasks: queued and scheduled tasks
keep working)."""

from __future__ import annotations

from celery import shared_task

from automation.outbox import services as outbox
from triage.sources.github import sync
from triage.sources.github.client import RateLimited, TransientGitHubError


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=None,
    name="triage.tasks.deliver_github_write",
)
def deliver_github_write(self, write_id: int) -> str:
    """Perform one write of the outbox through PyGithub (queue `ingest`): a rate limit waits for
    its reset, a 5xx is tried again (outbox.MAX_ATTEMPTS), a 4xx fails the row for good."""
    try:
        row = outbox.write_deliver(write_id=write_id)
    except (RateLimited, TransientGitHubError) as exc:
        if self.request.is_eager:
            return f"write {write_id} waits: {exc}"
        attempts = self.request.retries + 1
        countdown = sync.retry_countdown(outbox.retry_countdown(exc, attempts))
        raise self.retry(exc=exc, countdown=countdown) from exc
    return f"write {write_id}: {row.status if row else 'already handled'}"


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    name="triage.tasks.resend_pending_github_writes",
)
def resend_pending_github_writes() -> int:
    """Every 5 minutes from beat: writes left pending (their task lost with the broker, or a
    rate limit's wait over in-process) are queued again, once each (writes_pending_resend)."""
    return outbox.writes_pending_resend()
