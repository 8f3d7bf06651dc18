"""Asking kernels_ci to re-verify fixed issues: when a fix is linked (sync, webhook, by hand)
and when a train's release candidate is tagged. Enqueued on commit, so a worker never sees a
link that the transaction rolled back."""

from __future__ import annotations

import logging

from django.db import transaction

from kernels_ci.tasks import verification_request

logger = logging.getLogger(__name__)


def verification_enqueue(*, issue_ids, reason: str) -> list[int]:
    """Queue kernels_ci.tasks.verification_request(issue_id, reason) for each of these issues
    once the transaction commits; returns the ids (sorted, without duplicates)."""
    ids = sorted({int(i) for i in issue_ids})
    if not ids:
        return ids
    logger.info("verification of %d issue(s) requested: %s", len(ids), reason)
    for issue_id in ids:
        transaction.on_commit(
            lambda issue_id=issue_id: verification_request.apply_async(
                kwargs={"issue_id": issue_id, "reason": reason[:200]}
            )
        )
    return ids
