"""Symptom and severity on issues: predicted for every issue, shown with their evidence and
parts, corrected in one click (the severity follows), trained from the corrections."""

import io

import pytest
from django.core.management import call_command
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from classifiers import artifacts
from triage.models import IssuePrediction
from triage.services import classification, priority, training_data

pytestmark = pytest.mark.django_db

HANG = """### Problem Description

Training with torchrun on 8x MI300X stops making progress at step 40; after 30 minutes the
NCCL watchdog aborts the job with a RuntimeError exception.

### GPU

AMD Instinct MI300X
"""


def predictions_of(issue) -> dict[str, IssuePrediction]:
    return {p.model_name: p for p in IssuePrediction.objects.filter(issue=issue)}


@pytest.fixture
def triager_api(triager):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=triager).key}")
    return client


def test_every_issue_gets_its_symptom_and_severity_with_their_evidence_on_the_page(
    make, logged_in_client
):
    issue = make.issue(title="[Issue]: all_reduce never finishes on MI300X", body=HANG)
    classification.issues_classify(ids=[issue.id])
    predicted = predictions_of(issue)
    # a hung datacenter GPU alone is high; critical takes a second signal
    assert (predicted["symptom"].label, predicted["severity"].label) == ("hang", "high")
    clues = [e for e in predicted["symptom"].evidence["terms"] if "words" in e]
    assert {"words": "never finishes", "field": "title", "symptom": "hang"} in clues
    parts = {e["name"]: e for e in predicted["severity"].evidence["terms"] if "effect" in e}
    assert parts["hardware"]["why"].startswith("gfx942")
    page = logged_in_client.get(f"/issues/{issue.repository.full_name}/{issue.number}/")
    html = page.content.decode()
    assert '<q>never finishes</q> <span class="muted">in the title</span>' in html
    assert "a hung datacenter GPU stops every job on it" in html
    assert 'id="correct-symptom"' not in html  # a viewer does not decide


def test_the_api_shows_the_symptom_and_a_triager_corrects_it_in_one_click(
    make, api_client, triager_api
):
    issue = make.issue(title="[Issue]: all_reduce never finishes on MI300X", body=HANG)
    classification.issues_classify(ids=[issue.id])
    detail = f"/api/issues/{issue.repository.full_name}/{issue.number}/"
    shown = {p["model"]: p for p in api_client.get(detail).json()["predictions"]}
    assert shown["symptom"]["label"] == "hang" and shown["symptom"]["evidence"]["terms"]
    url = f"{detail}predictions/symptom/"
    assert api_client.post(url, {"label": "docs"}, format="json").status_code == 403
    response = triager_api.post(url, {"label": "docs"}, format="json")
    assert response.status_code == 200 and response.json()["label"] == "docs"
    assert triager_api.post(url, {"label": "meltdown"}, format="json").status_code == 400
    severity = predictions_of(issue)["severity"]
    assert severity.label == "low"  # it follows the corrected symptom
    assert severity.evidence["terms"][0]["rule"] == "docs"
    priority_parts = {p["name"]: p for p in api_client.get(detail).json()["priority"]["parts"]}
    assert priority_parts["severity"]["why"].startswith("low")


def test_the_queue_shows_the_symptom_with_its_key(make, triager_client):
    issue = make.issue(title="hipMemcpy segfaults on gfx1100", body="Segmentation fault")
    classification.issues_classify(ids=[issue.id])
    html = triager_client.get("/triage/").content.decode()
    assert '<th scope="col">Symptom</th>' in html
    assert 'data-key="s" title="Accept symptom crash (s)"' in html


def test_the_symptom_model_trains_on_the_rules_labels_with_corrections_on_top(make, triager):
    crashes = [
        make.issue(title=f"rocFFT segfaults in plan {n}", body="Segmentation fault")
        for n in range(6)
    ]
    for n in range(6):
        make.issue(title=f"MIOpen conv {n} is 2x slower on ROCm 6.3", body="performance drop")
        make.issue(title=f"Broken link {n} in the hipBLAS docs", body="the docs page 404s")
    make.issue(title="rocFFT", body="")  # the rules find nothing: no weak label
    classification.prediction_correct(
        issue=crashes[0], model_name="symptom", label="wrong_result", user=triager
    )
    data = training_data.training_set(model_name="symptom")
    assert dict(data.sources) == {"rule": 17, "correction": 1}
    assert data.labels[data.issue_ids.index(crashes[0].id)] == "wrong_result"
    out = io.StringIO()
    call_command("train_classifier", "symptom", stdout=out)
    assert artifacts.active_version("symptom")
    assert (
        "correction 1, rule 17"
        in artifacts.metadata_read("symptom", artifacts.active_version("symptom"))["source"]
    )


def test_a_wide_reach_makes_a_silent_wrong_result_critical(make):
    quiet = make.issue(title="NaN outputs from hipBLASLt on gfx90a", body="No error is raised.")
    loud = make.issue(
        title="NaN outputs from hipBLASLt on gfx90a (again)",
        body="No error is raised.",
        reactions={"+1": 9, "heart": 1},
        reactions_total=10,
    )
    classification.issues_classify(ids=[quiet.id, loud.id])
    assert predictions_of(quiet)["severity"].label == "high"
    severity = predictions_of(loud)["severity"]
    assert severity.label == "critical"
    parts = {e["name"]: e for e in severity.evidence["terms"] if "effect" in e}
    assert parts["silent"]["effect"] == 1 and "9 '+1's" in parts["silent"]["why"]


def test_confirmed_duplicates_count_in_the_reach(make, triager):
    original = make.issue(number=10, title="Crash in rocBLAS")
    copies = [make.issue(number=n, title="Crash in rocBLAS too") for n in (11, 12)]
    for copy in copies:
        classification.prediction_correct(
            issue=copy, model_name="duplicates", label="rocm/rocm#10", user=triager
        )
    classification.prediction_correct(
        issue=copies[1], model_name="duplicates", label="ROCm/ROCm#11", user=triager
    )  # changed its mind: only the latest decision counts
    reach = priority.reach_of_issues(issues=[original, copies[0]])
    assert (reach[original.id].duplicates, reach[copies[0].id].duplicates) == (1, 1)


def test_a_maintainers_label_teaches_the_symptom_model_before_the_rules(make):
    make.issue(title="Segfault in hipMemcpy", body="Segmentation fault (core dumped)")
    make.issue(title="Porting guide for HIP graphs", body="", labels=["documentation"])
    make.issue(title="hipcc --help prints nothing", body="", labels=["question"])
    data = training_data.training_set(model_name="symptom")
    assert dict(data.sources) == {"rule": 1, "label": 2}
    assert sorted(data.labels) == ["crash", "docs", "question"]
