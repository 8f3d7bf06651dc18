"""Assignment from the dashboard: to GitHub through the outbox, mirrored back; "My issues"."""

from __future__ import annotations

import pytest
from django.urls import reverse

from automation.outbox.models import GitHubWrite
from automation.ownership.models import OwnershipRule
from triage.models import IssuePrediction, TriageAction, UserPreference

REPO = "ROCm/ROCm"


@pytest.fixture
def emulator(emulator):
    emulator.add_collaborator(REPO, "alice")
    emulator.add_collaborator(REPO, "tess-gh")
    return emulator


@pytest.fixture
def issue(make, emulator, opt_in):
    repository = opt_in(["dashboard.assign"])
    emulator.add_issue(REPO, number=12, title="rocBLAS gemm slow on gfx942")
    issue = make.issue(repository=repository, number=12, title="rocBLAS gemm slow on gfx942")
    make.priority(issue, 50)
    return issue


def url(issue):
    return reverse("issue-assignees-set", args=["ROCm", "ROCm", issue.number])


def test_a_triager_assigns_and_unassigns_on_github_and_our_copy_follows(
    triager_client, issue, emulator, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        triager_client.post(url(issue), {"assign": "@alice"})
    assert [a["login"] for a in emulator.issue(REPO, 12)["assignees"]] == ["alice"]
    assert list(issue.assignees.values_list("login", flat=True)) == ["alice"]
    page = triager_client.get(reverse("issue-detail", args=["ROCm", "ROCm", 12])).content.decode()
    assert "Unassign alice" in page
    with django_capture_on_commit_callbacks(execute=True):
        triager_client.post(url(issue), {"unassign": "alice"})
    assert emulator.issue(REPO, 12)["assignees"] == [] and issue.assignees.count() == 0
    actions = TriageAction.objects.filter(issue=issue).order_by("id")
    assert [(a.action, a.actor.username, a.after["write"]) for a in actions] == [
        ("issue.assign", "tess", "pending"),
        ("issue.unassign", "tess", "pending"),
    ]
    assert GitHubWrite.objects.filter(status="done").count() == 2


def test_without_the_opt_in_nothing_reaches_github_and_the_triager_is_told_why(
    triager_client, issue, emulator
):
    issue.repository.github_actions = []
    issue.repository.save()
    answer = triager_client.post(url(issue), {"assign": "alice"}, follow=True)
    assert "has not opted in to: assign and unassign from the dashboard" in answer.content.decode()
    assert emulator.issue(REPO, 12)["assignees"] == []


def test_a_bad_login_is_refused(triager_client, issue):
    answer = triager_client.post(url(issue), {"assign": "not a login!"}, follow=True)
    assert "is not a GitHub login" in answer.content.decode()
    assert not GitHubWrite.objects.exists()


def test_my_issues_are_those_assigned_to_me_or_of_a_component_i_own(
    triager_client, triager, make, issue, emulator
):
    UserPreference.objects.create(user=triager, github_login="tess-gh")
    owned = make.issue(repository=issue.repository, number=13, title="MIOpen conv wrong")
    make.priority(owned, 40)
    IssuePrediction.objects.create(issue=owned, model_name="component", label="miopen")
    OwnershipRule.objects.create(kind="component", pattern="mio*", owners="@tess-gh @bob")
    assigned = make.issue(repository=issue.repository, number=14, title="hipcc crash")
    make.priority(assigned, 30)
    assigned.assignees.add(make.person("tess-gh"))
    page = triager_client.get(reverse("triage-queue"), {"mine": "on"}).content.decode()
    assert "MIOpen conv wrong" in page and "hipcc crash" in page
    assert "rocBLAS gemm slow" not in page
    by_assignee = triager_client.get(reverse("triage-queue"), {"assignee": "@TESS-GH"})
    text = by_assignee.content.decode()
    assert "hipcc crash" in text and "MIOpen conv wrong" not in text
    assert "assigned to tess-gh" in text


def test_my_issues_without_a_login_lists_none_and_says_where_to_set_it(triager_client, issue):
    page = triager_client.get(reverse("triage-queue"), {"mine": "on"}).content.decode()
    assert "set your GitHub login" in page and reverse("preferences") in page
    assert "rocBLAS gemm slow on gfx942" not in page
    assert "0 issues" in page


def test_the_queue_sorts_by_assignee_and_bulk_unassigns(
    triager_client, make, issue, emulator, django_capture_on_commit_callbacks
):
    zed = make.issue(repository=issue.repository, number=15, title="zeds issue")
    make.priority(zed, 90)
    zed.assignees.add(make.person("zed"))
    issue.assignees.add(make.person("alice"))
    emulator.update_issue(REPO, 12, assignees=["alice"])
    nobody = make.issue(repository=issue.repository, number=16, title="nobodys issue")
    make.priority(nobody, 99)
    page = triager_client.get(reverse("triage-queue"), {"sort": "assignee"}).content.decode()
    order = [page.index(t) for t in ("rocBLAS gemm slow", "zeds issue", "nobodys issue")]
    assert order == sorted(order), "alice, zed, then the unassigned"
    with django_capture_on_commit_callbacks(execute=True):
        answer = triager_client.post(
            "/triage/bulk/", {"ids": [issue.pk], "action": "unassign", "argument": ""}, follow=True
        )
    assert "Unassign (on GitHub): 1 done" in answer.content.decode()
    assert emulator.issue(REPO, 12)["assignees"] == [] and issue.assignees.count() == 0
