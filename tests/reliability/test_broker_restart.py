"""Redis, the broker, killed and restarted in the middle of a backfill: the sync goes on, the
worker reconnects by itself, and nothing is lost, neither the issues nor the pipeline steps
enqueued for them (before the crash, during the outage and after it). The broker keeps an
append-only file, as a production Redis must (README, "Running it for real")."""

from __future__ import annotations

import time

import pytest
from django.db.models import Count

from tests.processes import wait_for
from tests.reliability.conftest import record
from triage.models import Issue, SyncState
from triage.services import tracking

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

CLASSIFY = "triage.tasks.classify_issues"


def test_a_backfill_goes_on_through_a_broker_restart_and_loses_nothing(persistent_cluster, github):
    cluster = persistent_cluster
    repo = "ROCm/reliability-broker-restart"
    github.add_repo(repo)
    for n in range(1, 401):
        github.add_issue(repo, title=f"rocprof crashes on gfx90a ({n})")
    repository = tracking.repository_track(full_name=repo)
    issues_path = f"/repos/{repo}/issues"
    gate = github.gate(path_contains=issues_path, after_requests=2)  # hold page 3

    worker = cluster.worker("ingest")  # nothing consumes classify: its messages stay queued
    cluster.start(worker)
    cluster.send("triage.tasks.sync_repository", queue="ingest", repository_id=repository.pk)
    gate.wait_reached()
    state = SyncState.objects.filter(repository=repository, resource="issues")
    wait_for(lambda: state.filter(requests_used=2).exists())

    cluster.broker.kill()  # SIGKILL: no shutdown save, only what the append-only file holds
    down = time.monotonic()
    gate.release()
    # page 3 is committed while the broker is down (with page 4 when it came meanwhile: pages
    # that are ready share a transaction): their pipeline steps must wait for it
    wait_for(lambda: state.filter(requests_used__gte=3).exists())
    time.sleep(3)  # a restart of a few seconds (the fault, not a measurement)
    cluster.broker.start()
    outage = time.monotonic() - down
    wait_for(
        lambda: (
            SyncState.objects.filter(repository=repository, backfill_done=True).count()
            == len(SyncState.Resource)
        ),
        timeout=90,
        message="the backfill did not finish after the broker came back",
    )
    recovered = time.monotonic() - down

    issues = Issue.objects.filter(repository=repository)
    assert issues.count() == 400
    assert not issues.values("external_id").annotate(n=Count("id")).filter(n__gt=1).exists()
    # every issue's classification is queued: from before the crash, during and after it
    classify = [
        kwargs["ids"] for task, _, kwargs, _ in cluster.queued("classify") if task == CLASSIFY
    ]
    queued_ids = {issue_id for ids in classify for issue_id in ids}
    assert queued_ids == set(issues.values_list("pk", flat=True))
    assert "Connection to broker lost" in worker.log_tail(200000)
    record(
        "broker restarted mid-backfill",
        issues=issues.count(),
        duplicates=0,
        classify_messages=len(classify),
        issues_with_classification_queued=len(queued_ids),
        broker_down_s=round(outage, 1),
        crash_to_done_s=round(recovered, 1),
    )
