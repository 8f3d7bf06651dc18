"""POST /webhooks/github/: signatures, storage once, and one test per event fixture."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.fakes.github_api import github_for_settings
from tests.fakes.github_webhooks import (
    delivery_headers,
    fixture_body,
    fixture_names,
    fixture_payload,
)
from triage.models import Comment, Issue, Label, Repository, WebhookDelivery
from triage.services import tracking

SECRET = "webhook-test-secret"
URL = "/webhooks/github/"

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def secret(settings):
    settings.GITHUB_WEBHOOK_SECRET = SECRET


@pytest.fixture(autouse=True)
def github(settings):
    """GitHub's REST API, for what a delivery leads to (commit messages of a merged PR)."""
    with github_for_settings(settings, token="hook-token") as emu:
        yield emu


def post(client, event, body: bytes, *, secret=SECRET, delivery_id=None, **extra):
    headers = delivery_headers(event, body, secret, delivery_id)
    headers.pop("Content-Type")
    return client.post(URL, data=body, content_type="application/json", headers=headers, **extra)


def deliver(client, name: str, **kwargs):
    event = name.split("__")[0]
    return post(client, event, fixture_body(name), **kwargs)


def issue_4321():
    return Issue.objects.get(repository__full_name="ROCm/ROCm", number=4321)


# --- verification and storage --------------------------------------------------------------


def test_it_accepts_a_correctly_signed_delivery(client):
    response = deliver(client, "issues__opened", delivery_id="d-1")
    assert response.status_code == 202
    delivery = WebhookDelivery.objects.get()
    assert delivery.delivery_id == "d-1"
    assert bytes(delivery.raw_body) == fixture_body("issues__opened")
    assert delivery.status == WebhookDelivery.Status.PROCESSED


def test_it_refuses_a_wrong_signature_and_stores_nothing(client):
    response = deliver(client, "issues__opened", secret="not-the-secret")
    assert response.status_code == 403
    assert WebhookDelivery.objects.count() == 0
    assert Issue.objects.count() == 0


def test_it_refuses_a_missing_signature_and_stores_nothing(client):
    response = deliver(client, "issues__opened", secret=None)
    assert response.status_code == 403
    assert WebhookDelivery.objects.count() == 0


def test_it_refuses_everything_when_no_secret_is_configured(client, settings):
    settings.GITHUB_WEBHOOK_SECRET = ""
    response = deliver(client, "issues__opened", secret="")
    assert response.status_code == 403
    assert WebhookDelivery.objects.count() == 0


def test_it_answers_400_to_malformed_json(client):
    response = post(client, "issues", b'{"action": "opened", ')
    assert response.status_code == 400
    assert "JSON" in response.json()["error"]
    assert WebhookDelivery.objects.count() == 0


def test_it_answers_400_to_json_that_is_not_an_object(client):
    assert post(client, "issues", b"[1, 2, 3]").status_code == 400


def test_it_answers_400_without_event_or_delivery_headers(client):
    body = fixture_body("issues__opened")
    headers = delivery_headers("issues", body, SECRET)
    del headers["X-GitHub-Delivery"], headers["Content-Type"]
    response = client.post(URL, data=body, content_type="application/json", headers=headers)
    assert response.status_code == 400


def test_it_answers_413_to_a_body_over_25_mb(client):
    body = b'{"padding": "' + b"x" * (25 * 1024 * 1024) + b'"}'
    response = post(client, "issues", body)
    assert response.status_code == 413
    assert WebhookDelivery.objects.count() == 0


def test_it_only_takes_post(client):
    assert client.get(URL).status_code == 405


def test_a_redelivery_is_answered_2xx_and_processed_once(client):
    statuses = [deliver(client, "issues__opened", delivery_id="same").status_code for _ in range(5)]
    assert statuses == [202, 200, 200, 200, 200]
    delivery = WebhookDelivery.objects.get()
    assert delivery.attempts == 1
    assert Issue.objects.count() == 1


def test_a_batch_from_a_web_process_processes_each_delivery_once_in_order():
    from triage.tasks import process_webhook_deliveries

    def stored(delivery_id: str, name: str) -> WebhookDelivery:  # as the view stores, pending
        event, action = name.split("__")
        return WebhookDelivery.objects.create(
            delivery_id=delivery_id, event=event, action=action, raw_body=fixture_body(name)
        )

    opened = stored("b-1", "issues__opened")
    closed = stored("b-2", "issues__closed")
    done_before = stored("b-3", "issues__reopened")
    WebhookDelivery.objects.filter(pk=done_before.pk).update(
        status=WebhookDelivery.Status.PROCESSED
    )

    # a batch redelivered after its worker died names deliveries done already: they are skipped
    outcomes = process_webhook_deliveries.apply(
        args=([opened.pk, closed.pk, done_before.pk, opened.pk],)
    ).get()

    assert outcomes == {"processed": 2, "already claimed or done": 2}
    rows = WebhookDelivery.objects.order_by("delivery_id")
    assert [(d.delivery_id, d.status, d.attempts) for d in rows] == [
        ("b-1", "processed", 1),
        ("b-2", "processed", 1),
        ("b-3", "processed", 0),
    ]
    assert issue_4321().state == "closed"  # both were applied


def test_the_retention_job_deletes_old_processed_and_ignored_deliveries_and_keeps_the_rest(
    client, settings
):
    from triage.sources.github.webhooks import deliveries_prune
    from triage.tasks import prune_webhook_deliveries

    assert deliver(client, "issues__opened", delivery_id="kept-effects").status_code == 202
    status = WebhookDelivery.Status
    for n, state in enumerate([status.PROCESSED] * 3 + [status.IGNORED, status.FAILED]):
        WebhookDelivery.objects.create(
            delivery_id=f"old-{n}", event="issues", raw_body=b"{}", status=state
        )
    WebhookDelivery.objects.create(delivery_id="old-pending", event="issues", raw_body=b"{}")
    WebhookDelivery.objects.create(
        delivery_id="recent", event="issues", raw_body=b"{}", status=status.PROCESSED
    )
    now = timezone.now()
    WebhookDelivery.objects.exclude(delivery_id="recent").update(
        received_at=now - timedelta(days=31)
    )
    WebhookDelivery.objects.filter(delivery_id="recent").update(
        received_at=now - timedelta(days=29)
    )

    settings.WEBHOOK_DELIVERY_RETENTION_DAYS = 0  # kept for ever
    assert prune_webhook_deliveries.apply().get() == 0
    assert WebhookDelivery.objects.count() == 8

    settings.WEBHOOK_DELIVERY_RETENTION_DAYS = 30
    assert deliveries_prune(older_than=timedelta(days=30), batch=2) == 5  # in three batches
    assert sorted(WebhookDelivery.objects.values_list("delivery_id", flat=True)) == [
        "old-4",  # failed: kept for a human
        "old-pending",  # the sweep's
        "recent",
    ]
    assert issue_4321().title  # what a pruned delivery did stays
    assert prune_webhook_deliveries.apply().get() == 0


def test_an_unknown_event_is_recorded_and_ignored(client):
    response = post(client, "sponsorship_tier_changed", b'{"action": "edited"}')
    assert response.status_code == 202
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == WebhookDelivery.Status.IGNORED
    assert "not used" in delivery.error


def test_a_bad_payload_of_a_known_event_fails_the_delivery_and_keeps_it(client):
    response = post(client, "issues", json.dumps({"action": "opened", "repository": {}}).encode())
    assert response.status_code == 202
    delivery = WebhookDelivery.objects.get()
    assert delivery.status in {WebhookDelivery.Status.FAILED, WebhookDelivery.Status.IGNORED}
    assert delivery.error
    assert Issue.objects.count() == 0


def test_every_fixture_has_a_test_here():
    tested = {name.removeprefix("test_") for name in globals() if name.startswith("test_")}
    assert {name for name in fixture_names() if name not in tested} == set()


# --- one test per event fixture ------------------------------------------------------------


def test_ping__payload(client):
    assert deliver(client, "ping__payload").status_code == 202
    repository = Repository.objects.get(full_name="ROCm/ROCm")
    assert repository.github_id == fixture_payload("ping__payload")["repository"]["id"]
    assert repository.tracked


def test_issues__opened(client):
    deliver(client, "issues__opened")
    issue = issue_4321()
    payload = fixture_payload("issues__opened")["issue"]
    assert issue.external_id == str(payload["id"])
    assert issue.title == payload["title"]
    assert issue.author.login == "mi300-user"
    assert list(issue.labels.values_list("name", flat=True)) == ["bug"]
    assert issue.state == "open"


def test_issues__edited(client):
    deliver(client, "issues__opened")
    deliver(client, "issues__edited")
    assert issue_4321().body.endswith("Also on 7.1.0.")


def test_issues__labeled(client):
    deliver(client, "issues__opened")
    deliver(client, "issues__labeled")
    assert sorted(issue_4321().labels.values_list("name", flat=True)) == ["bug", "gfx942"]


def test_issues__unlabeled(client):
    deliver(client, "issues__labeled")
    deliver(client, "issues__unlabeled")
    assert list(issue_4321().labels.values_list("name", flat=True)) == ["gfx942"]


def test_issues__assigned(client):
    deliver(client, "issues__assigned")
    assert list(issue_4321().assignees.values_list("login", flat=True)) == ["rocm-triager"]


def test_issues__closed(client):
    deliver(client, "issues__opened")
    deliver(client, "issues__closed")
    issue = issue_4321()
    assert issue.state == "closed"
    assert issue.closed_at is not None


def test_issues__reopened(client):
    deliver(client, "issues__closed")
    deliver(client, "issues__reopened")
    assert issue_4321().state == "open"


def test_out_of_order_deliveries_keep_the_newest_state(client):
    deliver(client, "issues__reopened")
    deliver(client, "issues__closed")  # older snapshot arriving late
    assert issue_4321().state == "open"


def test_issues__deleted(client):
    deliver(client, "issues__opened")
    deliver(client, "issues__deleted")
    assert issue_4321().deleted_at is not None


def test_issues__transferred(client):
    Repository.objects.create(full_name="ROCm/HIP", tracked=True)
    deliver(client, "issues__opened")
    deliver(client, "issues__transferred")
    assert issue_4321().transferred_to == "ROCm/HIP#77"
    assert Issue.objects.get(repository__full_name="ROCm/HIP", number=77).title.startswith(
        "Memory access fault"
    )


def test_issue_comment__created(client):
    deliver(client, "issue_comment__created")
    comment = Comment.objects.get()
    assert comment.issue == issue_4321()
    assert comment.author.login == "rocm-triager"
    assert "rocminfo" in comment.body


def test_issue_comment__edited(client):
    deliver(client, "issue_comment__created")
    deliver(client, "issue_comment__edited")
    assert Comment.objects.get().body.startswith("Can you share the output")


def test_issue_comment__deleted(client):
    deliver(client, "issue_comment__created")
    deliver(client, "issue_comment__deleted")
    assert Comment.objects.get().deleted_at is not None


def test_pull_request__opened(client):
    deliver(client, "pull_request__opened")
    pr = Issue.objects.get(number=4400)
    assert pr.is_pull_request
    assert pr.merged is False
    assert (pr.base_ref, pr.head_ref) == ("develop", "fix/gemm-oob")
    assert "Fixes #4321" in pr.body


def test_pull_request__synchronize(client):
    deliver(client, "pull_request__opened")
    deliver(client, "pull_request__synchronize")
    pr = Issue.objects.get(number=4400)
    assert pr.title.endswith("(tests added)")
    assert pr.head_sha == fixture_payload("pull_request__synchronize")["after"]


def test_pull_request__closed(client):
    deliver(client, "pull_request__closed")
    pr = Issue.objects.get(number=4401)
    assert pr.state == "closed"
    assert pr.merged is False
    assert pr.merged_at is None


def test_pull_request__closed_merged(client, github):
    github.add_pull(
        "ROCm/ROCm", number=4402, merged=True, commits=["Backport the OOB fix\n\nFixes #4321"]
    )
    deliver(client, "pull_request__closed_merged")
    pr = Issue.objects.get(number=4402)
    payload = fixture_payload("pull_request__closed_merged")["pull_request"]
    assert pr.merged is True
    assert pr.merged_at is not None
    assert pr.merge_commit_sha == payload["merge_commit_sha"]
    assert pr.merged_by.login == "rocm-release"
    assert pr.base_ref == "release/rocm-rel-7.1"
    assert pr.pr_github_id == payload["id"]
    # then, on the ingest queue (in-process here), its commit messages
    assert pr.commit_messages == ["Backport the OOB fix\n\nFixes #4321"]
    assert pr.commits_head_sha == payload["head"]["sha"]
    assert github.count(path_contains="/pulls/4402/commits") == 1


def test_a_merged_delivery_again_reads_no_commits_again(client, github):
    github.add_pull("ROCm/ROCm", number=4402, merged=True, commits=["one"])
    deliver(client, "pull_request__closed_merged")
    deliver(client, "pull_request__closed_merged")  # a redelivery under a new delivery id
    assert github.count(path_contains="/commits") == 1


def test_a_pull_request_closed_unmerged_reads_no_commits(client, github):
    deliver(client, "pull_request__closed")
    assert github.requests == []


def test_issue_and_comment_deliveries_carry_reactions(client):
    payload = fixture_payload("issue_comment__created")
    payload["issue"]["reactions"].update({"+1": 5, "rocket": 1, "total_count": 6})
    payload["comment"]["reactions"].update({"+1": 2, "total_count": 2})
    post(client, "issue_comment", json.dumps(payload).encode())
    issue = issue_4321()
    assert (issue.reactions_total, issue.reactions) == (6, {"+1": 5, "rocket": 1})
    assert Comment.objects.get().reactions_total == 2


def test_label__created(client):
    deliver(client, "label__created")
    label = Label.objects.get()
    assert (label.name, label.color) == ("gfx942", "0e8a16")


def test_label__edited(client):
    deliver(client, "label__created")
    deliver(client, "label__edited")
    assert list(Label.objects.values_list("name", flat=True)) == ["arch: gfx942"]


def test_label__deleted(client):
    deliver(client, "issues__opened")
    assert Label.objects.filter(name="bug").exists()
    deliver(client, "label__deleted")
    assert not Label.objects.filter(name="bug").exists()
    assert issue_4321().labels.count() == 0


def test_repository__renamed(client, make, settings):
    from django_celery_beat.models import PeriodicTask

    from kernels_ci.services.comments import comments_enabled_for

    payload = fixture_payload("repository__renamed")
    hip = tracking.repository_track(full_name="ROCm/HIP")
    Repository.objects.filter(pk=hip.pk).update(github_id=payload["repository"]["id"])
    make.issue(repository=hip, number=77, title="hipMemcpy hangs on gfx90a")
    assert deliver(client, "repository__renamed").status_code == 202
    assert WebhookDelivery.objects.get().status == WebhookDelivery.Status.PROCESSED
    renamed = Repository.objects.get(pk=hip.pk)
    assert renamed.full_name == "ROCm/rocm-hip"
    assert renamed.known_names() == ["ROCm/rocm-hip", "ROCm/HIP"]
    assert list(renamed.issues.values_list("number", flat=True)) == [77]
    assert PeriodicTask.objects.filter(name__startswith="sync GitHub").get().name == (
        "sync GitHub ROCm/rocm-hip"
    )
    # settings written for the old name still mean this repository
    assert tracking.repository_track(full_name="rocm/hip") == renamed  # GITHUB_REPOS
    settings.KERNELS_CI_GITHUB_COMMENT = ["rocm/HIP"]
    assert comments_enabled_for("ROCm/rocm-hip")
    assert Repository.objects.count() == 1


def test_a_renamed_delivery_finds_a_repository_known_only_by_its_old_name(client):
    tracking.repository_track(full_name="ROCm/HIP")  # tracked by name, never synced: no id
    deliver(client, "repository__renamed")
    repository = Repository.objects.get()
    assert (repository.full_name, repository.github_id) == ("ROCm/rocm-hip", 1000001)


def test_other_repository_actions_are_ignored(client):
    payload = dict(fixture_payload("repository__renamed"), action="archived")
    payload.pop("changes")
    post(client, "repository", json.dumps(payload).encode())
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == WebhookDelivery.Status.IGNORED
    assert "'archived' is not used" in delivery.error
    assert not Repository.objects.exists()


def test_a_delivery_with_our_repository_id_under_a_new_name_renames_it(client):
    deliver(client, "issues__opened")
    repository = Repository.objects.get()
    payload = fixture_payload("issue_comment__created")
    payload["repository"].update(name="rocm-core", full_name="ROCm/rocm-core")
    post(client, "issue_comment", json.dumps(payload).encode())
    assert WebhookDelivery.objects.filter(status=WebhookDelivery.Status.PROCESSED).count() == 2
    renamed = Repository.objects.get()
    assert (renamed.pk, renamed.full_name) == (repository.pk, "ROCm/rocm-core")
    assert Comment.objects.get().issue.repository == renamed


def _synced(full_name: str) -> bool:
    from django_celery_beat.models import PeriodicTask

    repository = Repository.objects.get(full_name=full_name)
    return (
        repository.tracked
        and PeriodicTask.objects.filter(name=tracking._task_name(repository)).exists()
    )


@pytest.fixture
def app_of_rocm(settings):
    """The operator allows the GitHub App's installation on the ROCm organization."""
    settings.GITHUB_APP_ACCOUNTS = ["rocm"]


def test_installation__created(client, app_of_rocm):
    assert deliver(client, "installation__created").status_code == 202
    assert WebhookDelivery.objects.get().status == WebhookDelivery.Status.PROCESSED
    assert _synced("ROCm/ROCm") and _synced("ROCm/HIP"), "tracked with their sync schedules"
    payload = fixture_payload("installation__created")
    assert (
        Repository.objects.get(full_name="ROCm/HIP").github_id == (payload["repositories"][1]["id"])
    )


def test_installation__deleted(app_of_rocm, client, make):
    deliver(client, "installation__created")
    make.issue(repository=Repository.objects.get(full_name="ROCm/ROCm"), number=9)
    deliver(client, "installation__deleted")
    assert not _synced("ROCm/ROCm") and not _synced("ROCm/HIP"), "uninstalled: no more syncs"
    assert Issue.objects.filter(number=9).exists(), "the data stays"


def test_installation__new_permissions_accepted(app_of_rocm, client):
    assert deliver(client, "installation__new_permissions_accepted").status_code == 202
    assert WebhookDelivery.objects.get().status == WebhookDelivery.Status.PROCESSED
    assert not Repository.objects.exists(), "nothing tracked or untracked by it"


def test_installation_repositories__added(app_of_rocm, client):
    assert deliver(client, "installation_repositories__added").status_code == 202
    assert _synced("ROCm/HIP")
    assert not Repository.objects.filter(full_name="ROCm/ROCm").exists()


def test_installation_repositories__removed(app_of_rocm, client):
    deliver(client, "installation__created")
    deliver(client, "installation_repositories__removed")
    assert _synced("ROCm/ROCm") and not _synced("ROCm/HIP")


def test_an_installation_on_an_account_nobody_allowed_tracks_nothing(client, settings, make):
    settings.GITHUB_APP_ACCOUNTS = ["amd-gpu-team"]
    make.repository("AMD-AGI/kernels")  # tracked: its owner is allowed, no one else
    deliver(client, "installation__created")
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == WebhookDelivery.Status.IGNORED
    assert "installation on ROCm is not allowed" in delivery.error
    assert not Repository.objects.filter(full_name__istartswith="ROCm/").exists()
    # nor can its repositories' events make them tracked, nor their owners our maintainers
    payload = fixture_payload("issue_comment__created")
    payload["installation"] = {"id": 57412803, "node_id": "MDIz"}
    payload["comment"]["body"] = "/repro"
    post(client, "issue_comment", json.dumps(payload).encode())
    assert not Repository.objects.filter(full_name__istartswith="ROCm/").exists()
    assert not Comment.objects.exists()
    settings.GITHUB_APP_ACCOUNTS = ["*"]  # a private App: every installation is the operator's
    deliver(client, "installation__created", delivery_id="again")
    assert _synced("ROCm/ROCm")


def test_star__created(client):
    assert deliver(client, "star__created").status_code == 202
    assert WebhookDelivery.objects.get().status == WebhookDelivery.Status.IGNORED


CONCURRENT_DELIVERIES = """
import json, sys
from concurrent.futures import ThreadPoolExecutor
from threading import Barrier
import django
django.setup()
from django.db import connections
from django.test import Client
from triage.models import Issue, WebhookDelivery

body, headers = sys.stdin.buffer.read(), json.loads(sys.argv[1])
start = Barrier(5)

def send(_):
    try:
        start.wait(timeout=30)
        return Client().post(
            "/webhooks/github/", data=body, content_type="application/json", headers=headers
        ).status_code
    finally:
        connections.close_all()

with ThreadPoolExecutor(max_workers=5) as pool:
    statuses = sorted(pool.map(send, range(5)))
rows = list(WebhookDelivery.objects.values_list("delivery_id", "status", "attempts", "error"))
print(json.dumps({"statuses": statuses, "deliveries": rows, "issues": Issue.objects.count()}))
"""


def test_the_same_delivery_five_times_concurrently_on_sqlite_is_processed_once(tmp_path):
    """Five threads, each with its own connection, on the embedded deployment's SQLite file
    (WAL, BEGIN IMMEDIATE, a busy timeout); tests/integration does the same on Postgres.

    The test database is in memory and shared-cache, where SQLite does not wait for a lock,
    so it is copied to a file first and the deliveries run in a child process on that file.
    """
    import sqlite3
    import subprocess
    import sys
    from pathlib import Path

    from django.db import connection

    if connection.vendor != "sqlite":
        pytest.skip("the unit tests' database is SQLite; Postgres: tests/integration")
    connection.ensure_connection()
    database = tmp_path / "embedded.sqlite3"
    copy = sqlite3.connect(database)
    connection.connection.backup(copy)
    copy.close()
    body = fixture_body("issues__opened")
    headers = delivery_headers("issues", body, SECRET, "concurrent-1")
    headers.pop("Content-Type")
    env = {
        "PATH": "/usr/bin:/bin",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": f"sqlite:///{database}",
        "VAR_DIR": str(tmp_path / "var"),
        "SECRET_KEY": "test-only",
        "ALLOWED_HOSTS": "testserver",
        "SECURE_SSL_REDIRECT": "0",  # the test client speaks plain http
        "GITHUB_WEBHOOK_SECRET": SECRET,
        "KERNELS_CI_DEMO_RUN": "0",
        "LOG_LEVEL": "ERROR",
    }
    done = subprocess.run(
        [sys.executable, "-c", CONCURRENT_DELIVERIES, json.dumps(headers)],
        input=body,
        capture_output=True,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    result = json.loads(done.stdout.decode().strip().splitlines()[-1])
    assert result["statuses"] == [200, 200, 200, 200, 202]
    assert result["deliveries"] == [["concurrent-1", "processed", 1, ""]]
    assert result["issues"] == 1
