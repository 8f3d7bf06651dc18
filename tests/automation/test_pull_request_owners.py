"""A pull request's changed files go to their owners by path rules: a `pull_request` delivery (or
a sync that finds the head moved) reads the files through PyGithub, and the outbox asks the
owners for reviews (ownership.request_review, opted in), never the author, never twice."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from automation.outbox.models import GitHubWrite
from automation.ownership.models import OwnerNotification, OwnershipRule
from tests.fakes.github_api import github_for_settings
from tests.fakes.github_webhooks import delivery_headers, fixture_payload
from triage.models import Issue, PullRequestFiles, Repository
from triage.sources.github import sync

REPO = "ROCm/ROCm"
SECRET = "owners-webhook-secret"
NUMBER = 4400  # the pull_request fixtures' pull request, by rocm-dev
HIP_FILES = [f"src/hip/kernel{i}.cpp" for i in range(120)]  # two pages of 100
RENAMED = {"filename": "docs/guide.md", "status": "renamed", "previous_filename": "guide.md"}

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def emulator(settings):
    settings.GITHUB_WEBHOOK_SECRET = SECRET
    with github_for_settings(settings, token="po-token", login="rocm-triage-bot", retries=0) as emu:
        emu.add_repo(REPO)
        for login in ("hip-lead", "doc-writer", "rocm-dev"):
            emu.add_collaborator(REPO, login)
        emu.add_team(REPO, "hip-team")
        yield emu


@pytest.fixture
def repository(emulator, opt_in, django_user_model):
    repository = opt_in(["ownership.request_review"])
    rule = OwnershipRule.objects.create
    rule(kind="path", pattern="*", owners="@rocm-dev", order=10)
    rule(kind="path", pattern="/src/hip/", owners="@hip-lead @ROCm/hip-team @Other/gpu", order=20)
    rule(repository=repository, kind="path", pattern="*.md", owners="@doc-writer", order=30)
    django_user_model.objects.create_user("hip-lead", email="hip-lead@example.com")
    return repository


def deliver(client, action: str = "opened", *, head: str = "", draft: bool = False):
    """A signed `pull_request` delivery of the fixture's pull request, as GitHub sends it."""
    payload = fixture_payload("pull_request__opened")
    payload["action"] = action
    # GitHub sends the pull request as the event left it: updated now
    payload["pull_request"]["updated_at"] = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    payload["pull_request"]["draft"] = draft
    if head:
        payload["pull_request"]["head"]["sha"] = payload["after"] = head
    body = json.dumps(payload).encode()
    headers = delivery_headers("pull_request", body, SECRET)
    headers.pop("Content-Type")
    response = client.post(
        "/webhooks/github/", data=body, content_type="application/json", headers=headers
    )
    assert response.status_code == 202


def the_pull():
    return Issue.objects.get(repository__full_name=REPO, number=NUMBER)


def test_an_opened_pull_request_asks_the_owners_of_its_files_for_review(
    client, emulator, repository, mailoutbox
):
    emulator.add_pull(REPO, number=NUMBER, user="rocm-dev", files=[*HIP_FILES, RENAMED, "setup.py"])

    deliver(client)

    files = PullRequestFiles.objects.get(issue=the_pull())
    assert files.head_sha == the_pull().head_sha and not files.truncated
    assert len(files.files) == 122 and files.files[120] == RENAMED
    assert emulator.count(path_contains=f"/pulls/{NUMBER}/files") == 2
    write = GitHubWrite.objects.get()
    assert (write.action, write.operation, write.status) == (
        "ownership.request_review",
        "request_review",
        "done",
    )
    # the author (rocm-dev, who owns setup.py) is never asked; a team of another organization
    # cannot be, and the reason says so
    assert write.payload["reviewers"] == ["hip-lead", "doc-writer"]
    assert write.payload["team_reviewers"] == ["hip-team"]
    assert write.reason.endswith("Left out (a team of another organization): Other/gpu")
    assert write.decided_by.startswith("rules ownership ")
    assert emulator.requested_reviewers(REPO, NUMBER) == {
        "users": ["hip-lead", "doc-writer"],
        "teams": ["hip-team"],
    }
    assert write.detail == "reviews requested now: hip-lead, doc-writer, ROCm/hip-team"
    notification = OwnerNotification.objects.get()
    assert notification.kind == "routed" and "rocm-dev" not in notification.owners
    assert [m.to for m in mailoutbox] == [["hip-lead@example.com"]]


def test_redeliveries_and_a_reopen_at_the_same_head_ask_nobody_twice(
    client, emulator, repository, mailoutbox
):
    emulator.add_pull(REPO, number=NUMBER, user="rocm-dev", files=HIP_FILES)

    deliver(client)
    deliver(client)  # GitHub's redelivery, under a new delivery id
    deliver(client, "synchronize")  # the fixture's head: it did not move
    deliver(client, "reopened")

    assert emulator.count(path_contains=f"/pulls/{NUMBER}/files") == 2  # read once, two pages
    assert emulator.count(path_contains="/requested_reviewers") == 1
    assert GitHubWrite.objects.count() == 1
    assert OwnerNotification.objects.count() == 1 and len(mailoutbox) == 1


def test_a_push_that_touches_other_owners_files_asks_only_them(client, emulator, repository):
    emulator.add_pull(REPO, number=NUMBER, user="rocm-dev", files=["src/hip/a.cpp"])
    deliver(client)
    emulator.update_issue(REPO, NUMBER, commits=["more"], files=["src/hip/a.cpp", "README.md"])

    deliver(client, "synchronize", head="f" * 40)

    assert PullRequestFiles.objects.get(issue=the_pull()).head_sha == "f" * 40
    assert emulator.count(path_contains=f"/pulls/{NUMBER}/files") == 2  # once per head
    second = GitHubWrite.objects.order_by("id").last()
    assert (second.payload["reviewers"], second.payload["team_reviewers"]) == (["doc-writer"], [])
    assert emulator.requested_reviewers(REPO, NUMBER)["users"] == ["hip-lead", "doc-writer"]


@pytest.mark.parametrize(
    ("setting", "status", "detail"),
    [
        ("dry_run", "planned", "dry run: would request reviews of ROCm/ROCm#4400 from @hip-lead"),
        (
            "opted_out",
            "skipped",
            "ROCm/ROCm has not opted in to: request reviews of a pull request from the owners "
            "of its changed files by path rules",
        ),
        ("stopped", "skipped", "all writes to GitHub are stopped (GITHUB_WRITES_STOPPED)"),
    ],
)
def test_a_dry_run_an_opt_out_and_the_stop_switch_send_nothing(
    client, emulator, repository, settings, setting, status, detail
):
    if setting == "dry_run":
        Repository.objects.filter(pk=repository.pk).update(github_dry_run=True)
    elif setting == "opted_out":
        Repository.objects.filter(pk=repository.pk).update(github_actions=["ownership.assign"])
    else:
        settings.GITHUB_WRITES_STOPPED = True
    emulator.add_pull(REPO, number=NUMBER, user="rocm-dev", files=HIP_FILES)

    deliver(client)
    deliver(client)  # once recorded, not again

    write = GitHubWrite.objects.get()
    assert write.status == status and write.detail.startswith(detail)
    assert emulator.count(path_contains="/requested_reviewers") == 0
    assert emulator.requested_reviewers(REPO, NUMBER) == {"users": [], "teams": []}


def test_a_reviewer_github_refuses_fails_the_write_with_its_message_once(
    client, emulator, repository
):
    OwnershipRule.objects.filter(pattern="*.md").update(owners="@mallory")  # not a collaborator
    emulator.add_pull(REPO, number=NUMBER, user="rocm-dev", files=["README.md"])

    deliver(client)
    deliver(client, "reopened")

    write = GitHubWrite.objects.get()
    assert write.status == "failed"
    assert "GitHub answered 422: Reviews may only be requested from collaborators" in write.detail
    assert emulator.count(path_contains="/requested_reviewers") == 1  # never tried again


def test_a_draft_is_asked_once_it_is_ready_for_review(client, emulator, repository):
    emulator.add_pull(REPO, number=NUMBER, user="rocm-dev", files=["src/hip/a.cpp"], draft=True)

    deliver(client, draft=True)
    asked_of_a_draft = GitHubWrite.objects.count()
    deliver(client, "ready_for_review")

    assert asked_of_a_draft == 0
    assert GitHubWrite.objects.get().status == "done"
    assert emulator.count(path_contains=f"/pulls/{NUMBER}/files") == 1  # its head did not move


def test_a_sync_reads_files_only_where_path_rules_apply_and_the_head_moved(emulator, repository):
    emulator.add_pull(REPO, number=12, user="someone", files=["src/hip/a.cpp"])
    emulator.add_pull(REPO, number=13, user="someone", state="closed", files=["src/hip/b.cpp"])

    sync.repository_sync(repository=repository)
    sync.repository_sync(repository=repository)  # nothing moved: no files read again
    emulator.update_issue(REPO, 12, commits=["push"], files=["src/hip/a.cpp", "docs/x.md"])
    sync.repository_sync(repository=repository)

    assert emulator.count(path_contains="/pulls/12/files") == 2
    assert emulator.count(path_contains="/pulls/13/files") == 0  # closed: nobody to ask
    writes = GitHubWrite.objects.order_by("id")
    assert [w.payload["reviewers"] for w in writes] == [["hip-lead"], ["doc-writer"]]
    OwnershipRule.objects.filter(kind="path").delete()
    emulator.update_issue(REPO, 12, commits=["another push"])
    sync.repository_sync(repository=repository)
    assert emulator.count(path_contains="/files") == 2  # no path rule: no files read


def test_the_first_syncs_untouched_pull_requests_ask_no_one_and_a_push_since_does(
    emulator, repository, mailoutbox
):
    """Tracking a repository whose open pull requests wait for months asks no one about them:
    they are its history. One pushed to after the tracking is asked like a new one."""
    long_ago = datetime.now(UTC) - timedelta(days=200)
    for number in (21, 22):
        emulator.add_pull(
            REPO,
            number=number,
            user="someone",
            files=["src/hip/a.cpp"],
            created_at=long_ago,
            updated_at=long_ago,
        )

    sync.repository_sync(repository=repository)
    asked_at_tracking, told_at_tracking = GitHubWrite.objects.count(), len(mailoutbox)
    emulator.update_issue(REPO, 22, commits=["a push"], files=["src/hip/a.cpp", "src/hip/b.cpp"])
    sync.repository_sync(repository=repository)

    assert asked_at_tracking == 0 and told_at_tracking == 0
    assert [m.to for m in mailoutbox] == [["hip-lead@example.com"]], "told of the push's only"
    write = GitHubWrite.objects.get()
    assert write.issue.number == 22 and write.payload["reviewers"] == ["hip-lead"]
    assert emulator.requested_reviewers(REPO, 21) == {"users": [], "teams": []}


def test_the_pull_request_page_shows_its_owners_by_path(
    client, emulator, repository, logged_in_client
):
    emulator.add_pull(REPO, number=NUMBER, user="rocm-dev", files=[*HIP_FILES, "setup.py"])
    deliver(client)

    response = logged_in_client.get(f"/issues/{REPO}/{NUMBER}/")

    page = response.content.decode()
    assert "Owners by path" in page and "121 changed files" in page
    assert "@hip-lead" in page and "(120 in all)" in page
    assert "<code>/src/hip/</code>" in page
    assert "request reviews of ROCm/ROCm#4400 from @hip-lead, @ROCm/hip-team" in page


def test_an_owner_github_refuses_does_not_keep_the_others_from_being_asked(
    client, emulator, repository
):
    # @mallory left the organization: GitHub refuses any request that names her
    OwnershipRule.objects.filter(pattern="*.md").update(owners="@mallory @doc-writer")
    emulator.add_pull(REPO, number=NUMBER, user="rocm-dev", files=["README.md"])

    deliver(client)
    deliver(client, "reopened")

    write = GitHubWrite.objects.get()
    assert write.status == "done"
    assert "reviews requested now: doc-writer" in write.detail
    assert "GitHub refused mallory" in write.detail and "422" in write.detail
    assert emulator.requested_reviewers(REPO, NUMBER)["users"] == ["doc-writer"]
    assert emulator.count(path_contains="/requested_reviewers") == 3  # both, then each alone
