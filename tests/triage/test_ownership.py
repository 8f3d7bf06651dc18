"""Ownership rules route sure issues to their owners (assigned on GitHub, opted in; told by
e-mail and the webhook), and new critical issues, regressions and overdue issues escalate once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.fakes.github_api import github_for_settings
from tests.fakes.slack_webhook import SlackWebhookReceiver
from triage.models import GitHubWrite, IssuePrediction, OwnerNotification, OwnershipRule
from triage.services import ownership

REPO = "ROCm/ROCm"


@pytest.fixture
def emulator(settings):
    with github_for_settings(settings, token="ow-token", login="rocm-triage-bot") as emu:
        emu.add_repo(REPO)
        yield emu


@pytest.fixture
def repository(make):
    repository = make.repository(REPO)
    repository.github_actions = ["ownership.assign"]
    repository.github_dry_run = False
    repository.save()
    return repository


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
    for issue in (late, answered, fresh):
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
