"""Commands in comments: delivered as GitHub sends them, acted on once, answered on GitHub."""

from __future__ import annotations

import json

import pytest

from automation.commands import services as commands
from automation.commands.models import CommentCommand
from automation.needs_info.models import NeedsInfo
from automation.outbox import services as outbox
from automation.outbox.models import GitHubWrite
from triage.models import IssuePrediction, PredictionCorrection, TriageAction
from triage.services.training_data import latest_corrections

REPO = "ROCm/ROCm"
BOT = "rocm-triage-bot"


@pytest.fixture
def issue(make, emulator, opt_in):
    repository = opt_in(outbox.ACTIONS)
    emulator.add_issue(REPO, number=9, title="rocBLAS gemm wrong result", user="reporter1")
    issue = make.issue(
        repository=repository, number=9, title="rocBLAS gemm wrong result", author="reporter1"
    )
    IssuePrediction.objects.create(
        issue=issue, model_name="kind", label="feature", confidence=0.6, model_version="v1"
    )
    return issue


def comment(make, emulator, issue, body, *, author="maintainer1", association="MEMBER"):
    """The comment on GitHub and as ingestion stored it (same GitHub id)."""
    on_github = emulator.add_comment(REPO, issue.number, body=body, user=author)
    return make.comment(
        issue,
        body=body,
        author=author,
        author_association=association,
        external_id=str(on_github["id"]),
    )


def run(issue, capture):
    with capture(execute=True):
        return commands.comments_commands_run(issue_ids=[issue.pk])


def test_kind_is_recorded_like_a_dashboard_correction_and_acknowledged_with_a_reaction(
    make, emulator, issue, django_capture_on_commit_callbacks
):
    said = comment(make, emulator, issue, "Thanks!\n/kind bug\n")
    report = run(issue, django_capture_on_commit_callbacks)
    assert report.done == ["ROCm/ROCm#9 '/kind bug' by maintainer1: kind feature -> bug"]
    correction = PredictionCorrection.objects.get(issue=issue, model_name="kind")
    assert (correction.before, correction.after, correction.github_login) == (
        "feature",
        "bug",
        "maintainer1",
    )
    assert correction.user is None and correction.model_version == "v1"
    assert latest_corrections("kind") == {issue.pk: "bug"}, "it trains kind as a correction does"
    [reaction] = emulator.reactions(REPO, comment_id=int(said.external_id))
    assert (reaction["content"], reaction["user"]["login"]) == ("+1", BOT)
    # redelivered or edited, the same command is not acted on again
    run(issue, django_capture_on_commit_callbacks)
    assert PredictionCorrection.objects.filter(issue=issue).count() == 1
    assert len(emulator.reactions(REPO, comment_id=int(said.external_id))) == 1


def test_a_command_from_someone_without_rights_changes_nothing_and_gets_one_reply(
    make, emulator, issue, django_capture_on_commit_callbacks
):
    comment(make, emulator, issue, "/severity critical", author="drive-by", association="NONE")
    report = run(issue, django_capture_on_commit_callbacks)
    assert len(report.refused) == 1
    assert not PredictionCorrection.objects.exists()
    replies = [c for c in emulator.comments(REPO, 9) if c["user"]["login"] == BOT]
    assert len(replies) == 1
    assert "only the repository's collaborators may command" in replies[0]["body"]
    run(issue, django_capture_on_commit_callbacks)
    assert len([c for c in emulator.comments(REPO, 9) if c["user"]["login"] == BOT]) == 1


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("/kind bugg", "kind is one of"),
        ("/duplicate #424242", "is not an issue this service knows"),
        ("/duplicate soon", "name the issue"),
        ("/priority urgent", "whole number from 0 to 100"),
        ("/assign not a login!", "is not a GitHub login"),
        ("/assign", "name at least one GitHub login"),
        ("/assign " + " ".join(f"@user{n}" for n in range(11)), "at most 10 assignees"),
    ],
)
def test_bad_arguments_are_refused_with_a_reply_and_change_nothing(
    make, emulator, issue, django_capture_on_commit_callbacks, line, why
):
    comment(make, emulator, issue, line)
    report = run(issue, django_capture_on_commit_callbacks)
    assert report.done == [] and why in report.refused[0]
    assert not PredictionCorrection.objects.exists()
    [reply] = [c for c in emulator.comments(REPO, 9) if c["user"]["login"] == BOT]
    assert f"`{line}` was not applied" in reply["body"] and why in reply["body"]


def test_duplicate_priority_needinfo_and_assign(
    make, emulator, issue, django_capture_on_commit_callbacks
):
    original = make.issue(repository=issue.repository, number=3, title="gemm wrong on gfx942")
    emulator.add_collaborator(REPO, "alice")
    said = comment(
        make,
        emulator,
        issue,
        "/duplicate #3\n/priority 80\n/assign @alice, alice\n/needinfo\n```\n/kind question\n```",
    )
    report = run(issue, django_capture_on_commit_callbacks)
    assert len(report.done) == 4, report.refused
    decided = dict(
        PredictionCorrection.objects.filter(issue=issue).values_list("model_name", "after")
    )
    assert decided == {"duplicates": f"{original.reference}", "priority": "80"}
    assert [a["login"] for a in emulator.issue(REPO, 9)["assignees"]] == ["alice"]
    assert TriageAction.objects.get(action="issue.assign").github_login == "maintainer1"
    assert NeedsInfo.objects.get(issue=issue).requested_by == "@maintainer1"
    assert [lb["name"] for lb in emulator.issue(REPO, 9)["labels"]] == ["needs info"]
    assert len(emulator.reactions(REPO, comment_id=int(said.external_id))) == 1
    assert CommentCommand.objects.filter(status="done").count() == 4, "code blocks are not read"


def test_commands_are_only_lines_of_their_own():
    assert commands.commands_in("see /kind bug inline\n> /kind bug\n/kindness\n/repro") == []
    assert commands.commands_in("  /component rocBLAS  \n") == [
        ("component", "rocBLAS", "/component rocBLAS")
    ]


def test_releases_commands_target_the_train(
    make, emulator, issue, django_capture_on_commit_callbacks
):
    from datetime import date

    from releases.models import ReleaseSeries

    ReleaseSeries.objects.create(
        name="rocm", epoch_version="7.0", epoch_date=date(2026, 1, 15), cadence_days=42
    )
    comment(make, emulator, issue, "/target 7.9\n/backport 7.1\n/target soon")
    report = run(issue, django_capture_on_commit_callbacks)
    assert report.done[0].endswith("targeted at rocm 7.9")
    assert "backport to rocm 7.1 nominated" in report.done[1]
    assert "is not a train version" in report.refused[0]
    assert issue.targets.get().train_version == "7.9"
    assert issue.backports.get().reason == "/backport by @maintainer1"
    assert GitHubWrite.objects.filter(operation="react").count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_command_delivered_by_webhook_is_acted_on_and_acknowledged(client, settings, emulator):
    """The whole path: a signed issue_comment delivery -> ingestion -> the pipeline's
    run_comment_commands -> the decision -> the outbox -> PyGithub -> a reaction on GitHub."""
    from tests.fakes.github_webhooks import delivery_headers, fixture_payload
    from triage.models import Repository

    settings.GITHUB_WEBHOOK_SECRET = "cc-secret"
    Repository.objects.create(
        full_name=REPO, github_actions=["commands.reply"], github_dry_run=False
    )
    emulator.add_issue(REPO, number=4321, title="gemm NaN", user="reporter1")
    on_github = emulator.add_comment(REPO, 4321, body="/kind bug", user="rocm-triager")
    payload = fixture_payload("issue_comment__created")
    payload["comment"].update(
        id=on_github["id"],
        body="/kind bug",
        author_association="MEMBER",
        created_at=on_github["created_at"],
        updated_at=on_github["updated_at"],
    )
    body = json.dumps(payload).encode()
    headers = delivery_headers("issue_comment", body, "cc-secret", None)
    headers.pop("Content-Type")
    for _ in range(2):  # GitHub redelivers: acted on once
        answer = client.post(
            "/webhooks/github/", data=body, content_type="application/json", headers=headers
        )
        assert answer.status_code in (200, 202)
    correction = PredictionCorrection.objects.get(model_name="kind")
    assert (correction.after, correction.github_login) == ("bug", "rocm-triager")
    [reaction] = emulator.reactions(REPO, comment_id=on_github["id"])
    assert (reaction["content"], reaction["user"]["login"]) == ("+1", BOT)


@pytest.mark.django_db(transaction=True)
def test_commands_in_comments_older_than_the_tracking_are_history_and_not_acted_on(emulator):
    """The first sync of a repository reads years of comments: a `/assign` or `/kind` written
    then was for the people of that time; acting on it now would assign, relabel and reply on
    long-settled issues."""
    from datetime import UTC, datetime

    from triage.models import Repository
    from triage.sources.github import sync

    repository = Repository.objects.create(
        full_name=REPO, github_actions=list(outbox.ACTIONS), github_dry_run=False
    )
    then = datetime(2023, 3, 14, 10, 0, tzinfo=UTC)
    emulator.add_issue(REPO, number=31, title="hipMemcpy hangs on gfx90a", created_at=then)
    old = emulator.add_comment(
        REPO,
        31,
        body="Looks like the DMA engine again.\n/assign @dma-owner\n/kind bugg",
        user="maintainer1",
        author_association="MEMBER",
        created_at=then,
    )
    emulator.add_issue(REPO, number=32, title="rocprof crashes at exit")
    new = emulator.add_comment(
        REPO, 32, body="/needinfo", user="maintainer1", author_association="MEMBER"
    )
    sync.repository_sync(repository=repository)
    acted = set(CommentCommand.objects.values_list("comment__external_id", flat=True))
    assert acted == {str(new["id"])}, "only the comment written since the repository is tracked"
    assert not emulator.reactions(REPO, comment_id=old["id"])
    assert [c for c in emulator.comments(REPO, 31) if c["user"]["login"] == BOT] == []
    assert emulator.issue(REPO, 31)["assignees"] == []


def test_a_stranger_gets_one_reply_per_comment_that_never_echoes_their_words(
    make, emulator, issue, django_capture_on_commit_callbacks
):
    lines = [f"/kind bug` @rocm/maintainers ![x](https://evil.example/{n}.png)" for n in range(10)]
    comment(make, emulator, issue, "\n".join(lines), author="drive-by", association="NONE")
    report = run(issue, django_capture_on_commit_callbacks)
    assert len(report.refused) == 10
    [reply] = [c for c in emulator.comments(REPO, 9) if c["user"]["login"] == BOT]
    assert reply["body"].startswith("@drive-by: `/kind` was not applied")
    assert "maintainers" not in reply["body"] and "evil.example" not in reply["body"]
    assert GitHubWrite.objects.filter(issue=issue, operation="comment").count() == 1


def test_a_collaborators_refused_lines_are_answered_in_one_reply_quoted_inertly(
    make, emulator, issue, django_capture_on_commit_callbacks
):
    comment(make, emulator, issue, "/kind bugg`@team\n/priority urgent")
    run(issue, django_capture_on_commit_callbacks)
    [reply] = [c for c in emulator.comments(REPO, 9) if c["user"]["login"] == BOT]
    assert "`/kind buggˋ@team` was not applied" in reply["body"]
    assert "`/priority urgent` was not applied" in reply["body"]


def test_close_reopen_label_and_unlabel_on_github(
    make, emulator, issue, django_capture_on_commit_callbacks
):
    for name in ("bug", "question"):
        emulator.add_label(REPO, name)
        make.label(name, repository=issue.repository)
    comment(make, emulator, issue, "/label bug, question\n/close not planned")
    report = run(issue, django_capture_on_commit_callbacks)
    assert len(report.done) == 2, report.refused
    on_github = emulator.issue(REPO, 9)
    assert (on_github["state"], on_github["state_reason"]) == ("closed", "not_planned")
    assert sorted(lb["name"] for lb in on_github["labels"]) == ["bug", "question"]
    assert TriageAction.objects.get(action="issue.close").github_login == "maintainer1"

    issue.refresh_from_db()
    comment(make, emulator, issue, "/reopen\n/unlabel question\n/label wontfix")
    report = run(issue, django_capture_on_commit_callbacks)
    assert len(report.done) == 2 and "has no label 'wontfix'" in report.refused[0]
    on_github = emulator.issue(REPO, 9)
    assert on_github["state"] == "open" and [lb["name"] for lb in on_github["labels"]] == ["bug"]


def test_duplicate_closes_on_github_as_a_duplicate_where_opted_in(
    make, emulator, issue, django_capture_on_commit_callbacks
):
    make.issue(repository=issue.repository, number=3, title="gemm wrong on gfx942")
    comment(make, emulator, issue, "/duplicate #3")
    run(issue, django_capture_on_commit_callbacks)
    assert emulator.issue(REPO, 9)["state_reason"] == "duplicate"
    assert "Duplicate of #3" in [c["body"] for c in emulator.comments(REPO, 9)]
    assert PredictionCorrection.objects.filter(issue=issue, model_name="duplicates").count() == 1
