"""Deliveries GitHub recorded as failed are asked for again, GitHub's way, once per guid
(triage/services/redelivery.py).

GitHub is the emulator (tests/fakes/github_api.py, github_hooks.py), reached by the real
PyGithub; it delivers over HTTP to this service's webhook on pytest-django's live server, signs
with the hook's secret, records every answer, and sends a redelivery when it is asked for one
(manual mode: when the test calls run_redeliveries, so that nothing writes to the test database
while the service reads it).
"""

from __future__ import annotations

import time

import pytest
from django.core.cache import cache
from django_celery_beat.models import PeriodicTask

from tests.fakes.github_api import github_for_settings
from tests.fakes.github_hooks import app_key_pair
from tests.fakes.github_webhooks import fixture_payload
from triage.models import Issue, Repository, WebhookDelivery, WebhookRedelivery
from triage.services import tracking
from triage.sources.github import redelivery
from triage.tasks import redeliver_failed_webhook_deliveries

SECRET = "redelivery-test-secret"
REPO = "ROCm/ROCm"  # the fixtures' repository
DOWN = "http://localhost:9/webhooks/github/"  # nothing listens there: "failed to connect"

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def github(settings, tmp_path):
    settings.GITHUB_WEBHOOK_SECRET = SECRET
    settings.WEBHOOK_SPOOL_DIR = tmp_path / "spool"
    settings.WEBHOOK_SPOOL_DRAIN_INTERVAL_S = 0
    with github_for_settings(settings, token="redelivery-token") as emulator:
        emulator.manual_redeliveries = True
        emulator.add_repo(REPO)
        yield emulator


@pytest.fixture
def webhook_url(live_server):
    return f"{live_server.url}/webhooks/github/"


def opened(number: int) -> dict:
    payload = fixture_payload("issues__opened")
    payload["issue"].update(number=number, id=8_000_000 + number, title=f"Redelivered {number}")
    return payload


def attempts_asked(github) -> list[str]:
    return [r["path"] for r in github.requests if r["path"].endswith("/attempts")]


def redeliver():
    report = redelivery.failed_deliveries_redeliver()
    return report


def test_deliveries_that_failed_while_the_service_was_down_are_redelivered_once(
    github, webhook_url
):
    Repository.objects.create(full_name=REPO, owner="ROCm", name="ROCm", tracked=True)
    hook = github.add_hook(repo=REPO, url=DOWN, secret=SECRET)
    lost = [github.deliver(hook, "issues", opened(n)) for n in (1, 2)]
    assert {d["status"] for d in lost} == {"failed to connect to host"}
    github.set_hook(hook, url=webhook_url)  # the service is back
    arrived = github.deliver(hook, "issues", opened(3))
    assert arrived["status"] == "OK"

    report = redeliver()
    sent = github.run_redeliveries()

    assert (report.requested, report.refused) == (2, 0)
    assert sorted(d["guid"] for d in sent) == sorted(d["guid"] for d in lost)
    assert {d["status"] for d in sent} == {"OK"}
    stored = WebhookDelivery.objects.order_by("delivery_id")
    assert sorted(stored.values_list("delivery_id", flat=True)) == sorted(
        d["guid"] for d in lost + [arrived]
    )
    assert set(stored.values_list("status", flat=True)) == {"processed"}
    assert Issue.objects.filter(title__startswith="Redelivered").count() == 3
    asked = WebhookRedelivery.objects.order_by("github_delivery_id")
    assert [(r.guid, r.github_delivery_id, r.outcome) for r in asked] == [
        (d["guid"], d["id"], "requested") for d in lost
    ]
    assert asked[0].failure == "failed to connect to host"
    assert (asked[0].hook_target_type, asked[0].hook_target) == ("repository", REPO)

    # the task again (beat's next run, or a retry): nothing is asked twice, and it reads only
    # the deliveries since its last run (the two redeliveries)
    asked_before = len(attempts_asked(github))
    assert "0 redeliveries requested" in redeliver_failed_webhook_deliveries.apply().get()
    assert len(attempts_asked(github)) == asked_before == 2
    assert redeliver().read == 0
    cache.clear()  # the watermarks lost (a Redis restart): all 3 days read again, none asked
    again = redeliver()
    assert (again.read, again.requested) == (5, 0)
    assert len(attempts_asked(github)) == 2


def test_a_guid_whose_redelivery_failed_too_is_never_asked_for_again(github, webhook_url):
    hook = github.add_hook(repo=REPO, url=webhook_url, secret=SECRET)
    github.deliver(hook, "issues", opened(1))
    failed = github.record_delivery(hook, "issues", opened(2), status_code=503)
    github.set_hook(hook, url=DOWN)  # and the service is down again when GitHub redelivers

    assert redeliver().requested == 1
    (again,) = github.run_redeliveries()
    assert (again["guid"], again["status"]) == (failed["guid"], "failed to connect to host")
    for _ in range(2):
        cache.clear()  # its watermark lost too: the failed attempts are read again
        assert redeliver().requested == 0

    assert len(attempts_asked(github)) == 1
    assert WebhookRedelivery.objects.get().outcome == "requested"


def test_only_guids_never_stored_nor_asked_nor_ok_later_nor_too_old_are_asked_for(
    github, webhook_url
):
    hook = github.add_hook(repo=REPO, url=webhook_url, secret=SECRET)
    stored = github.deliver(hook, "issues", opened(1))  # stored: known from its headers now
    # answered 202, but after GitHub's 10 s: GitHub counts it failed, we have it
    github.record_delivery(hook, "issues", opened(1), status_code=0, guid=stored["guid"])
    # failed, and a person redelivered it from GitHub's page since: OK
    failed_then_ok = github.record_delivery(hook, "issues", opened(2), status_code=500)
    github.record_delivery(
        hook, "issues", opened(2), status_code=202, guid=failed_then_ok["guid"], redelivery=True
    )
    four_days = time.time() - 4 * 86400
    github.record_delivery(hook, "issues", opened(3), status_code=503, delivered_at=four_days)
    github.record_delivery(hook, "push", {"ref": "refs/heads/main"}, status_code=503)  # not used
    wanted = github.record_delivery(hook, "issues", opened(4), status_code=503)

    report = redeliver()
    github.run_redeliveries()

    assert report.requested == 1
    assert list(WebhookRedelivery.objects.values_list("guid", flat=True)) == [wanted["guid"]]
    assert attempts_asked(github) == [
        f"/repos/{REPO}/hooks/{hook}/deliveries/{wanted['id']}/attempts"
    ]
    assert WebhookDelivery.objects.filter(delivery_id=wanted["guid"], status="processed").exists()


def test_it_finds_a_failed_delivery_on_a_later_cursor_page(github, webhook_url):
    hook = github.add_hook(repo=REPO, url=webhook_url, secret=SECRET)
    github.deliver(hook, "issues", opened(1))  # names the hook to the service
    wanted = github.record_delivery(hook, "issues", opened(2), status_code=502)
    for n in range(150):  # newer, all OK
        github.record_delivery(hook, "label", {"action": "created"}, status_code=200)

    report = redeliver()

    assert report.requested == 1 and report.read == 152
    pages = [r for r in github.requests if r["path"].endswith(f"/hooks/{hook}/deliveries")]
    assert [("cursor" in r["query"], r["query"].get("per_page")) for r in pages] == [
        (False, "100"),
        (True, "100"),  # the Link header's next page: its cursor, per_page kept
    ]
    assert WebhookRedelivery.objects.get().guid == wanted["guid"]


def test_an_organization_hook_named_by_stored_deliveries_is_redelivered(github, webhook_url):
    hook = github.add_hook(org="ROCm", url=webhook_url, secret=SECRET)
    github.deny_hooks(REPO)  # the token may not list the repository's hooks
    first = github.deliver(hook, "issues", opened(1))
    row = WebhookDelivery.objects.get(delivery_id=first["guid"])
    assert (row.hook_id, row.hook_target_type) == (str(hook), "organization")
    failed = github.record_delivery(hook, "issues", opened(2), status_code=503)

    report = redeliver()
    github.run_redeliveries()

    assert report.requested == 1
    assert attempts_asked(github) == [f"/orgs/ROCm/hooks/{hook}/deliveries/{failed['id']}/attempts"]
    assert WebhookDelivery.objects.filter(delivery_id=failed["guid"]).count() == 1


def test_a_hook_of_another_service_is_left_alone(github, webhook_url):
    Repository.objects.create(full_name=REPO, owner="ROCm", name="ROCm", tracked=True)
    other = github.add_hook(repo=REPO, url="https://ci.example.org/webhooks/github/", secret="x")
    github.record_delivery(other, "issues", opened(1), status_code=500)

    report = redeliver()

    assert (report.hooks, report.requested) == (0, 0)
    assert not any(f"/hooks/{other}/deliveries" in r["path"] for r in github.requests)


def test_a_request_github_never_took_is_asked_again_and_a_refused_one_is_not(github, webhook_url):
    hook = github.add_hook(repo=REPO, url=webhook_url, secret=SECRET)
    github.deliver(hook, "issues", opened(1))
    failed = github.record_delivery(hook, "issues", opened(2), status_code=503)
    github.inject_fault(502, path_contains="/attempts")

    first = redeliver()
    assert first.requested == 0 and "502" in first.summary()
    assert not WebhookRedelivery.objects.exists()  # GitHub never took it: not counted as asked

    second = redeliver()  # the watermark stayed: the failed delivery is read again
    assert second.requested == 1
    assert WebhookRedelivery.objects.get().github_delivery_id == failed["id"]

    refused = github.record_delivery(hook, "issues", opened(3), status_code=503)
    github.inject_fault(422, path_contains="/attempts")
    assert redeliver().refused == 1
    row = WebhookRedelivery.objects.get(guid=refused["guid"])
    assert row.outcome == "refused" and "422" in row.error
    redeliver()
    assert len(attempts_asked(github)) == 3  # 502, then 202, then 422: never again


def test_the_github_app_hook_is_redelivered_with_the_apps_jwt(github, webhook_url, settings):
    pem, public = app_key_pair()
    github.add_app(31337, public)
    hook = github.add_hook(app=True, url=webhook_url, secret=SECRET)
    github.deliver(hook, "issues", opened(1))  # an App's delivery: X-GitHub-Hook-Installation-
    # Target-Type integration
    failed = github.record_delivery(hook, "issues", opened(2), status_code=503)

    without_app = redeliver()
    assert without_app.requested == 0
    assert "needs GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY" in without_app.summary()

    settings.GITHUB_APP_ID, settings.GITHUB_APP_PRIVATE_KEY = "31337", pem
    report = redeliver()
    github.run_redeliveries()

    assert report.requested == 1
    assert attempts_asked(github) == [f"/app/hook/deliveries/{failed['id']}/attempts"]
    assert WebhookDelivery.objects.filter(delivery_id=failed["guid"]).count() == 1


def test_the_apps_hook_is_read_before_any_of_its_deliveries_was_stored(
    github, webhook_url, settings
):
    """The App installed while the service's URL was wrong: every delivery failed, none was
    stored, and the App's one hook is still where they are found."""
    pem, public = app_key_pair()
    github.add_app(31337, public)
    settings.GITHUB_APP_ID, settings.GITHUB_APP_PRIVATE_KEY = "31337", pem
    github.add_installation("ROCm")
    hook = github.add_hook(app=True, url=DOWN, secret=SECRET)
    lost = github.deliver(hook, "issues", opened(4))
    github.set_hook(hook, url=webhook_url)  # the URL fixed

    report = redeliver()
    github.run_redeliveries()

    assert report.requested == 1
    assert attempts_asked(github) == [f"/app/hook/deliveries/{lost['id']}/attempts"]
    assert WebhookDelivery.objects.filter(delivery_id=lost["guid"]).count() == 1


def test_an_app_without_a_personal_token_lists_no_repository_hooks(github, settings):
    """Without GITHUB_TOKEN nothing may list a repository's hooks (the App is not granted
    them): no request without credentials, none every five minutes."""
    pem, public = app_key_pair()
    github.add_app(31337, public)
    settings.GITHUB_APP_ID, settings.GITHUB_APP_PRIVATE_KEY = "31337", pem
    settings.GITHUB_TOKEN = ""
    github.add_installation("ROCm")
    github.add_hook(app=True, url=DOWN, secret=SECRET)
    tracking.repository_track(full_name=REPO)

    for _ in range(2):
        redeliver()

    assert github.count(path_contains="/hooks") == 0
    assert [r["path"] for r in github.requests if not r["headers"]["Authorization"]] == []


def test_beat_runs_the_redelivery_every_five_minutes_on_the_ingest_queue(db):
    tracking.schedules_install_defaults()
    job = PeriodicTask.objects.get(task="triage.tasks.redeliver_failed_webhook_deliveries")
    assert (job.crontab.minute, job.queue, job.enabled) == ("*/5", "ingest", True)
