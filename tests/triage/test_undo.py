"""Undo: a triager takes back their own latest decision, in the queue row or on the issue page."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from triage.models import IssuePrediction, PredictionCorrection, TriageAction
from triage.services import classification, priority


@pytest.fixture
def issue(make):
    issue = make.issue(number=21, title="Hang in rccl allreduce")
    make.priority(issue, 35)
    IssuePrediction.objects.create(
        issue=issue, model_name="kind", label="question", confidence=0.6, needs_triage=True
    )
    return issue


def decide(client, issue, model, label):
    url = reverse("prediction-decide", args=["ROCm", "ROCm", issue.number, model])
    return client.post(url, {"label": label, "partial": "queue-row"}, HTTP_HX_REQUEST="true")


def test_the_queue_row_offers_undo_and_undo_restores_the_prediction(triager_client, issue):
    row = decide(triager_client, issue, "kind", "bug").content.decode()
    correction = PredictionCorrection.objects.get()
    assert "kind corrected to bug" in row and reverse("decision-undo", args=[correction.pk]) in row
    undo = triager_client.post(
        reverse("decision-undo", args=[correction.pk]),
        {"partial": "queue-row"},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert "kind decision undone" in undo and "Undo" not in undo.split("row-decided")[1][:400]
    assert not PredictionCorrection.objects.exists(), "an undone decision trains nothing"
    # made again as if the decision had not been: kind's rules read a hang, a bug report
    kind = IssuePrediction.objects.get(issue=issue, model_name="kind")
    assert (kind.label, kind.model_version) == ("bug", "rules")
    assert "decided_by" not in kind.evidence
    assert TriageAction.objects.get().action == "decision.undo"


def test_a_priority_override_is_undone_to_the_computed_score(triager_client, triager, issue):
    priority.issues_prioritize(ids=[issue.pk])
    computed = issue.priority.__class__.objects.get(issue=issue).score
    correction = priority.priority_override(issue=issue, label="99", user=triager)
    assert classification.decision_undo(correction=correction, user=triager) == (
        "Priority override undone."
    )
    issue.refresh_from_db()
    assert issue.priority_score == computed


def test_only_ones_own_latest_decision_within_the_window_can_be_undone(
    triager, django_user_model, issue
):
    other = django_user_model.objects.create_user("olga")
    first = classification.prediction_correct(
        issue=issue, model_name="kind", label="bug", user=triager
    )
    second = classification.prediction_correct(
        issue=issue, model_name="kind", label="feature", user=other
    )
    for correction, user in ((first, triager), (second, triager)):
        with pytest.raises(classification.UndoError, match="only your own latest decision"):
            classification.decision_undo(correction=correction, user=user)
    PredictionCorrection.objects.filter(pk=second.pk).update(
        created_at=timezone.now() - timedelta(minutes=11)
    )
    with pytest.raises(classification.UndoError):
        classification.decision_undo(correction=second, user=other)
    assert PredictionCorrection.objects.count() == 2


def test_a_confirmed_duplicate_is_undone_to_the_indexs_own_suggestion(make, triager_client):
    import io

    from django.core.management import call_command

    from tests.triage.classification_data import labelled_issues

    labelled_issues(make)
    original = make.issue(
        number=501,
        title="hipMalloc returns hipErrorOutOfMemory on MI300X with 190 GB free",
        body="rocm-smi shows 190 GB free; hipMalloc of 4 GB fails with hipErrorOutOfMemory.",
    )
    copy = make.issue(
        number=502,
        title="hipMalloc fails with hipErrorOutOfMemory on MI300X though memory is free",
        body="Allocating 4 GB with hipMalloc fails; rocm-smi says 190 GB free on MI300X.",
    )
    call_command("train_classifier", "duplicates", stdout=io.StringIO())
    classification.issues_classify(ids=[copy.pk])
    suggested = IssuePrediction.objects.get(issue=copy, model_name="duplicates")

    decide(triager_client, copy, "duplicates", original.reference)
    correction = PredictionCorrection.objects.get(issue=copy)
    undo = triager_client.post(
        reverse("decision-undo", args=[correction.pk]),
        {"partial": "queue-row"},
        HTTP_HX_REQUEST="true",
    )

    assert undo.status_code == 200
    assert "duplicates decision undone" in undo.content.decode()
    assert not PredictionCorrection.objects.filter(issue=copy).exists()
    restored = IssuePrediction.objects.get(issue=copy, model_name="duplicates")
    assert (restored.label, restored.evidence["candidates"]) == (
        suggested.label,
        suggested.evidence["candidates"],
    )
