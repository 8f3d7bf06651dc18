"""Webhook deliveries that arrive while no worker runs: gunicorn answers each 2xx once it is
stored, and once workers start every one is processed exactly once, from the queue where its
task waited or, where that enqueue was lost (the broker was down too), by the sweep that beat
runs every minute (`process pending webhook deliveries`, installed when beat starts)."""

from __future__ import annotations

import json
import re
import time
from datetime import timedelta

import pytest
import requests
from django.utils import timezone
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from tests.fakes.github_webhooks import delivery_headers, fixture_payload
from tests.processes import wait_for
from tests.reliability.conftest import WEBHOOK_SECRET, record
from triage.models import Issue, WebhookDelivery
from triage.services import tracking

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

REPO = "ROCm/ROCm"
SWEEP = "process pending webhook deliveries"


def deliver(url: str, prefix: str, number: int) -> int:
    payload = fixture_payload("issue_comment__created")
    payload["issue"].update(
        number=number,
        id=8_000_000 + number,
        title=f"rccl all_reduce hangs with 8 GPUs ({number})",
        html_url=f"https://github.com/{REPO}/issues/{number}",
        url=f"https://api.github.com/repos/{REPO}/issues/{number}",
    )
    payload["comment"].update(id=9_000_000 + number, body=f"Also on MI300X ({number})")
    body = json.dumps(payload).encode()
    headers = delivery_headers("issue_comment", body, WEBHOOK_SECRET, f"{prefix}-{number}")
    return requests.post(url, data=body, headers=headers, timeout=30).status_code


def queued_deliveries(cluster) -> list[int]:
    ids = []
    for task, args, _, _ in cluster.queued("ingest"):
        assert task == "triage.tasks.process_webhook_deliveries"
        ids += args[0]
    return ids


def test_deliveries_received_while_no_worker_runs_are_processed_once_when_workers_start(cluster):
    web = cluster.gunicorn()
    cluster.start(web)
    numbers = range(1, 81)
    statuses = [deliver(f"{web.url}/webhooks/github/", "rel-no-worker", n) for n in numbers]
    assert statuses == [202] * len(numbers)
    deliveries = WebhookDelivery.objects.filter(delivery_id__startswith="rel-no-worker-")
    assert deliveries.filter(status=WebhookDelivery.Status.PENDING).count() == len(numbers)
    # their tasks wait in the queue, a batch per message (one per enqueue window and process)
    wait_for(
        lambda: len(queued_deliveries(cluster)) == len(numbers),
        timeout=10,
        message="the deliveries were not all enqueued",
    )
    assert sorted(queued_deliveries(cluster)) == sorted(deliveries.values_list("pk", flat=True))

    started = time.monotonic()
    cluster.start(cluster.worker("ingest"), cluster.worker("ingest"))
    wait_for(
        lambda: deliveries.filter(status=WebhookDelivery.Status.PROCESSED).count() == len(numbers),
        timeout=90,
        message="the deliveries were not all processed",
    )
    drained = time.monotonic() - started

    assert set(deliveries.values_list("attempts", flat=True)) == {1}
    issues = Issue.objects.filter(repository__full_name=REPO, number__in=numbers)
    assert issues.count() == len(numbers)
    assert all(issue.comments.count() == 1 for issue in issues)
    record(
        "webhooks while every worker is stopped",
        deliveries=len(numbers),
        answered_2xx=statuses.count(202),
        processed=len(numbers),
        attempts_per_delivery=1,
        workers_start_to_all_processed_s=round(drained, 1),
    )


def test_deliveries_whose_enqueue_was_lost_are_processed_once_by_the_beat_sweep(cluster):
    web = cluster.gunicorn()
    cluster.start(web)
    cluster.broker.kill()  # no broker either: the view stores, answers, and cannot enqueue
    numbers = range(101, 131)
    statuses = [deliver(f"{web.url}/webhooks/github/", "rel-lost-enqueue", n) for n in numbers]
    assert statuses == [202] * len(numbers)
    deliveries = WebhookDelivery.objects.filter(delivery_id__startswith="rel-lost-enqueue-")
    assert deliveries.filter(status=WebhookDelivery.Status.PENDING).count() == len(numbers)

    def given_up() -> bool:  # each web process retries a batch briefly, then leaves it
        said = re.findall(r"webhook-enqueue: could not send a batch of (\d+)", web.log_tail(10**6))
        return sum(map(int, said)) >= len(numbers)

    # else a retry landing on the restarted broker would send them, and no sweep be needed
    wait_for(given_up, timeout=30, message="the web processes still try to enqueue")
    cluster.broker.start()  # back, empty: those enqueues are lost for good

    # As beat installs it at start (the same service), last run a minute ago; the deliveries
    # were received a minute ago too (the sweep leaves the last 30 s to their own enqueue).
    tracking.schedules_install_defaults()
    sweep = PeriodicTask.objects.get(name=SWEEP)
    assert sweep.task == "triage.tasks.process_pending_webhook_deliveries" and sweep.enabled
    assert (sweep.interval.every, sweep.interval.period) == (1, IntervalSchedule.MINUTES)
    minute_ago = timezone.now() - timedelta(minutes=1)
    PeriodicTask.objects.filter(pk=sweep.pk).update(last_run_at=minute_ago)
    deliveries.update(received_at=minute_ago)

    beat = cluster.beat()
    started = time.monotonic()
    cluster.start(beat, cluster.worker("ingest"))
    wait_for(
        lambda: deliveries.filter(status=WebhookDelivery.Status.PROCESSED).count() == len(numbers),
        timeout=90,
        message="the sweep did not process the deliveries",
    )
    swept = time.monotonic() - started

    assert set(deliveries.values_list("attempts", flat=True)) == {1}
    assert f"Sending due task {SWEEP}" in beat.log_tail(100000)
    assert Issue.objects.filter(repository__full_name=REPO, number__in=numbers).count() == 30
    record(
        "webhooks whose enqueue was lost (broker down)",
        deliveries=len(numbers),
        answered_2xx=statuses.count(202),
        processed=len(numbers),
        attempts_per_delivery=1,
        beat_start_to_all_processed_s=round(swept, 1),
    )
