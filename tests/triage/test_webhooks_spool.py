"""The webhook spool: a delivery the database cannot take is kept on disk, answered 202, and
stored exactly once by the drain (triage/services/webhook_spool.py).

"The database is down" is emulated at the database driver's boundary: Django's
`execute_wrapper` refuses every statement with the OperationalError a stopped Postgres gives,
while the request goes through the whole middleware stack, the view and the services. The real
stopped Postgres, gunicorn and worker: tests/reliability/test_database_stopped.py.
"""

from __future__ import annotations

import contextlib
import json
import logging

import pytest
from django.core.management import call_command
from django.db import OperationalError, connection

from tests.fakes.github_api import github_for_settings
from tests.fakes.github_webhooks import delivery_headers, fixture_body, fixture_payload
from triage.models import Issue, WebhookDelivery
from triage.services import webhook_spool

SECRET = "spool-test-secret"
URL = "/webhooks/github/"

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def spool(settings, tmp_path):
    settings.GITHUB_WEBHOOK_SECRET = SECRET
    settings.WEBHOOK_SPOOL_DIR = tmp_path / "spool"
    settings.WEBHOOK_SPOOL_DRAIN_INTERVAL_S = 0  # no drain thread: the tests drain themselves
    with github_for_settings(settings, token="spool-token"):
        yield tmp_path / "spool"


@contextlib.contextmanager
def database_down():
    """Every statement fails as on a stopped Postgres."""

    def refuse(execute, sql, params, many, context):
        raise OperationalError(
            'connection to server at "127.0.0.1", port 5432 failed: Connection refused'
        )

    with connection.execute_wrapper(refuse):
        yield


def issue_delivery(number: int) -> bytes:
    payload = fixture_payload("issues__opened")
    payload["issue"].update(number=number, id=9_000_000 + number, title=f"Spooled {number}")
    return json.dumps(payload).encode()


def post(client, body: bytes, delivery_id: str, event: str = "issues", **extra):
    headers = delivery_headers(event, body, SECRET, delivery_id)
    headers.pop("Content-Type")
    return client.post(URL, data=body, content_type="application/json", headers=headers, **extra)


def spooled_files(spool) -> list:
    return sorted((spool / "ready").glob("*.delivery"))


def drain() -> webhook_spool.DrainReport:
    return webhook_spool.spool_drain()


def test_it_spools_a_delivery_the_database_cannot_take_and_answers_202(client, spool):
    body = issue_delivery(1)
    with database_down():
        response = post(client, body, "spool-1")

    assert response.status_code == 202
    assert response.json() == {"delivery": "spool-1", "status": "spooled"}
    assert WebhookDelivery.objects.count() == 0
    (path,) = spooled_files(spool)
    assert path.name.startswith("spool-1.")
    kept = next(webhook_spool.spool_claims()).delivery
    assert (kept.delivery_id, kept.event, kept.body) == ("spool-1", "issues", body)
    assert (kept.hook_id, kept.hook_target_type, kept.hook_target_id) == (
        "498116293",
        "repository",
        "1000000",
    )
    assert list((spool / "tmp").iterdir()) == []  # written, synced and renamed into place


def test_the_drain_stores_each_spooled_delivery_exactly_once(client, spool):
    with database_down():
        statuses = [post(client, issue_delivery(n), f"spool-{n}").status_code for n in (1, 2, 3)]
        statuses.append(post(client, issue_delivery(2), "spool-2").status_code)  # GitHub again
    assert statuses == [202, 202, 202, 202]
    assert len(spooled_files(spool)) == 3
    spooled_at = webhook_spool.spool_claims()
    first_received = next(spooled_at).delivery.received_at
    spooled_at.close()

    call_command("webhook_spool_drain")  # the operators' command; the web process does the same

    rows = WebhookDelivery.objects.order_by("delivery_id")
    assert [(d.delivery_id, d.status, d.attempts) for d in rows] == [
        ("spool-1", "processed", 1),
        ("spool-2", "processed", 1),
        ("spool-3", "processed", 1),
    ]
    assert rows[0].received_at == first_received  # when GitHub sent it, not when drained
    assert (rows[0].hook_id, rows[0].hook_target_type, rows[0].hook_target_id) == (
        "498116293",
        "repository",
        "1000000",
    )
    assert Issue.objects.filter(title__startswith="Spooled").count() == 3
    assert spooled_files(spool) == []
    assert drain().summary() == "stored 0, duplicates 0, quarantined 0, left 0"
    assert WebhookDelivery.objects.count() == 3


def test_a_redelivery_of_a_spooled_id_is_stored_and_processed_once(client, spool):
    body = issue_delivery(7)
    with database_down():
        assert post(client, body, "spool-7").json()["status"] == "spooled"
    # the database is back and GitHub redelivers it before this host drained its spool
    assert post(client, body, "spool-7").json()["status"] == "accepted"
    assert post(client, body, "spool-7").json()["status"] == "duplicate"

    report = drain()

    assert (report.stored, report.duplicates, report.remaining) == (0, 1, 0)
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts) == ("processed", 1)
    assert Issue.objects.filter(number=7).count() == 1
    assert spooled_files(spool) == []


def test_a_corrupt_or_truncated_spool_file_is_quarantined_and_the_drain_goes_on(
    client, spool, caplog
):
    with database_down():
        for n in (1, 2, 3, 4):
            assert post(client, issue_delivery(n), f"spool-{n}").status_code == 202
    by_id = {path.name.split(".")[0]: path for path in spooled_files(spool)}
    truncated = by_id["spool-1"]
    truncated.write_bytes(truncated.read_bytes()[:-40])  # the end of the body never written
    flipped = by_id["spool-2"]
    data = bytearray(flipped.read_bytes())
    data[-10] ^= 0x01  # one bit of the body changed on disk
    flipped.write_bytes(bytes(data))
    by_id["spool-3"].write_bytes(b"\x00" * 512)  # not a spooled delivery at all

    with caplog.at_level(logging.ERROR, logger="triage.services.webhook_spool"):
        report = drain()

    assert (report.stored, report.remaining) == (1, 0)
    assert WebhookDelivery.objects.get().delivery_id == "spool-4"
    quarantined = sorted(path.name.split(".")[0] for path in (spool / "quarantine").iterdir())
    assert quarantined == ["spool-1", "spool-2", "spool-3"]
    reasons = "\n".join(r.getMessage() for r in caplog.records)
    assert "truncated: body of" in reasons
    assert "does not match its checksum" in reasons
    assert "no spool header" in reasons
    assert reasons.count("moved to") == 3 and "redeliver it" in reasons
    assert client.get("/healthz").json()["webhook_spool"] == {
        "deliveries": 0,
        "bytes": 0,
        "quarantined": 3,
    }


def test_past_its_bound_the_spool_answers_503_and_keeps_what_it_holds(client, spool, settings):
    settings.WEBHOOK_SPOOL_MAX_BYTES = len(issue_delivery(1)) + 1024  # room for one
    with database_down():
        first = post(client, issue_delivery(1), "spool-1")
        second = post(client, issue_delivery(2), "spool-2")
        again = post(client, issue_delivery(1), "spool-1")  # spooled already: still taken

    assert (first.status_code, second.status_code, again.status_code) == (202, 503, 202)
    assert "could not be spooled" in second.json()["error"]
    assert [p.name.split(".")[0] for p in spooled_files(spool)] == ["spool-1"]
    assert client.get("/healthz").json()["webhook_spool"]["deliveries"] == 1
    drain()
    assert list(WebhookDelivery.objects.values_list("delivery_id", flat=True)) == ["spool-1"]


def test_a_drain_leaves_a_file_that_another_drain_holds(client, spool):
    with database_down():
        for n in (1, 2):
            post(client, issue_delivery(n), f"spool-{n}")
    other = webhook_spool.spool_claims()  # another process's drain, holding its first file
    held = next(other).delivery.delivery_id

    report = drain()

    assert (report.stored, report.remaining) == (1, 1)
    assert not WebhookDelivery.objects.filter(delivery_id=held).exists()
    other.close()  # that drain ended without storing it (its process died, say)
    assert drain().stored == 1
    assert WebhookDelivery.objects.count() == 2 and spooled_files(spool) == []


def test_no_middleware_reads_the_database_before_the_webhook_even_with_a_session_cookie(
    client, django_user_model, spool
):
    member = django_user_model.objects.create_user(username="cookie", password="pw-cookie-1")
    client.force_login(member)  # a session cookie on the request: its row is in the database
    with database_down():
        response = post(client, fixture_body("issues__opened"), "spool-cookie")

    assert response.status_code == 202
    assert response.json()["status"] == "spooled"
    assert len(spooled_files(spool)) == 1


def test_the_drain_command_fails_while_the_database_is_unavailable(client, spool):
    with database_down():
        post(client, issue_delivery(1), "spool-1")
        with pytest.raises(Exception, match="the database is unavailable"):
            call_command("webhook_spool_drain")
    assert len(spooled_files(spool)) == 1


def test_a_spool_it_cannot_write_answers_503_not_500(client, settings, tmp_path):
    (tmp_path / "a-file").write_text("not a directory")
    settings.WEBHOOK_SPOOL_DIR = tmp_path / "a-file" / "spool"
    with database_down():
        response = post(client, issue_delivery(1), "spool-1")
    assert response.status_code == 503
    assert client.get("/healthz").json()["webhook_spool"] == {"error": "NotADirectoryError"}
