import io

import pytest
from django.core.management import call_command
from django.test import Client

from classifiers import artifacts
from tests.triage.classification_data import labelled_issues
from triage.models import IssuePrediction, PredictionCorrection
from triage.services import classification, ingest, training_data

pytestmark = pytest.mark.django_db


def test_without_trained_models_only_rules_run_and_the_page_says_not_classified(
    make, logged_in_client
):
    issue = make.issue(title="Crash on MI300X", body="### ROCm Version\n\n6.4.1\n")
    report = classification.issues_classify(ids=[issue.id])
    assert report.skipped["kind"] == "not trained"
    assert list(IssuePrediction.objects.values_list("model_name", "label")) == [
        ("environment", "gfx942")
    ]
    page = logged_in_client.get(
        f"/issues/{issue.repository.full_name}/{issue.number}/"
    ).content.decode()
    assert "not classified" in page
    assert "6.4.1" in page


def test_ingestion_classifies_new_issues_once_models_are_trained(
    make, django_capture_on_commit_callbacks
):
    labelled_issues(make)
    call_command("train_classifier", "kind", stdout=io.StringIO())
    call_command("train_classifier", "duplicates", stdout=io.StringIO())
    repository = make.repository()
    item = {
        "number": 4242,
        "id": 99424242,
        "title": "rocBLAS crashes with segmentation fault on MI300X",
        "body": "Kernel launch fails with hipErrorIllegalAddress; stack trace attached",
        "state": "open",
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-02T00:00:00Z",
        "user": {"id": 7, "login": "reporter"},
        "labels": [],
    }
    with django_capture_on_commit_callbacks(execute=True):
        result = ingest.issues_upsert(repository=repository, items=[item])
    [issue_id] = result.changed_ids
    predictions = {p.model_name: p for p in IssuePrediction.objects.filter(issue_id=issue_id)}
    assert predictions["kind"].label == "bug"
    assert predictions["kind"].model_version == artifacts.active_version("kind")
    assert predictions["kind"].evidence["terms"]
    assert predictions["environment"].label == "gfx942"
    candidates = predictions["duplicates"].evidence["candidates"]
    assert 0 < len(candidates) <= 5
    assert candidates[0]["score"] >= candidates[-1]["score"]
    assert "component" not in predictions  # never trained: left out, not failed


def test_a_correction_changes_the_next_training_set(make, user):
    issues = labelled_issues(make)
    before = training_data.training_set(model_name="kind")
    index = before.issue_ids.index(issues[0].id)
    assert before.labels[index] == "bug"
    classification.prediction_correct(
        issue=issues[0], model_name="kind", label="question", user=user
    )
    after = training_data.training_set(model_name="kind")
    assert after.labels[after.issue_ids.index(issues[0].id)] == "question"
    assert after.sources["correction"] == 1
    correction = PredictionCorrection.objects.get()
    assert (correction.before, correction.after, correction.user) == ("", "question", user)


def test_weak_labels_come_from_labels_title_prefixes_and_forms(make):
    make.issue(title="[Feature]: add fp8 GEMM", body="")
    make.issue(title="[Documentation]: typo", body="")
    make.issue(title="Broken on MI300X", body="### ROCm Component\n\nMIOpen\n")
    make.issue(repository=make.repository("ROCm/HIP"), title="hipcc fails", body="")
    kinds = training_data.training_set(model_name="kind")
    assert sorted(kinds.labels) == ["docs", "feature"]
    components = training_data.training_set(model_name="component")
    assert sorted(components.labels) == ["hip", "miopen"]


def test_decisions_on_the_page_need_login_and_record_who(make, logged_in_client, user):
    issue = make.issue(title="Crash")
    url = f"/issues/{issue.repository.full_name}/{issue.number}/predictions/kind/"
    anonymous = Client().post(url, {"label": "bug"})
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
    assert not PredictionCorrection.objects.exists()
    response = logged_in_client.post(url, {"label": "bug"})
    assert response.status_code == 302
    assert PredictionCorrection.objects.get().user == user
    prediction = IssuePrediction.objects.get(issue=issue, model_name="kind")
    assert (prediction.label, prediction.needs_triage) == ("bug", False)
    bad = logged_in_client.post(url, {"label": "colour"}, follow=True).content.decode()
    assert "kind is one of" in bad
    assert PredictionCorrection.objects.count() == 1


def test_decisions_need_a_csrf_token(make, user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    issue = make.issue(title="Crash")
    url = f"/issues/{issue.repository.full_name}/{issue.number}/predictions/kind/"
    assert client.post(url, {"label": "bug"}).status_code == 403


def test_confirming_a_duplicate_names_an_existing_issue(make, user):
    first, second = make.issue(title="Crash"), make.issue(title="Crash again")
    with pytest.raises(classification.CorrectionError, match="existing issue"):
        classification.prediction_correct(
            issue=second, model_name="duplicates", label="ROCm/ROCm#999999", user=user
        )
    classification.prediction_correct(
        issue=second, model_name="duplicates", label=f"ROCm/ROCm#{first.number}", user=user
    )
    assert IssuePrediction.objects.get(model_name="duplicates").label.endswith(f"#{first.number}")


def test_a_foreign_artifact_is_skipped_not_fatal(make, settings):
    labelled_issues(make)
    report = classification.classifier_train_from_database(model_name="kind")
    meta = settings.CLASSIFIER_ARTIFACT_DIR / "kind" / report.version / "metadata.json"
    meta.write_text(meta.read_text().replace('"sklearn_version": "', '"sklearn_version": "0.0+'))
    artifacts._cache.clear()
    issue = make.issue(title="Crash")
    result = classification.issues_classify(ids=[issue.id])
    assert "scikit-learn 0.0+" in result.skipped["kind"]
    assert not IssuePrediction.objects.filter(model_name="kind").exists()


def test_the_api_shows_predictions_and_priority(make, api_client):
    issue = make.issue(title="Crash on MI300X after upgrading", body="segfault")
    classification.issues_classify(ids=[issue.id])
    data = api_client.get(f"/api/issues/{issue.repository.full_name}/{issue.number}/").json()
    assert data["predictions"][0]["model"] == "environment"
    assert data["predictions"][0]["label"] == "gfx942"
    assert data["priority"]["score"] == sum(p["points"] for p in data["priority"]["parts"])
