"""Needs-info through the outbox: PyGithub's requests to the emulator, the audit rows, the clock."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from automation.needs_info import services as needs_info
from automation.needs_info.models import NeedsInfo
from automation.outbox import services as outbox
from automation.outbox.models import GitHubWrite
from triage.models import IssuePrediction

REPO = "ROCm/ROCm"
BOT = "rocm-triage-bot"
ALL_ACTIONS = ["needs_info.ask", "needs_info.label", "needs_info.remind", "needs_info.close"]

BARE_REPORT = "hipMemcpy returns an error after a few iterations and the program exits."
FULL_REPORT = """### Problem Description
The training loop segfaults in hipblasLt after the first step.

### Operating System
Ubuntu 24.04 LTS

### GPU
AMD Instinct MI300X

### ROCm Version
ROCm 6.2.0

### Steps to Reproduce
```
python3 train.py --model llama --batch 8
```

### rocminfo --support output
```
Agent 2
  Name:                    gfx942
  Marketing Name:          AMD Instinct MI300X
  Device Type:             GPU
```
"""


@pytest.fixture
def repository(opt_in):
    return opt_in(ALL_ACTIONS)


def bug(make, emulator, repository, number, body, *, author="reporter1", **fields):
    """A new bug on GitHub and here, its kind predicted, its environment extracted."""
    emulator.add_issue(REPO, number=number, title=f"Crash {number}", body=body, user=author)
    issue = make.issue(
        repository=repository,
        number=number,
        title=f"Crash {number}",
        body=body,
        author=author,
        created_at=timezone.now() - timedelta(hours=2),
        **fields,
    )
    IssuePrediction.objects.create(issue=issue, model_name="kind", label="bug", confidence=0.95)
    refresh_environment(issue)
    return issue


def refresh_environment(issue):
    from triage.services import classification

    IssuePrediction.objects.filter(issue=issue, model_name="environment").delete()
    classification.issues_environment_refresh(ids=[issue.pk])


def refresh(issue, capture):
    with capture(execute=True):
        needs_info.needs_info_refresh(ids=[issue.pk])


def bot_comments(emulator, number):
    return [c for c in emulator.comments(REPO, number) if c["user"]["login"] == BOT]


def labels(emulator, number):
    return [label["name"] for label in emulator.issue(REPO, number)["labels"]]


def test_it_asks_once_for_exactly_what_is_missing_and_labels_the_issue(
    make, emulator, repository, django_capture_on_commit_callbacks
):
    issue = bug(make, emulator, repository, 20, BARE_REPORT)
    refresh(issue, django_capture_on_commit_callbacks)
    [comment] = bot_comments(emulator, 20)
    assert "ROCm version" in comment["body"] and "operating system" in comment["body"]
    assert "gfx target" in comment["body"] and "rocminfo --support" in comment["body"]
    assert outbox.marker("needs-info") in comment["body"], "hidden marker to find it again"
    assert labels(emulator, 20) == ["needs info"]
    state = NeedsInfo.objects.get(issue=issue)
    assert state.state == "asking"
    assert state.missing == ["gpu", "rocm_version", "os", "steps", "rocminfo"]
    rows = GitHubWrite.objects.filter(issue=issue).order_by("id")
    assert [(r.operation, r.status, r.decided_by) for r in rows] == [
        ("comment", "done", "rule needs-info"),
        ("add_labels", "done", "rule needs-info"),
    ]
    # a redelivery of the same event, a retried task: nothing new on GitHub
    posts = emulator.count(path_contains="/issues/20/")
    refresh(issue, django_capture_on_commit_callbacks)
    assert emulator.count(path_contains="/issues/20/") == posts
    assert GitHubWrite.objects.filter(issue=issue).count() == 2


def test_a_complete_report_is_not_asked_anything(
    make, emulator, repository, django_capture_on_commit_callbacks
):
    issue = bug(make, emulator, repository, 21, FULL_REPORT)
    refresh(issue, django_capture_on_commit_callbacks)
    assert needs_info.completeness(issue).missing == []
    assert bot_comments(emulator, 21) == []
    assert not NeedsInfo.objects.filter(issue=issue).exists()


def test_the_comment_is_edited_as_facts_arrive_then_the_label_goes(
    make, emulator, repository, django_capture_on_commit_callbacks
):
    issue = bug(make, emulator, repository, 22, BARE_REPORT)
    refresh(issue, django_capture_on_commit_callbacks)
    # the reporter answers part of it in a comment
    make.comment(
        issue, author="reporter1", body="Ubuntu 22.04, ROCm 6.1.2 on an RX 7900 XTX (gfx1100)."
    )
    refresh_environment(issue)
    refresh(issue, django_capture_on_commit_callbacks)
    [comment] = bot_comments(emulator, 22)
    assert "ROCm version" not in comment["body"] and "steps to reproduce" in comment["body"]
    assert "rocminfo --support" not in comment["body"], "the GPU is named: no report needed"
    assert NeedsInfo.objects.get(issue=issue).missing == ["steps"]
    # then edits the issue with a script and rocminfo's output
    issue.body = FULL_REPORT
    issue.save()
    refresh_environment(issue)
    refresh(issue, django_capture_on_commit_callbacks)
    [comment] = bot_comments(emulator, 22)  # still one comment: edited, never reposted
    assert comment["body"].startswith("Thanks, @reporter1: the report now has what triage needs")
    assert labels(emulator, 22) == []
    assert NeedsInfo.objects.get(issue=issue).state == "satisfied"


def test_maintainers_issues_and_issues_of_repositories_not_opted_in_are_left_alone(
    make, emulator, repository, django_capture_on_commit_callbacks
):
    own = bug(make, emulator, repository, 23, BARE_REPORT, author_association="MEMBER")
    refresh(own, django_capture_on_commit_callbacks)
    other = make.repository("ROCm/HIP")
    emulator.add_repo("ROCm/HIP")
    issue = make.issue(repository=other, number=5, body=BARE_REPORT)
    IssuePrediction.objects.create(issue=issue, model_name="kind", label="bug", confidence=0.9)
    refresh(issue, django_capture_on_commit_callbacks)
    assert emulator.count(path_contains="/comments") == 0
    assert GitHubWrite.objects.count() == 0


def test_an_action_not_opted_in_is_audited_as_skipped_and_a_dry_run_as_planned(
    make, emulator, repository, django_capture_on_commit_callbacks
):
    repository.github_actions = ["needs_info.ask"]
    repository.github_dry_run = True
    repository.save()
    issue = bug(make, emulator, repository, 24, BARE_REPORT)
    refresh(issue, django_capture_on_commit_callbacks)
    rows = {r.operation: r for r in GitHubWrite.objects.filter(issue=issue)}
    assert rows["comment"].status == "planned"
    assert rows["comment"].detail.startswith("dry run: would comment on ROCm/ROCm#24")
    assert rows["add_labels"].status == "skipped"
    assert (
        "has not opted in to: add the 'needs info' label while facts are missing, remove it after"
        in rows["add_labels"].detail
    )
    assert emulator.count(path_contains="/issues/24/") == 0, "a dry run writes nothing"


def test_the_global_switch_stops_every_write(
    make, emulator, repository, django_capture_on_commit_callbacks, triager
):
    outbox.writes_stop(user=triager, reason="bot misbehaving")
    issue = bug(make, emulator, repository, 25, BARE_REPORT)
    refresh(issue, django_capture_on_commit_callbacks)
    assert emulator.count(path_contains="/issues/25/") == 0
    assert {r.status for r in GitHubWrite.objects.filter(issue=issue)} == {"skipped"}
    assert "stopped by tess" in GitHubWrite.objects.filter(issue=issue).first().detail


def test_a_silent_reporter_is_reminded_once_then_the_issue_is_closed_as_not_planned(
    make, emulator, repository, django_capture_on_commit_callbacks
):
    issue = bug(make, emulator, repository, 26, BARE_REPORT)
    refresh(issue, django_capture_on_commit_callbacks)
    asked = NeedsInfo.objects.get(issue=issue).asked_at
    with django_capture_on_commit_callbacks(execute=True):
        needs_info.needs_info_sweep(now=asked + timedelta(days=13))
    assert len(bot_comments(emulator, 26)) == 1, "not before 14 days"
    with django_capture_on_commit_callbacks(execute=True):
        needs_info.needs_info_sweep(now=asked + timedelta(days=14, hours=1))
        needs_info.needs_info_sweep(now=asked + timedelta(days=15))
    comments = bot_comments(emulator, 26)
    assert len(comments) == 2 and "will be closed in 14 days" in comments[1]["body"]
    with django_capture_on_commit_callbacks(execute=True):
        needs_info.needs_info_sweep(now=asked + timedelta(days=28))
    assert emulator.issue(REPO, 26)["state"] == "open", "14 days after the reminder, not before"
    with django_capture_on_commit_callbacks(execute=True):
        needs_info.needs_info_sweep(now=asked + timedelta(days=28, hours=2))
        needs_info.needs_info_sweep(now=asked + timedelta(days=40))
    github = emulator.issue(REPO, 26)
    assert (github["state"], github["state_reason"]) == ("closed", "not_planned")
    comments = bot_comments(emulator, 26)
    assert len(comments) == 3 and "reopen" in comments[2]["body"]
    assert NeedsInfo.objects.get(issue=issue).state == "closed"
    issue.refresh_from_db()
    assert (issue.state, issue.state_reason) == ("closed", "not_planned")


@pytest.mark.parametrize(
    ("case", "expected"),
    [("severity", "severity high"), ("regression", "a regression"), ("maintainer", None)],
)
def test_serious_regressed_or_answered_issues_are_never_closed(
    make, emulator, repository, django_capture_on_commit_callbacks, case, expected
):
    body = BARE_REPORT + (
        " It worked in ROCm 6.1, this is a regression." if case == "regression" else ""
    )
    issue = bug(make, emulator, repository, 27, body)
    if case == "severity":
        IssuePrediction.objects.create(issue=issue, model_name="severity", label="high")
    refresh(issue, django_capture_on_commit_callbacks)
    state = NeedsInfo.objects.get(issue=issue)
    if case == "maintainer":
        make.comment(
            issue,
            author="maintainer1",
            author_association="MEMBER",
            body="Looks like the known hipMemcpy issue, looking into it.",
            created_at=state.asked_at + timedelta(days=1),
        )
    report = needs_info.NeedsInfoReport()
    for days in (15, 30, 45):
        with django_capture_on_commit_callbacks(execute=True):
            report = needs_info.needs_info_sweep(now=state.asked_at + timedelta(days=days))
    assert emulator.issue(REPO, 27)["state"] == "open"
    state.refresh_from_db()
    if expected:
        assert state.state == "reminded"
        assert report.counts == {"kept open": 1}
        assert report.lines[0].endswith(f"ROCm/ROCm#27: {expected}")
    else:
        assert state.state == "answered"


def test_the_reporter_answering_restarts_the_clock(
    make, emulator, repository, django_capture_on_commit_callbacks
):
    issue = bug(make, emulator, repository, 28, BARE_REPORT)
    refresh(issue, django_capture_on_commit_callbacks)
    asked = NeedsInfo.objects.get(issue=issue).asked_at
    make.comment(
        issue,
        author="reporter1",
        body="I will try to get the logs.",
        created_at=asked + timedelta(days=10),
    )
    with django_capture_on_commit_callbacks(execute=True):
        needs_info.needs_info_sweep(now=asked + timedelta(days=15))
    assert NeedsInfo.objects.get(issue=issue).state == "asking"
    with django_capture_on_commit_callbacks(execute=True):
        needs_info.needs_info_sweep(now=asked + timedelta(days=24, hours=1))
    assert NeedsInfo.objects.get(issue=issue).state == "reminded"


def test_the_command_lists_the_outbox_and_previews_needs_info_without_writing(
    make, emulator, repository, django_capture_on_commit_callbacks
):
    import io

    from django.core.management import call_command

    asked = bug(make, emulator, repository, 30, BARE_REPORT)
    refresh(asked, django_capture_on_commit_callbacks)
    bug(make, emulator, repository, 31, BARE_REPORT.replace("hipMemcpy", "hipMalloc"))
    out = io.StringIO()
    call_command("github_writes", REPO, "--status", "done", stdout=out)
    assert "done     comment on ROCm/ROCm#30" in out.getvalue()
    assert "2 write(s)" in out.getvalue()
    requests = emulator.count()
    out = io.StringIO()
    call_command("github_writes", REPO, "--preview-needs-info", stdout=out)
    assert "would ask ROCm/ROCm#31: gpu, rocm_version, os, steps, rocminfo" in out.getvalue()
    assert emulator.count() == requests and GitHubWrite.objects.count() == 2


def test_the_daily_sweep_reads_the_waiting_issues_comments_in_one_query_not_one_each(
    make, emulator, repository, django_capture_on_commit_callbacks, django_assert_max_num_queries
):
    for number in range(40, 52):
        issue = bug(make, emulator, repository, number, BARE_REPORT)
        refresh(issue, django_capture_on_commit_callbacks)
        make.comment(issue=issue, body="Any update on this?", author=f"watcher{number}")
    asked = NeedsInfo.objects.order_by("asked_at").first().asked_at
    with django_assert_max_num_queries(8):  # twelve issues waiting, none due
        report = needs_info.needs_info_sweep(now=asked + timedelta(days=3))
    assert not report.lines


def test_a_closing_not_opted_in_keeps_following_the_reporter_and_closes_once_opted_in(
    make, emulator, repository, django_capture_on_commit_callbacks
):
    """A repository that asks, labels and reminds but does not let the bot close: the issue
    stays open on GitHub, so the service must go on editing its comment and the label as the
    reporter answers, and must close it when closing is opted in later."""
    repository.github_actions = ["needs_info.ask", "needs_info.label", "needs_info.remind"]
    repository.save()
    issue = bug(make, emulator, repository, 29, BARE_REPORT)
    refresh(issue, django_capture_on_commit_callbacks)
    asked = NeedsInfo.objects.get(issue=issue).asked_at
    with django_capture_on_commit_callbacks(execute=True):
        needs_info.needs_info_sweep(now=asked + timedelta(days=15))
        report = needs_info.needs_info_sweep(now=asked + timedelta(days=30))
        needs_info.needs_info_sweep(now=asked + timedelta(days=31))
    assert emulator.issue(REPO, 29)["state"] == "open"
    assert NeedsInfo.objects.get(issue=issue).state == "reminded", "still waiting"
    assert report.counts == {"kept open": 1}
    assert GitHubWrite.objects.filter(issue=issue, operation="close").count() == 1
    # the reporter answers everything afterwards: thanked, and the label goes
    issue.body = FULL_REPORT
    issue.save()
    refresh_environment(issue)
    refresh(issue, django_capture_on_commit_callbacks)
    assert labels(emulator, 29) == []
    assert NeedsInfo.objects.get(issue=issue).state == "satisfied"


def test_a_closing_opted_in_later_closes_the_silent_issue_then(
    make, emulator, repository, django_capture_on_commit_callbacks
):
    repository.github_actions = ["needs_info.ask", "needs_info.remind"]
    repository.save()
    issue = bug(make, emulator, repository, 30, BARE_REPORT)
    refresh(issue, django_capture_on_commit_callbacks)
    asked = NeedsInfo.objects.get(issue=issue).asked_at
    with django_capture_on_commit_callbacks(execute=True):
        needs_info.needs_info_sweep(now=asked + timedelta(days=15))
        needs_info.needs_info_sweep(now=asked + timedelta(days=30))
    repository.github_actions = [*repository.github_actions, "needs_info.close"]
    repository.save()
    with django_capture_on_commit_callbacks(execute=True):
        needs_info.needs_info_sweep(now=asked + timedelta(days=31))
    github = emulator.issue(REPO, 30)
    assert (github["state"], github["state_reason"]) == ("closed", "not_planned")
    assert NeedsInfo.objects.get(issue=issue).state == "closed"


# --- asks that never embarrass --------------------------------------------------------------

FORM_REPORT = """### Problem Description
vLLM serving dies after the first batch with a memory access fault.

### Operating System
Ubuntu 24.04.2 LTS

### CPU
AMD EPYC 9575F

### GPU
AMD Instinct MI325X

### ROCm Version
ROCm 7.3.0

### Steps to Reproduce
1. `vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 8`
2. send 64 requests at once
"""


def test_a_persons_request_on_a_report_that_gives_everything_is_refused_not_sent(
    make, emulator, repository, django_capture_on_commit_callbacks
):
    issue = bug(make, emulator, repository, 40, FORM_REPORT)
    assert needs_info.completeness(issue).missing == []
    with pytest.raises(needs_info.NothingToAsk, match="the report gives gpu, rocm_version, os"):
        needs_info.needs_info_request(issue=issue, by="maintainer")
    assert not NeedsInfo.objects.filter(issue=issue).exists()
    assert not GitHubWrite.objects.filter(issue=issue).exists()


def test_a_fact_named_in_a_form_the_extraction_cannot_read_is_unclear_never_asked(
    make, emulator, repository, django_capture_on_commit_callbacks
):
    body = "rocminfo dies on my box.\n\n**GPU:** RX550 4GB\n**OS:** Debian 12\n\nAdrenalin 24.12.1"
    issue = bug(make, emulator, repository, 41, body)
    read = needs_info.completeness(issue)
    assert {"gpu", "rocminfo", "rocm_version"} <= set(read.unclear)
    assert "issue body" in read.unclear["gpu"]
    refresh(issue, django_capture_on_commit_callbacks)
    [comment] = bot_comments(emulator, 41)
    assert "gfx target" not in comment["body"] and "ROCm version" not in comment["body"]
    assert "steps to reproduce" in comment["body"]


def test_only_the_reporters_new_words_are_read_again_never_a_reclassification(
    make, emulator, repository, django_capture_on_commit_callbacks
):
    issue = bug(make, emulator, repository, 42, BARE_REPORT)
    refresh(issue, django_capture_on_commit_callbacks)
    state = NeedsInfo.objects.get(issue=issue)
    asked = state.missing
    # the service's reading changes (a new rule, a retrained model) but the reporter said nothing
    IssuePrediction.objects.filter(issue=issue, model_name="environment").update(
        evidence={"architectures": ["gfx942"], "rocm_version": "6.2.0", "os": "Ubuntu 24.04"}
    )
    refresh(issue, django_capture_on_commit_callbacks)
    state.refresh_from_db()
    assert (state.state, state.missing, state.revision) == ("asking", asked, 1)
    [comment] = bot_comments(emulator, 42)
    assert "now has what triage needs" not in comment["body"]
    # the reporter writes: now what they wrote is read, with everything else
    make.comment(
        issue=issue,
        author=issue.author,
        body="GPU is an MI300X (gfx942), ROCm 6.2.0 on Ubuntu 24.04; `python3 repro.py`",
    )
    refresh_environment(issue)
    refresh(issue, django_capture_on_commit_callbacks)
    state.refresh_from_db()
    assert state.state == "satisfied" and state.revision == 2
