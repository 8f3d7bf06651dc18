"""Celery tasks of releases (queue `releases`): thin, they take ids and call one service.

Beat schedules (releases/schedules.py, installed when beat starts through config/wiring.py's
BEAT_START; editable in the admin):
punt_due_trains hourly, snapshot_trains hourly, retrain_forecast nightly, announce_released_fixes
daily."""

from __future__ import annotations

from celery import shared_task

from config.task_retries import RETRY_ON_OUTAGE
from releases.services.announce import released_fixes_announce
from releases.services.burndown import trains_snapshot
from releases.services.fixes import fix_links_sync_ids
from releases.services.forecast import forecasts_retrain
from releases.services.punting import trains_punt_due


@shared_task(**RETRY_ON_OUTAGE, acks_late=True, reject_on_worker_lost=True)
def link_fixes(ids: list[int]) -> str:
    return fix_links_sync_ids(ids=list(ids)).summary()


@shared_task(acks_late=True, reject_on_worker_lost=True)
def punt_due_trains() -> str:
    return "; ".join(result.summary() for result in trains_punt_due()) or "no train at branch cut"


@shared_task(acks_late=True, reject_on_worker_lost=True)
def snapshot_trains() -> int:
    return len(trains_snapshot())


@shared_task(acks_late=True, reject_on_worker_lost=True, soft_time_limit=1800, time_limit=2160)
def retrain_forecast() -> str:
    return "; ".join(result.summary() for result in forecasts_retrain()) or "no release series"


@shared_task(acks_late=True, reject_on_worker_lost=True, soft_time_limit=600, time_limit=720)
def announce_released_fixes() -> str:
    """Issues whose fix shipped in a train released lately: told on GitHub, closed (opted in)."""
    return released_fixes_announce().summary()
