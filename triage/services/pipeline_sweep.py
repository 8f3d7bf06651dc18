"""The pipeline's sweep: what a stored issue should have caused and did not, done again.

Every issue stored is classified (which writes its `environment` prediction and its priority) and,
on Postgres, indexed for full-text search. Those tasks retry through outages
(config/task_retries.py), but a task can still be lost: its message gone with a broker that
restarted empty, a worker killed with it, its retries spent in an outage longer than an hour.
Every SWEEP_MINUTES beat runs this sweep: the issues first seen more than SWEEP_AGE ago that have
no environment prediction are classified again, and those that have no search vector are
indexed, at most SWEEP_MAX a run, in chunks on the classify queue. Classifying and indexing take
ids and recompute, so an issue the pipeline was about to reach is only done twice, never wrong.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import connection
from django.utils import timezone

from triage.models import Issue
from triage.services import priority

SWEEP_MINUTES = 10
SWEEP_AGE = timedelta(minutes=10)  # younger issues may still be on their way through
SWEEP_MAX = 5000
CHUNK = 500
CLASSIFY_TASK = "triage.tasks.classify_issues"
INDEX_TASK = "triage.tasks.index_issues"


def pipeline_sweep(*, now=None) -> dict[str, int]:
    """Enqueue what was lost; returns {what: issues found}."""
    now = now or timezone.now()
    stored = Issue.objects.filter(deleted_at__isnull=True, first_seen_at__lt=now - SWEEP_AGE)
    unclassified = list(
        stored.filter(is_pull_request=False)
        .exclude(predictions__model_name="environment")
        .order_by("pk")
        .values_list("pk", flat=True)[:SWEEP_MAX]
    )
    priority.chunks_enqueue(
        task_name=CLASSIFY_TASK, chunks=priority.id_chunks(unclassified, size=CHUNK)
    )
    found = {"unclassified": len(unclassified)}
    if connection.vendor == "postgresql":
        unindexed = list(
            stored.filter(search__isnull=True)
            .order_by("pk")
            .values_list("pk", flat=True)[:SWEEP_MAX]
        )
        priority.chunks_enqueue(
            task_name=INDEX_TASK, chunks=priority.id_chunks(unindexed, size=CHUNK)
        )
        found["unindexed"] = len(unindexed)
    return found
