"""Reply, close, reopen and labels on GitHub from the issue page: through the outbox, against
the GitHub emulator, each decision one audit row and one write however often it is sent."""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from automation.outbox.models import GitHubWrite
from tests.automation.conftest import REPO
from triage.models import Issue, PredictionCorrection, TriageAction

pytestmark = pytest.mark.django_db

ACTS = ["dashboard.reply", "dashboard.state", "dashboard.label"]


@pytest.fixture
def issue(make, emulator, opt_in):
    repository = opt_in(ACTS)
    for name in ("bug", "question", "gfx942"):
        emulator.add_label(REPO, name)
        make.label(name, repository=repository)
    emulator.add_issue(REPO, number=12, title="gemm slow", user="reporter1", labels=["question"])
    made = make.issue(
        repository=repository,
        number=12,
        title="gemm slow",
        author=make.person("reporter1"),
        labels=["question"],
    )
    return made


def url(name, number=12):
    return reverse(name, args=["ROCm", "ROCm", number])


def test_a_reply_reaches_github_once_with_the_reporter_mentioned(
    triager_client, issue, emulator, django_capture_on_commit_callbacks
):
    page = triager_client.get(url("issue-detail")).content.decode()
    nonce = page.split('name="nonce" value="', 1)[1].split('"', 1)[0]
    form = {"body": "Could you try **ROCm 6.4**?", "mention": "on", "nonce": nonce}
    for _ in range(2):  # a double click, a retried request: one reply
        with django_capture_on_commit_callbacks(execute=True):
            answer = triager_client.post(url("issue-reply-set"), form, follow=True)
    bodies = [c["body"] for c in emulator.comments(REPO, 12)]
    assert bodies == ["@reporter1 Could you try **ROCm 6.4**?"]
    assert GitHubWrite.objects.filter(action="dashboard.reply").count() == 1
    assert TriageAction.objects.filter(action="issue.reply").count() == 1
    assert "Reply: comment on ROCm/ROCm#12" in answer.content.decode()


def test_the_preview_is_the_sanitized_rendering(triager_client, issue):
    shown = triager_client.post(
        url("issue-reply-preview"), {"body": "**bold** <script>alert(1)</script>"}
    ).content.decode()
    assert "<strong>bold</strong>" in shown and "<script" not in shown


def test_close_as_not_planned_then_reopen(
    triager_client, issue, emulator, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        triager_client.post(url("issue-state-set"), {"reason": "not_planned"})
    on_github = emulator.issue(REPO, 12)
    assert (on_github["state"], on_github["state_reason"]) == ("closed", "not_planned")
    issue.refresh_from_db()
    assert issue.state == Issue.State.CLOSED
    again = triager_client.post(url("issue-state-set"), {"reason": "completed"}, follow=True)
    assert "it is closed already" in again.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        triager_client.post(url("issue-state-set"), {"reopen": "1"})
    assert emulator.issue(REPO, 12)["state"] == "open"
    assert GitHubWrite.objects.filter(operation__in=["close", "reopen"]).count() == 2


def test_closing_as_a_duplicate_links_the_canonical_issue_and_records_the_decision(
    triager_client, issue, emulator, make, django_capture_on_commit_callbacks
):
    emulator.add_issue(REPO, number=3, title="gemm slow (first)")
    make.issue(repository=issue.repository, number=3, title="gemm slow (first)")
    with django_capture_on_commit_callbacks(execute=True):
        triager_client.post(url("issue-state-set"), {"reason": "duplicate", "duplicate_of": "#3"})
    assert [c["body"] for c in emulator.comments(REPO, 12)] == ["Duplicate of #3"]
    assert emulator.issue(REPO, 12)["state_reason"] == "duplicate"
    decision = PredictionCorrection.objects.get(issue=issue, model_name="duplicates")
    assert decision.after == "ROCm/ROCm#3"
    refused = triager_client.post(
        url("issue-state-set", 3), {"reason": "duplicate", "duplicate_of": "#999"}, follow=True
    )
    assert "ROCm/ROCm#999 is not an issue we hold" in refused.content.decode()


def test_labels_of_the_repositorys_set_are_added_and_removed(
    triager_client, issue, emulator, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        triager_client.post(url("issue-labels-set"), {"add": "Bug, gfx942", "remove": "question"})
    assert sorted(lb["name"] for lb in emulator.issue(REPO, 12)["labels"]) == ["bug", "gfx942"]
    assert sorted(issue.labels.values_list("name", flat=True)) == ["bug", "gfx942"]
    refused = triager_client.post(url("issue-labels-set"), {"add": "wontfix"}, follow=True)
    assert "has no label 'wontfix'" in html.unescape(refused.content.decode())


def test_without_the_opt_in_the_act_is_recorded_and_not_written(
    triager_client, issue, emulator, django_capture_on_commit_callbacks
):
    issue.repository.github_actions = []
    issue.repository.save()
    page = triager_client.get(url("issue-detail")).content.decode()
    assert "has not opted in to: post a maintainer's reply" in html.unescape(page)
    with django_capture_on_commit_callbacks(execute=True):
        answer = triager_client.post(url("issue-state-set"), {"reason": "completed"}, follow=True)
    assert "not written: ROCm/ROCm has not opted in to: close" in answer.content.decode()
    assert emulator.issue(REPO, 12)["state"] == "open"
    assert GitHubWrite.objects.get().status == GitHubWrite.Status.SKIPPED


def test_a_viewer_may_not_act(logged_in_client, issue):
    for name, data in (
        ("issue-reply-set", {"body": "hi"}),
        ("issue-state-set", {"reason": "completed"}),
        ("issue-labels-set", {"add": "bug"}),
    ):
        assert logged_in_client.post(url(name), data).status_code == 403
    assert "Act on GitHub" not in logged_in_client.get(url("issue-detail")).content.decode()
    assert not GitHubWrite.objects.exists()


def test_the_api_acts_as_the_page_does_and_a_retried_reply_writes_once(
    triager, api_client, issue, emulator, django_capture_on_commit_callbacks
):
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=triager).key}")
    base = "/api/issues/ROCm/ROCm/12"
    for _ in range(2):
        with django_capture_on_commit_callbacks(execute=True):
            answer = client.post(
                f"{base}/reply/", {"body": "Thanks!", "nonce": "n-1"}, format="json"
            )
    assert answer.status_code == 200 and answer.json()["writes"][0]["operation"] == "comment"
    assert [c["body"] for c in emulator.comments(REPO, 12)] == ["@reporter1 Thanks!"]
    with django_capture_on_commit_callbacks(execute=True):
        labels = client.post(f"{base}/labels/", {"add": ["bug"]}, format="json")
        closed = client.post(f"{base}/close/", {"reason": "completed"}, format="json")
    assert labels.status_code == 200 and closed.status_code == 200
    assert emulator.issue(REPO, 12)["state"] == "closed"
    assert "bug" in {lb["name"] for lb in emulator.issue(REPO, 12)["labels"]}
    assert client.post(f"{base}/close/", {"reason": "completed"}, format="json").status_code == 400
    assert api_client.post(f"{base}/reopen/").status_code == 403  # a viewer's token
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(f"{base}/reopen/").status_code == 200
    assert emulator.issue(REPO, 12)["state"] == "open"


def test_the_bulk_bar_closes_and_labels_on_github_and_undoes_it(
    triager_client, issue, emulator, make, django_capture_on_commit_callbacks
):
    emulator.add_issue(REPO, number=13, title="gemm slow too", user="reporter2")
    other = make.issue(repository=issue.repository, number=13, title="gemm slow too")
    ids = [issue.pk, other.pk]
    with django_capture_on_commit_callbacks(execute=True):
        text = triager_client.post(
            "/triage/bulk/", {"ids": ids, "action": "label", "argument": "gfx942"}, follow=True
        ).content.decode()
    assert "Add labels (on GitHub): 2 done" in text
    assert all(
        "gfx942" in {lb["name"] for lb in emulator.issue(REPO, n)["labels"]} for n in (12, 13)
    )
    batch = TriageAction.objects.filter(action="bulk.label").first().after["batch"]
    with django_capture_on_commit_callbacks(execute=True):
        triager_client.post("/triage/bulk/undo/", {"batch": batch})
    assert not any(
        "gfx942" in {lb["name"] for lb in emulator.issue(REPO, n)["labels"]} for n in (12, 13)
    )
    with django_capture_on_commit_callbacks(execute=True):
        triager_client.post(
            "/triage/bulk/", {"ids": ids, "action": "close", "argument": "not planned"}
        )
    assert {emulator.issue(REPO, n)["state_reason"] for n in (12, 13)} == {"not_planned"}


def test_a_title_is_made_clearer_on_github_from_the_page_and_the_api(
    triager_client, triager, issue, emulator, django_capture_on_commit_callbacks
):
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    with django_capture_on_commit_callbacks(execute=True):
        triager_client.post(url("issue-title-set"), {"title": "  rocBLAS gemm  slow on gfx942 "})
    assert emulator.issue(REPO, 12)["title"] == "rocBLAS gemm slow on gfx942"
    issue.refresh_from_db()
    assert issue.title == "rocBLAS gemm slow on gfx942"
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=triager).key}")
    same = client.post(
        "/api/issues/ROCm/ROCm/12/title/", {"title": "rocBLAS gemm slow on gfx942"}, format="json"
    )
    assert same.status_code == 400 and "that already" in same.json()["detail"]
    assert GitHubWrite.objects.filter(operation="edit_title").count() == 1


def test_a_heated_conversation_is_locked_and_unlocked_on_github(
    triager_client, issue, emulator, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        triager_client.post(url("issue-lock-set"), {"reason": "too heated"})
    on_github = emulator.issue(REPO, 12)
    assert (on_github["locked"], on_github["active_lock_reason"]) == (True, "too heated")
    refused = triager_client.post(url("issue-lock-set"), {"reason": "boring"}, follow=True)
    assert "lock as off-topic, too heated, resolved, spam" in refused.content.decode()
    issue.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        triager_client.post(url("issue-lock-set"), {"unlock": "1"})
    assert emulator.issue(REPO, 12)["locked"] is False
    assert [w.operation for w in GitHubWrite.objects.order_by("pk")] == ["lock", "unlock"]
