"""What a pipeline task does when the database or the broker is away: it retries, with backoff.

A task of the pipeline (classification, search indexing, priority, the steps after them) takes
ids and recomputes from the rows: running it again is harmless, so on an OperationalError or an
InterfaceError of the database (Postgres stopped, a connection cut) or of the broker (a follow-up
it enqueues), Celery retries it after 2, 4, 8 ... seconds (jittered, at most
TASK_RETRY_BACKOFF_MAX_S apart: 5 minutes by default), up to OUTAGE_RETRIES times: about an hour
of outage at the default. What still gets lost (a worker killed with the
message) is found by the pipeline's sweep (triage.services.pipeline_sweep). Use as
`@shared_task(**RETRY_ON_OUTAGE, ...)`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import InterfaceError, OperationalError
from kombu.exceptions import OperationalError as BrokerError

OUTAGE_RETRIES = 16

RETRY_ON_OUTAGE = {
    "autoretry_for": (OperationalError, InterfaceError, BrokerError),
    "retry_backoff": 2,
    "retry_backoff_max": settings.TASK_RETRY_BACKOFF_MAX_S,
    "retry_jitter": True,
    "max_retries": OUTAGE_RETRIES,
}

# a step of the pipeline: retried through outages, acknowledged once done, bounded in time
PIPELINE_STEP = {
    **RETRY_ON_OUTAGE,
    "acks_late": True,
    "reject_on_worker_lost": True,
    "soft_time_limit": 300,
    "time_limit": 360,
}
