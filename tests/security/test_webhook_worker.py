"""Signed but malformed deliveries through gunicorn to a real Celery worker, on Postgres.

Postgres refuses what SQLite takes (numbers past a column's range, NUL characters, text over a
column's length): each such delivery must end failed with the error in words (or processed, where
the text could be stored cleaned), never left pending to be retried for ever, and the worker must
go on to process the next delivery. tests/security/test_webhook_fuzz.py fuzzes the same on SQLite.
"""

from __future__ import annotations

import copy
import json

import pytest
import requests

from tests.fakes.github_api import GitHubEmulator
from tests.fakes.github_webhooks import delivery_headers, fixture_payload
from tests.processes import CeleryWorker, Gunicorn, wait_for
from tests.security.conftest import WEBHOOK_SECRET, service_env
from triage.models import Issue, WebhookDelivery

pytestmark = pytest.mark.integration


def opened(**issue_fields) -> dict:
    payload = copy.deepcopy(fixture_payload("issues__opened"))
    payload["issue"].update(issue_fields)
    return payload


MALFORMED = {
    "number past the column": opened(number=2**40),
    "negative number": opened(number=-5),
    "id past bigint": opened(id=2**70),
    "NUL in the title": opened(title="crash\x00here", number=9001, id=99_001),
    "lone surrogate in the body": opened(body="\ud800 bad", number=9002, id=99_002),
    "state longer than its column": opened(state="x" * 300, number=9003, id=99_003),
    "number is text": opened(number="twelve"),
    "issue is a list": {**fixture_payload("issues__opened"), "issue": [1, 2]},
    "comment without id": {
        **fixture_payload("issue_comment__created"),
        "comment": {"body": "no id"},
    },
    "label name not text": {**fixture_payload("label__created"), "label": {"name": 7, "id": 1}},
}


@pytest.fixture
def stack(real_services, transactional_db, private_redis, tmp_path):
    with GitHubEmulator(token="worker-token") as github:
        env = service_env(
            private_redis.url,
            GITHUB_API_URL=github.url,
            GITHUB_TOKEN="worker-token",
            GITHUB_RETRY_BACKOFF="0",
        )
        worker = CeleryWorker(tmp_path, env=env, queues="ingest,classify,releases", concurrency=1)
        with Gunicorn(tmp_path, env=env) as web, worker:
            yield web, worker


def deliver(url: str, event: str, payload: dict, delivery_id: str) -> requests.Response:
    body = json.dumps(payload).encode("utf-8", "surrogatepass")
    headers = delivery_headers(event, body, WEBHOOK_SECRET, delivery_id)
    return requests.post(f"{url}/webhooks/github/", data=body, headers=headers, timeout=30)


def test_malformed_signed_deliveries_end_failed_and_the_worker_goes_on(stack):
    web, worker = stack
    ids = {}
    for index, (name, payload) in enumerate(MALFORMED.items()):
        event = {"comment": "issue_comment", "label": "label"}.get(name.split()[0], "issues")
        response = deliver(web.url, event, payload, f"bad-{index}")
        assert response.status_code == 202, (name, response.status_code, response.text)
        ids[f"bad-{index}"] = name

    def all_ended():
        pending = WebhookDelivery.objects.filter(
            delivery_id__in=ids, status=WebhookDelivery.Status.PENDING
        )
        return not pending.exists()

    wait_for(all_ended, timeout=60, message=f"deliveries left pending:\n{worker.log_tail()}")
    outcomes = {
        ids[d.delivery_id]: (d.status, d.error)
        for d in WebhookDelivery.objects.filter(delivery_id__in=ids)
    }
    for name, (status, error) in outcomes.items():
        assert status in ("failed", "processed"), (name, status, error)
        if status == "failed":
            assert error.startswith("could not process this"), (name, error)
    # text Postgres cannot hold is stored cleaned, not refused
    assert outcomes["NUL in the title"][0] == "processed"
    assert Issue.objects.get(number=9001).title == "crashhere"
    assert outcomes["lone surrogate in the body"][0] == "processed"
    assert outcomes["number past the column"][0] == "failed"
    assert "out of range" in outcomes["number past the column"][1]

    # the worker is alive and processes the next good delivery
    assert worker.alive()
    response = deliver(web.url, "issues", fixture_payload("issues__opened"), "good-1")
    assert response.status_code == 202
    wait_for(
        lambda: WebhookDelivery.objects.filter(delivery_id="good-1", status="processed").exists(),
        timeout=60,
        message=worker.log_tail(),
    )
    assert Issue.objects.filter(number=fixture_payload("issues__opened")["issue"]["number"])
