"""Postgres connections dropped (pg_terminate_backend) while a burst of webhook deliveries arrives
at gunicorn and the worker processes them.

The contract with GitHub: a 2xx answer means the delivery is stored (committed) and will be
processed exactly once; any other answer (a 5xx, a reset connection) means "not taken", and the
sender redelivers it with the same X-GitHub-Delivery id (GitHub's "Redeliver", or its API for
failed deliveries). A redelivery of a stored delivery is answered 2xx and never processed twice.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from django.db import connection, connections

from tests.fakes.github_webhooks import numbered_issue_delivery
from tests.processes import wait_for
from tests.reliability.conftest import WEBHOOK_SECRET, record
from triage.models import Issue, WebhookDelivery

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

REPO = "ROCm/ROCm"  # the fixture's repository; the first delivery starts tracking it


def delivery(number: int) -> tuple[bytes, dict]:
    """An `issues` opened delivery of its own issue (number, id, title)."""
    return numbered_issue_delivery(
        number,
        secret=WEBHOOK_SECRET,
        delivery_id=f"rel-db-drop-{number}",
        title=f"Kernel launch fails with hipErrorLaunchFailure ({number})",
    )


def post(url: str, number: int) -> int:
    body, headers = delivery(number)
    try:
        return requests.post(url, data=body, headers=headers, timeout=30).status_code
    except requests.RequestException:
        return 0  # no answer: not taken, as for a 5xx


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def terminate_backends(*, sparing: int) -> int:
    """Drop every connection to the test database (gunicorn's and the worker's) but the test's
    own two (this thread's and the `sparing` one)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid NOT IN (pg_backend_pid(), %s)",
            [sparing],
        )
        return cursor.fetchone()[0]


def test_webhook_deliveries_during_dropped_database_connections_are_stored_and_processed_once(
    cluster,
):
    web = cluster.gunicorn(workers=2)
    worker = cluster.worker("ingest", concurrency=2)
    cluster.start(web, worker)
    url = f"{web.url}/webhooks/github/"
    numbers = list(range(1, 201))

    dropped, stop, test_connection = [], threading.Event(), backend_pid()

    def dropper():
        try:
            while not stop.is_set():
                dropped.append(terminate_backends(sparing=test_connection))
                time.sleep(0.05)
        finally:
            connections.close_all()

    started = time.monotonic()
    thread = threading.Thread(target=dropper)
    thread.start()
    try:
        with ThreadPoolExecutor(max_workers=4) as pool:
            first = dict(zip(numbers, pool.map(lambda n: post(url, n), numbers), strict=True))
    finally:
        stop.set()
        thread.join()
    burst_s = time.monotonic() - started

    answered_2xx = [n for n, status in first.items() if 200 <= status < 300]

    # every 2xx was committed before it was answered, or spooled (the store failed on every
    # try) and is in the database once gunicorn drained its spool (test_database_stopped.py)
    def stored() -> set[str]:
        rows = WebhookDelivery.objects.filter(delivery_id__startswith="rel-db-drop-")
        return set(rows.values_list("delivery_id", flat=True))

    wait_for(lambda: {f"rel-db-drop-{n}" for n in answered_2xx} <= stored(), timeout=30)
    # the sender redelivers what was not answered 2xx, until it is
    redeliveries = 0
    pending = [n for n in numbers if n not in answered_2xx]
    while pending:
        redeliveries += len(pending)
        pending = [n for n in pending if not 200 <= post(url, n) < 300]
    # after the drops the service answers at once again (CONN_HEALTH_CHECKS reconnects)
    after = [post(url, n) for n in range(201, 221)]
    assert all(status == 202 for status in after)

    deliveries = WebhookDelivery.objects.filter(delivery_id__startswith="rel-db-drop-")
    unprocessed = deliveries.exclude(status=WebhookDelivery.Status.PROCESSED)
    try:
        wait_for(lambda: not unprocessed.exists(), timeout=90)
    except pytest.fail.Exception:
        fields = ("delivery_id", "status", "attempts", "processing_started_at", "error")
        pytest.fail(f"never processed: {list(unprocessed.values_list(*fields))[:20]}")
    assert deliveries.count() == 220
    issues = Issue.objects.filter(repository__full_name=REPO, number__in=range(1, 221))
    assert issues.count() == 220
    assert not deliveries.filter(status=WebhookDelivery.Status.FAILED).exists()
    record(
        "database connections dropped during a webhook burst",
        deliveries=len(numbers),
        burst_s=round(burst_s, 1),
        connections_terminated=sum(dropped),
        answers_first_try=dict(Counter(first.values())),
        redeliveries=redeliveries,
        stored=deliveries.count(),
        processed=deliveries.filter(status=WebhookDelivery.Status.PROCESSED).count(),
        issues=issues.count(),
        attempts=dict(Counter(deliveries.values_list("attempts", flat=True))),
        duplicates=0,
    )
