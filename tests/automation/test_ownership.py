"""Ownership rules route sure issues to their owners (assigned on GitHub, opted in; told by
e-mail and the webhook), and new critical issues, regressions and overdue issues escalate once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from automation.outbox.models import GitHubWrite
from automation.ownership import services as ownership
from automation.ownership.models import OwnerNotification, OwnershipRule
from tests.fakes.slack_webhook import SlackWebhookReceiver
from triage.models import IssuePrediction, Repository

REPO = "ROCm/ROCm"


@pytest.fixture
def repository(opt_in):
    # tracked a month ago: the issues the tests open (two days ago by default) are news to it,
    # not the history its first sync read (Repository.since_tracked)
    return opt_in(["ownership.assign"], added_at=timezone.now() - timedelta(days=30))


@pytest.fixture
def rules(repository):
    OwnershipRule.objects.create(kind="component", pattern="rocblas", owners="@alice", order=10)
    OwnershipRule.objects.create(
        kind="gpu_family", pattern="CDNA3", owners="@bob @ROCm/mi300-team", order=20
    )
    OwnershipRule.objects.create(
        repository=repository, kind="label", pattern="hip*", owners="@carol", order=30
    )


def predict(issue, **labels):
    for model_name, (label, confidence) in labels.items():
        IssuePrediction.objects.update_or_create(
            issue=issue,
            model_name=model_name,
            defaults={"label": label, "confidence": confidence, "needs_triage": False},
        )


def test_the_last_matching_rule_wins_as_in_codeowners(make, repository, rules):
    issue = make.issue(repository=repository, number=1)
    predict(issue, component=("rocblas", 0.95), environment=("gfx942", 0.9))
    assert ownership.owners_of(issue)[0] == ["bob", "ROCm/mi300-team"]
    predict(issue, environment=("gfx1100", 0.9))
    assert ownership.owners_of(issue)[0] == ["alice"]
    labelled = make.issue(repository=repository, number=2, labels=["hipBLASLt"])
    predict(labelled, component=("rocblas", 0.95))
    assert ownership.owners_of(labelled)[0] == ["carol"]
    unsure = make.issue(repository=repository, number=3)
    predict(unsure, component=("rocblas", 0.5))
    assert ownership.owners_of(unsure)[0] == [], "an unsure component routes nowhere"


def test_a_sure_issue_is_assigned_on_github_and_its_owners_told_once(
    make,
    emulator,
    repository,
    rules,
    django_user_model,
    mailoutbox,
    settings,
    django_capture_on_commit_callbacks,
):
    emulator.add_collaborator(REPO, "alice")
    django_user_model.objects.create_user("alice", email="alice@example.com")
    emulator.add_issue(REPO, number=5, title="gemm <!channel> slow", user="reporter1")
    issue = make.issue(repository=repository, number=5, title="gemm <!channel> slow")
    predict(issue, component=("rocblas", 0.95))
    with SlackWebhookReceiver() as slack:
        settings.SPIKE_SLACK_WEBHOOK_URL = slack.url
        with django_capture_on_commit_callbacks(execute=True):
            report = ownership.ownership_route(ids=[issue.pk])
            ownership.ownership_route(ids=[issue.pk])  # a redelivery: nothing twice
        posted = [m["text"] for m in slack.messages]
    assert report.routed == ["ROCm/ROCm#5 -> alice"]
    assert [a["login"] for a in emulator.issue(REPO, 5)["assignees"]] == ["alice"]
    assert GitHubWrite.objects.get().status == "done"
    assert [m.to for m in mailoutbox] == [["alice@example.com"]]
    assert len(posted) == 1 and "&lt;!channel&gt;" in posted[0] and "<!channel>" not in posted[0]
    assert OwnerNotification.objects.get().kind == "routed"


def test_a_new_critical_issue_escalates_once_with_the_escalation_list(
    make, repository, rules, mailoutbox, settings
):
    settings.OWNERSHIP_ESCALATION_EMAILS = ["oncall@example.com"]
    issue = make.issue(repository=repository, number=6, title="MI300X hangs the node")
    predict(issue, environment=("gfx942", 0.9), severity=("critical", 1.0))
    first = ownership.ownership_route(ids=[issue.pk])
    again = ownership.ownership_route(ids=[issue.pk])
    assert first.escalated == ["ROCm/ROCm#6: a new critical issue"] and again.escalated == []
    escalation = [m for m in mailoutbox if "escalated" in m.subject]
    assert len(escalation) == 1 and escalation[0].to == ["oncall@example.com"]


def test_an_issue_past_its_deadline_escalates_unless_a_maintainer_answered(
    make, repository, rules, mailoutbox
):
    now = timezone.now()
    late = make.issue(repository=repository, number=7, created_at=now - timedelta(hours=80))
    answered = make.issue(repository=repository, number=8, created_at=now - timedelta(hours=80))
    fresh = make.issue(repository=repository, number=9, created_at=now - timedelta(hours=10))
    # opened two years before the repository was tracked: history, not overdue
    history = make.issue(repository=repository, number=10, created_at=now - timedelta(days=730))
    for issue in (late, answered, fresh, history):
        predict(issue, component=("rocblas", 0.95), severity=("high", 1.0))
    make.comment(answered, author="alice", author_association="MEMBER", body="Looking.")
    make.comment(
        late,
        author="rocm-triage-bot",
        author_association="OWNER",
        body="Thanks! <!-- rocm-triage:needs-info -->",
    )
    report = ownership.ownership_overdue_sweep(now=now)
    assert report.escalated == ["ROCm/ROCm#7: no maintainer response within 72 h (high)"]
    assert ownership.ownership_overdue_sweep(now=now).escalated == []


def test_a_backfill_of_years_old_open_issues_tells_and_assigns_no_one(
    make,
    emulator,
    repository,
    rules,
    django_user_model,
    mailoutbox,
    settings,
    django_capture_on_commit_callbacks,
):
    """A repository tracked today brings thousands of open issues of years past with its first
    sync: they are its history, not news. Routing and the overdue sweep leave them alone (no
    e-mail, no webhook post, no assignment on GitHub); an issue opened since is still routed,
    assigned and escalated."""
    now = timezone.now()
    Repository.objects.filter(pk=repository.pk).update(added_at=now - timedelta(minutes=5))
    repository.refresh_from_db()
    settings.OWNERSHIP_ESCALATION_EMAILS = ["oncall@example.com"]
    emulator.add_collaborator(REPO, "alice")
    django_user_model.objects.create_user("alice", email="alice@example.com")
    old = []
    for number, days in ((101, 2000), (102, 900), (103, 3)):
        created = now - timedelta(days=days)
        emulator.add_issue(REPO, number=number, title="MI300X hangs", created_at=created)
        old.append(make.issue(repository=repository, number=number, created_at=created))
    emulator.add_issue(REPO, number=104, title="gemm NaN since 6.3")
    fresh = make.issue(
        repository=repository, number=104, title="gemm NaN", created_at=now - timedelta(hours=2)
    )
    for issue in (*old, fresh):
        predict(issue, component=("rocblas", 0.95), severity=("critical", 1.0))
    ids = [issue.pk for issue in (*old, fresh)]
    with SlackWebhookReceiver() as slack:
        settings.SPIKE_SLACK_WEBHOOK_URL = slack.url
        with django_capture_on_commit_callbacks(execute=True):
            routed = ownership.ownership_route(ids=ids)
            overdue = ownership.ownership_overdue_sweep(now=now + timedelta(days=30))
        posted = [m["text"] for m in slack.messages]
    assert routed.routed == ["ROCm/ROCm#104 -> alice"]
    assert routed.escalated == ["ROCm/ROCm#104: a new critical issue"]
    assert overdue.escalated == ["ROCm/ROCm#104: no maintainer response within 24 h (critical)"]
    assert mailoutbox and all("ROCm/ROCm#104" in m.subject for m in mailoutbox)
    assert len(posted) == 3 and all("ROCm/ROCm#104" in text for text in posted)
    assert emulator.count(path_contains="/assignees") == 1
    assert [a["login"] for a in emulator.issue(REPO, 104)["assignees"]] == ["alice"]
    for number in (101, 102, 103):
        assert emulator.issue(REPO, number)["assignees"] == []
    assert not OwnerNotification.objects.exclude(issue=fresh).exists()
    assert not GitHubWrite.objects.exclude(issue=fresh).exists()


def test_an_issue_someone_has_is_not_assigned_on_github_but_its_owners_are_told(
    make,
    emulator,
    repository,
    rules,
    django_user_model,
    mailoutbox,
    django_capture_on_commit_callbacks,
):
    emulator.add_collaborator(REPO, "alice")
    django_user_model.objects.create_user("alice", email="alice@example.com")
    emulator.add_issue(REPO, number=11, title="gemm slow", assignees=["dave"])
    issue = make.issue(repository=repository, number=11, title="gemm slow")
    issue.assignees.add(make.person("dave"))
    predict(issue, component=("rocblas", 0.95))
    with django_capture_on_commit_callbacks(execute=True):
        report = ownership.ownership_route(ids=[issue.pk])
    assert report.routed == ["ROCm/ROCm#11 -> alice"]
    assert [m.to for m in mailoutbox] == [["alice@example.com"]]
    assert "already assigned to dave" in OwnerNotification.objects.get().detail
    assert not GitHubWrite.objects.exists()
    assert emulator.count(path_contains="/assignees") == 0
    assert [a["login"] for a in emulator.issue(REPO, 11)["assignees"]] == ["dave"]


@pytest.mark.parametrize(
    ("kind", "pattern", "owners", "why"),
    [
        ("component", "rocblas", "alice bob!", "not: bob!"),
        ("gpu_family", "CDNA9", "@alice", "a GPU family is one of"),
        ("label", "", "@alice", "say what the rule matches"),
    ],
)
def test_a_rule_that_cannot_work_is_refused(kind, pattern, owners, why):
    with pytest.raises(ownership.RuleInvalid, match=why):
        ownership.rule_validate(kind=kind, pattern=pattern, owners=owners)


def test_the_digest_goes_to_a_components_owners_else_the_fallback_list(
    make, repository, rules, django_user_model, settings
):
    django_user_model.objects.create_user("alice", email="alice@example.com")
    settings.RESPONSE_DIGEST_RECIPIENTS = ["triage-leads@example.com"]
    assert ownership.component_owner_emails("rocm/rocm", "rocBLAS") == ["alice@example.com"]
    assert ownership.component_owner_emails("ROCm/ROCm", "miopen") == ["triage-leads@example.com"]
