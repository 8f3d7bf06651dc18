"""The outbox of writes to GitHub: PyGithub's requests to the emulator, errors, retries, markers."""

from __future__ import annotations

import time

import pytest

from automation.outbox import reply_templates
from automation.outbox import services as outbox
from automation.outbox.models import GitHubWrite
from triage.sources.github.client import RateLimited, TransientGitHubError

REPO = "ROCm/ROCm"
BOT = "rocm-triage-bot"
Op = GitHubWrite.Operation


@pytest.fixture
def emulator(emulator, settings):
    settings.GITHUB_RETRIES = 0
    return emulator


@pytest.fixture
def issue(make, emulator, opt_in):
    repository = opt_in(outbox.ACTIONS)
    emulator.add_issue(REPO, number=7, title="Hang on gfx942", user="reporter1")
    return make.issue(repository=repository, number=7, title="Hang on gfx942", author="reporter1")


def plan(issue, operation, key, payload, action="needs_info.ask"):
    return outbox.write_plan(
        issue=issue,
        action=action,
        operation=operation,
        key=key,
        payload=payload,
        reason="test",
        decided_by="rule test",
    )


def deliver(row):
    outbox.write_deliver(write_id=row.pk)
    row.refresh_from_db()
    return row


def test_a_marked_comment_is_edited_in_place_not_posted_again(issue, emulator):
    first = deliver(plan(issue, Op.COMMENT, "a", {"body": "Please add X.", "marker": "ask"}))
    second = deliver(plan(issue, Op.COMMENT, "b", {"body": "Please add Y.", "marker": "ask"}))
    [comment] = emulator.comments(REPO, 7)
    assert comment["body"] == f"Please add Y.\n\n{outbox.marker('ask')}"
    assert first.github_id == second.github_id == comment["id"]
    assert second.detail == f"edited comment {comment['id']}"


def test_after_an_interrupted_attempt_the_bot_finds_its_comment_by_its_marker(issue, emulator):
    row = plan(issue, Op.COMMENT, "a", {"body": "Please add X.", "marker": "ask"})
    # an earlier attempt posted the comment, then the worker died before recording it
    emulator.add_comment(REPO, 7, body=f"Please add X.\n\n{outbox.marker('ask')}", user=BOT)
    # someone else's comment carrying the same marker is not the bot's
    emulator.add_comment(REPO, 7, body=f"spoof {outbox.marker('ask')}", user="mallory")
    GitHubWrite.objects.filter(pk=row.pk).update(attempts=1)
    deliver(row)
    comments = emulator.comments(REPO, 7)
    assert len(comments) == 2
    assert comments[0]["body"].startswith("Please add X.") and row.status == "done"
    assert comments[1]["body"].startswith("spoof"), "never edits another's comment"


@pytest.mark.parametrize("status", [403, 404, 422])
def test_a_refused_write_fails_with_githubs_message_and_is_not_retried(issue, emulator, status):
    emulator.inject_fault(
        status, path_contains="/labels", body={"message": f"nope {status}"}, rate_limited=False
    )
    row = deliver(plan(issue, Op.ADD_LABELS, "l", {"labels": ["needs info"]}))
    assert row.status == "failed"
    assert row.detail == f"GitHub answered {status}: nope {status}"
    assert outbox.write_deliver(write_id=row.pk) is None, "a failed write is done with"
    again = plan(issue, Op.ADD_LABELS, "l", {"labels": ["needs info"]})
    assert again.pk == row.pk, "the same decision is not planned twice"


def test_a_rate_limit_leaves_the_write_pending_until_the_reset(issue, emulator):
    emulator.set_rate_limit(0, int(time.time()) + 120)
    row = plan(issue, Op.ADD_LABELS, "l", {"labels": ["needs info"]})
    with pytest.raises(RateLimited):
        outbox.write_deliver(write_id=row.pk)
    row.refresh_from_db()
    assert row.status == "pending"
    emulator.reset_rate_limit()
    assert deliver(row).status == "done"
    assert [lb["name"] for lb in emulator.issue(REPO, 7)["labels"]] == ["needs info"]


def test_a_server_error_is_tried_again_a_bounded_number_of_times(issue, emulator):
    emulator.inject_fault(502, path_contains="/assignees", times=None)
    row = plan(issue, Op.ASSIGN, "as", {"assignees": ["alice"]}, action="commands.assign")
    for _ in range(outbox.MAX_ATTEMPTS - 1):
        with pytest.raises(TransientGitHubError):
            outbox.write_deliver(write_id=row.pk)
    row = deliver(row)
    assert row.status == "failed" and f"after {outbox.MAX_ATTEMPTS} attempts" in row.detail


def test_an_assignee_github_ignores_is_a_failure_not_a_silent_success(issue, emulator):
    emulator.add_collaborator(REPO, "alice")
    row = deliver(plan(issue, Op.ASSIGN, "x", {"assignees": ["mallory"]}, "commands.assign"))
    assert row.status == "failed" and "did not assign mallory" in row.detail
    row = deliver(plan(issue, Op.ASSIGN, "y", {"assignees": ["alice"]}, "commands.assign"))
    assert row.status == "done"
    assert [a["login"] for a in emulator.issue(REPO, 7)["assignees"]] == ["alice"]


def test_closing_reopening_reacting_and_removing_a_label(issue, emulator):
    deliver(plan(issue, Op.ADD_LABELS, "l1", {"labels": ["needs info", "bug"]}))
    deliver(plan(issue, Op.REMOVE_LABEL, "l2", {"label": "needs info"}))
    absent = deliver(plan(issue, Op.REMOVE_LABEL, "l3", {"label": "needs info"}))
    assert absent.status == "done" and absent.detail == "'needs info' was not on the issue"
    assert sorted(issue.labels.values_list("name", flat=True)) == ["bug"]
    deliver(plan(issue, Op.CLOSE, "c", {"state_reason": "not_planned"}, "needs_info.close"))
    github = emulator.issue(REPO, 7)
    assert (github["state"], github["state_reason"]) == ("closed", "not_planned")
    issue.refresh_from_db()
    assert (issue.state, issue.state_reason) == ("closed", "not_planned")
    deliver(plan(issue, Op.REOPEN, "r", {}, "needs_info.close"))
    assert emulator.issue(REPO, 7)["state"] == "open"
    comment = emulator.add_comment(REPO, 7, body="/kind bug", user="maintainer1")
    payload = {"comment_id": comment["id"], "content": "+1"}
    deliver(plan(issue, Op.REACT, "re", payload, "commands.reply"))
    [reaction] = emulator.reactions(REPO, comment_id=comment["id"])
    assert (reaction["content"], reaction["user"]["login"]) == ("+1", BOT)


@pytest.mark.parametrize(
    ("operation", "payload", "words"),
    [
        (
            Op.COMMENT,
            {"body": "Please add X.\nThanks", "marker": "ask"},
            "comment on {ref} (ask): Please add X.",
        ),
        (Op.ADD_LABELS, {"labels": ["needs info", "bug"]}, "add labels needs info, bug to {ref}"),
        (Op.REMOVE_LABEL, {"label": "needs info"}, "remove label needs info from {ref}"),
        (Op.ASSIGN, {"assignees": ["alice", "bob"]}, "assign alice, bob to {ref}"),
        (Op.UNASSIGN, {"assignees": ["alice"]}, "unassign alice from {ref}"),
        (Op.CLOSE, {"state_reason": "not_planned"}, "close {ref} as not_planned"),
        (Op.CLOSE, {}, "close {ref} as completed"),
        (Op.REOPEN, {}, "reopen {ref}"),
        (
            Op.REQUEST_REVIEW,
            {"reviewers": ["alice"], "team_reviewers": ["hip"]},
            "request reviews of {ref} from @alice, @ROCm/hip",
        ),
        (Op.REACT, {"comment_id": 5, "content": "eyes"}, "react eyes to comment 5"),
    ],
)
def test_a_dry_run_says_in_words_what_each_write_would_do(
    issue, emulator, operation, payload, words
):
    issue.repository.github_dry_run = True
    issue.repository.save()
    row = plan(issue, operation, "k", payload)
    assert row.status == "planned"
    assert row.detail == "dry run: would " + words.format(ref=issue.reference)
    assert emulator.issue(REPO, 7)["labels"] == [] and emulator.comments(REPO, 7) == []


def test_stopping_skips_what_waits_and_what_comes(issue, emulator, triager):
    waiting = plan(issue, Op.ADD_LABELS, "l", {"labels": ["needs info"]})
    assert outbox.writes_stop(user=triager, reason="incident") == 1
    waiting.refresh_from_db()
    assert waiting.status == "skipped" and "incident" in waiting.detail
    assert outbox.write_deliver(write_id=waiting.pk) is None
    later = plan(issue, Op.ADD_LABELS, "l2", {"labels": ["needs info"]})
    assert later.status == "skipped"
    outbox.writes_stop(user=triager, stopped=False)
    assert deliver(plan(issue, Op.ADD_LABELS, "l3", {"labels": ["x"]})).status == "done"
    assert emulator.count(path_contains="/labels") == 1


def test_a_template_that_does_not_render_is_refused():
    with pytest.raises(reply_templates.TemplateInvalid, match="does not compile"):
        reply_templates.template_validate(name="needs_info.ask", body="{% for x in %}")
    with pytest.raises(reply_templates.TemplateInvalid, match="a variable it does not get"):
        reply_templates.template_validate(name="needs_info.ask", body="Hi {{ reporterr }}")
    body = "Hi @{{ reporter }}, we need {{ missing|join:', ' }}."
    assert reply_templates.template_validate(name="needs_info.ask", body=body) == body


def test_the_admins_template_is_the_one_posted(db):
    from automation.outbox.models import ReplyTemplate

    ReplyTemplate.objects.update_or_create(
        name="needs_info.ask", defaults={"body": "Need: {{ missing|join:' and ' }}"}
    )
    text = reply_templates.render("needs_info.ask", missing=["a", "b"], reporter="x")
    assert text == "Need: a and b"


def test_a_close_takes_githubs_times_so_a_stale_delivery_does_not_reopen_it(issue, emulator):
    from triage.sources.github import ingest

    stale = emulator.issue(REPO, 7)  # as a delivery sent before the close carries it
    issue.external_id = str(stale["id"])
    issue.save(update_fields=["external_id"])
    deliver(plan(issue, Op.CLOSE, "c", {"state_reason": "not_planned"}, "needs_info.close"))
    issue.refresh_from_db()
    assert issue.state == "closed" and issue.closed_at is not None
    ingest.issues_upsert(repository=issue.repository, items=[stale])
    issue.refresh_from_db()
    assert issue.state == "closed"


# --- the sweep: writes left pending ----------------------------------------------------------


@pytest.fixture
def broker_down():
    """Tasks go through a broker (not in-process), and the broker does not answer: every
    enqueue fails, as with Redis down. Back to the in-process default after the test."""
    from config.celery import app

    def use(eager: bool, url: str) -> None:
        app.conf.task_always_eager, app.conf.broker_url = eager, url
        app._pool = app.amqp._producer_pool = None  # the next enqueue connects to `url`

    before = (app.conf.task_always_eager, app.conf.broker_url)
    use(False, "redis://127.0.0.1:1/0")
    try:
        yield lambda: use(*before)  # the broker is back
    finally:
        use(*before)


def sent(emulator, method: str, path: str) -> int:
    """Requests GitHub carried out (not those a rate limit refused)."""
    return sum(
        1
        for r in emulator.requests
        if r["method"] == method and path in r["path"] and r["status"] < 400
    )


def later(minutes: float):
    from datetime import timedelta

    from django.utils import timezone

    return timezone.now() + timedelta(minutes=minutes)


def test_a_write_whose_task_was_lost_with_the_broker_is_sent_once_by_the_sweep(
    issue, emulator, broker_down, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        row = plan(issue, Op.COMMENT, "ask", {"body": "Please add X.", "marker": "ask"})
    row.refresh_from_db()
    assert row.status == "pending" and not emulator.requests, "not queued, not sent"
    broker_down()  # back
    assert outbox.writes_pending_resend() == 0, "its own task may still come (the grace)"
    assert outbox.writes_pending_resend(now=later(3)) == 1
    row.refresh_from_db()
    assert row.status == "done"
    [comment] = emulator.comments(REPO, 7)
    assert comment["body"] == f"Please add X.\n\n{outbox.marker('ask')}"
    assert outbox.writes_pending_resend(now=later(3)) == 0
    assert outbox.writes_pending_resend(now=later(60)) == 0
    assert sent(emulator, "POST", "/comments") == 1


def test_a_rate_limited_write_in_process_is_sent_by_the_sweep_after_the_reset_once(
    issue, emulator, django_capture_on_commit_callbacks
):
    emulator.set_rate_limit(0, int(time.time()) + 120)
    with django_capture_on_commit_callbacks(execute=True):  # in-process: no task comes back
        row = plan(issue, Op.ADD_LABELS, "l", {"labels": ["needs info"]})
    row.refresh_from_db()
    assert row.status == "pending" and row.not_before > later(1.5), "waits for the reset"
    assert outbox.writes_pending_resend(now=later(3)) == 0, "not before the reset"
    emulator.reset_rate_limit()
    assert outbox.writes_pending_resend(now=later(5)) == 1
    row.refresh_from_db()
    assert row.status == "done"
    assert [lb["name"] for lb in emulator.issue(REPO, 7)["labels"]] == ["needs info"]
    assert outbox.writes_pending_resend(now=later(5)) == 0
    assert sent(emulator, "POST", "/labels") == 1


def test_a_send_interrupted_past_its_lease_is_finished_by_editing_the_bots_comment(issue, emulator):
    row = plan(issue, Op.COMMENT, "ask", {"body": "Please add X.", "marker": "ask"})
    outbox._claim(row.pk)  # a worker took it, posted the comment, and died before recording it
    emulator.add_comment(REPO, 7, body=f"Please add X.\n\n{outbox.marker('ask')}", user=BOT)
    assert outbox.write_deliver(write_id=row.pk) is None, "another task: the send holds it"
    assert outbox.writes_pending_resend(now=later(10)) == 0, "its lease is not over"
    assert outbox.writes_pending_resend(now=later(20)) == 1
    row.refresh_from_db()
    [comment] = emulator.comments(REPO, 7)
    assert row.status == "done" and row.github_id == comment["id"]
    assert sent(emulator, "POST", "/comments") == 0, "edited, not posted again"


def test_while_writes_are_stopped_the_sweep_sends_nothing_and_skips_what_waits(
    issue, emulator, broker_down, settings, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        row = plan(issue, Op.ADD_LABELS, "l", {"labels": ["needs info"]})
    broker_down()  # back
    settings.GITHUB_WRITES_STOPPED = True
    assert outbox.writes_pending_resend(now=later(3)) == 0
    row.refresh_from_db()
    assert row.status == "skipped" and "GITHUB_WRITES_STOPPED" in row.detail
    settings.GITHUB_WRITES_STOPPED = False
    assert outbox.writes_pending_resend(now=later(10)) == 0
    assert not emulator.requests
