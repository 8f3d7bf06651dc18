"""The `environment` prediction of an issue: the reporter's facts, their sources on the page."""

import pytest

from triage.models import IssuePrediction
from triage.services import classification
from triage.sources.github import ingest

pytestmark = pytest.mark.django_db

FORM_AND_ROCMINFO = """### GPU

AMD Radeon RX 6900 XT

### ROCm Version

ROCm 6.1.0

### (Optional for Linux users) Output of /opt/rocm/bin/rocminfo --support

  Name:                    gfx1031
  Marketing Name:          AMD Radeon RX 6700 XT
  Device Type:             GPU
"""


def environment(issue) -> IssuePrediction:
    return IssuePrediction.objects.get(issue=issue, model_name="environment")


def test_the_reporters_comments_complete_the_environment_and_other_peoples_do_not(make):
    issue = make.issue(title="rccl all_reduce hangs", body="Hangs after 10 minutes.", author="ann")
    make.comment(issue, author="ann", body="My rocminfo:\n  Name: gfx942\n  Device Type: GPU")
    make.comment(issue, author="ben", body="Same on my RX 7900 XTX with ROCm 6.3.1.")
    make.comment(issue, author="maint", body="Fixed as of ROCm 6.4.0, please update.")
    classification.issues_classify(ids=[issue.id])
    prediction = environment(issue)
    assert prediction.label == "gfx942"
    assert prediction.evidence["rocm_version"] == ""
    assert prediction.evidence["sources"]["architectures"]["by"] == "ann"
    others = {o["by"]: o for o in prediction.evidence["others"]}
    assert others["ben"]["architectures"] == ["gfx1100"] and others["ben"]["rocm"] == ["6.3.1"]
    assert 0.8 < prediction.confidence < 0.95


def test_a_new_comment_by_the_reporter_updates_the_environment_and_the_priority(
    make, django_capture_on_commit_callbacks
):
    repository = make.repository()
    issue = make.issue(repository=repository, title="Segfault in hipMalloc", author="ann")
    classification.issues_classify(ids=[issue.id])
    assert environment(issue).label == ""
    comment = {
        "id": 777001,
        "body": "Sorry, forgot: Radeon 7900XTX, ROCm 6.2.4.",
        "user": {"id": int(issue.author.external_id), "login": "ann"},
        "created_at": "2026-01-03T00:00:00Z",
        "updated_at": "2026-01-03T00:00:00Z",
    }
    with django_capture_on_commit_callbacks(execute=True):
        ingest.comments_upsert(repository=repository, items=[comment], issue_number=issue.number)
    prediction = environment(issue)
    assert prediction.label == "gfx1100"
    assert prediction.evidence["rocm_version"] == "6.2.4"
    parts = {p["name"]: p for p in issue.priority.parts}
    assert parts["architecture"]["why"] == "gfx1100"


def test_the_issue_page_shows_each_facts_source_confidence_and_the_conflict(make, logged_in_client):
    issue = make.issue(title="[Issue]: garbage from gemm", body=FORM_AND_ROCMINFO, author="ann")
    make.comment(issue, author="ben", body="Me too on an MI210.")
    classification.issues_classify(ids=[issue.id])
    page = logged_in_client.get(
        f"/issues/{issue.repository.full_name}/{issue.number}/"
    ).content.decode()
    environment_html = page[page.index("<h3>Environment</h3>") : page.index("<h3>Priority</h3>")]
    assert "gfx1031" in environment_html and "AMD Radeon RX 6700 XT" in environment_html
    assert "rocminfo" in environment_html and "issue body by @ann" in environment_html
    assert "0.95" in environment_html
    assert "conflict" in environment_html and "gfx1030" in environment_html
    assert "@ben" in environment_html and "gfx90a" in environment_html


def test_a_prediction_stored_before_sources_had_detail_still_shows(make, logged_in_client):
    issue = make.issue(title="old")
    IssuePrediction.objects.create(
        issue=issue,
        model_name="environment",
        label="gfx942",
        confidence=1.0,
        evidence={"architectures": ["gfx942"], "rocm_version": "6.1", "sources": {"os": "text"}},
    )
    page = logged_in_client.get(f"/issues/{issue.repository.full_name}/{issue.number}/")
    assert page.status_code == 200
    assert "gfx942" in page.content.decode()
