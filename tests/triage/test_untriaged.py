"""One definition of "untriaged": the home page, the queue's filter, the API and the readiness
report's rule agree on every kind of issue."""

import pytest

from releases.selectors import issue_facts, predictions_for
from triage.models import IssuePrediction
from triage.selectors.home import triage_summary

pytestmark = pytest.mark.django_db


def _issue(make, title, labels=(), **predictions):
    issue = make.issue(title=title, labels=labels)
    for model_name, label in predictions.items():
        IssuePrediction.objects.create(
            issue=issue,
            model_name=model_name,
            label=label.rstrip("?"),
            confidence=0.5,
            needs_triage=label.endswith("?"),
        )
    return issue


def test_home_queue_api_and_readiness_count_the_same_issues(make, logged_in_client):
    issues = [
        _issue(make, "settled kind", kind="bug"),
        _issue(make, "unsure kind", kind="feature?"),
        _issue(make, "nothing at all"),
        _issue(make, "labelled by a person", labels=["bug"]),
        _issue(make, "unsure environment only", kind="bug", environment="gfx942?"),
        _issue(make, "unsure severity", kind="bug", severity="high?"),
        _issue(make, "settled, still labelled for triage", labels=["status: triage"], kind="bug"),
    ]
    expected = {"unsure kind", "nothing at all", "unsure severity"}

    assert triage_summary()["untriaged"] == len(expected)
    page = logged_in_client.get("/triage/?needs_triage=on").content.decode()
    assert {i.title for i in issues if i.title in page} == expected
    assert logged_in_client.get("/api/dashboard/").json()["untriaged"] == len(expected)
    predictions = predictions_for([i.id for i in issues])
    by_readiness = {
        i.title
        for i in issues
        if "untriaged"
        in issue_facts([lb.name for lb in i.labels.all()], predictions.get(i.id, {}))["kinds"]
    }
    assert by_readiness == expected
