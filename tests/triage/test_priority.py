from datetime import timedelta

import pytest

from triage.models import IssuePrediction, IssuePriority
from triage.services import priority

pytestmark = pytest.mark.django_db


def predict(issue, model_name, label, needs_triage=False):
    IssuePrediction.objects.create(
        issue=issue, model_name=model_name, label=label, confidence=0.9, needs_triage=needs_triage
    )


def parts_of(issue):
    return {p["name"]: p for p in IssuePriority.objects.get(issue=issue).parts}


def test_the_parts_add_up_to_the_score(make):
    issue = make.issue(
        title="Regression: hipMemcpy hangs after upgrading to ROCm 7.1",
        created_at=make.now - timedelta(days=4),
    )
    predict(issue, "kind", "bug")
    predict(issue, "severity", "high")
    predict(issue, "environment", "gfx942 gfx1100")
    make.comment(issue, body="+1", author="a")
    make.comment(issue, body="+1, same here!", author="b")
    make.comment(issue, body="Same here on MI300X with ROCm 7.1", author="c")
    priority.issues_prioritize(ids=[issue.id])
    stored = IssuePriority.objects.get(issue=issue)
    parts = parts_of(issue)
    assert stored.score == sum(p["points"] for p in stored.parts)
    assert parts["kind"]["points"] == 15
    assert parts["severity"]["points"] == 18
    assert parts["regression"]["points"] == 10
    assert parts["architecture"]["points"] == 10  # the datacenter part counts
    assert parts["reach"]["why"] == "3 other commenters, 2 '+1' comments, 0 linked posts on X"
    assert parts["reach"]["points"] == 3 * 3 + 2 * 2
    assert parts["waiting"]["points"] == 4
    assert stored.score == 15 + 18 + 13 + 10 + 10 + 4


def test_a_maintainer_response_stops_the_waiting_clock(make):
    issue = make.issue(title="Question", created_at=make.now - timedelta(days=30))
    priority.issues_prioritize(ids=[issue.id])
    assert parts_of(issue)["waiting"]["points"] == 15
    make.comment(issue, body="Looking into it", author="maintainer", author_association="MEMBER")
    priority.issues_prioritize(ids=[issue.id])
    assert parts_of(issue)["waiting"]["points"] == 0
    assert parts_of(issue)["kind"]["why"] == "not classified"


def test_weights_are_configurable_and_the_score_is_capped_with_a_visible_part(make, settings):
    settings.PRIORITY_WEIGHTS = {"regression": 90, "kind": {"bug": 30}}
    issue = make.issue(title="Regression in rocBLAS", created_at=make.now - timedelta(days=1))
    predict(issue, "kind", "bug")
    priority.issues_prioritize(ids=[issue.id])
    stored = IssuePriority.objects.get(issue=issue)
    assert stored.score == 100
    assert sum(p["points"] for p in stored.parts) == 100
    assert parts_of(issue)["cap"]["points"] == 100 - (90 + 30 + 1)


def test_closed_issues_lose_their_priority(make):
    issue = make.issue(title="Crash")
    priority.issues_prioritize(ids=[issue.id])
    assert IssuePriority.objects.filter(issue=issue).exists()
    issue.state = "closed"
    issue.save()
    priority.issues_prioritize(ids=[issue.id])
    assert not IssuePriority.objects.filter(issue=issue).exists()
