"""Celery tasks of releases (queue `releases`): thin, they take ids and call one service."""

from __future__ import annotations

from celery import shared_task

from releases.services.fixes import fix_links_sync_ids
from releases.services.punting import trains_punt_due


@shared_task(acks_late=True, reject_on_worker_lost=True)
def link_fixes(ids: list[int]) -> str:
    return fix_links_sync_ids(ids=list(ids)).summary()


@shared_task(acks_late=True, reject_on_worker_lost=True)
def punt_due_trains() -> str:
    return "; ".join(result.summary() for result in trains_punt_due()) or "no train at branch cut"
