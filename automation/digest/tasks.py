"""The weekly digest's task (named as it was in triage.tasks: beat's entry keeps working)."""

from __future__ import annotations

from celery import shared_task

from automation.digest import services as digest
from automation.ownership import services as ownership


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=300,
    time_limit=360,
    name="triage.tasks.response_digest_send",
)
def response_digest_send() -> str:
    """Weekly from beat: each component's response times to its owners."""
    return digest.response_digest_send(recipients_of=ownership.component_owner_emails).summary()
