import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from kernels_ci.models import ReproRun, Runner
from kernels_ci.services.cases import case_refresh
from tests.conftest import user_with_role
from tests.kernels_ci.factories import issue_body
from triage.models import IssuePrediction, PredictionCorrection, SavedSearch

pytestmark = pytest.mark.django_db


def api_as(django_user_model, username, role):
    client = APIClient()
    member = user_with_role(django_user_model, username, role)
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=member).key}")
    return client


def prioritized(make, title, score, **predictions):
    issue = make.issue(title=title, body=predictions.pop("body", ""))
    make.priority(issue, score)
    for model_name, label in predictions.items():
        IssuePrediction.objects.create(
            issue=issue, model_name=model_name, label=label, confidence=0.7
        )
    return issue


def test_the_queue_api_orders_and_filters_like_the_page(api_client, make):
    prioritized(make, "low", 10, kind="question")
    top = prioritized(make, "top", 90, kind="bug", severity="critical")
    body = api_client.get("/api/triage-queue/").json()
    assert [r["title"] for r in body["results"]] == ["top", "low"]
    assert body["results"][0]["priority"]["score"] == 90
    assert {p["model"] for p in body["results"][0]["predictions"]} == {"kind", "severity"}
    filtered = api_client.get("/api/triage-queue/?severity=critical").json()
    assert [r["number"] for r in filtered["results"]] == [top.number]
    assert api_client.get("/api/triage-queue/?severity=apocalyptic").status_code == 400


def test_a_triager_decides_through_the_api_and_a_viewer_cannot(api_client, django_user_model, make):
    issue = prioritized(make, "crash", 50, kind="question")
    url = f"/api/issues/{issue.repository.full_name}/{issue.number}/predictions/kind/"
    assert api_client.post(url, {"label": "bug"}, format="json").status_code == 403
    triager = api_as(django_user_model, "tri", "triagers")
    response = triager.post(url, {"label": "bug"}, format="json")
    assert response.status_code == 200
    assert response.json()["label"] == "bug"
    assert PredictionCorrection.objects.get(issue=issue).after == "bug"
    assert triager.post(url, {"label": "nonsense-kind"}, format="json").status_code == 400
    priority = f"/api/issues/{issue.repository.full_name}/{issue.number}/predictions/priority/"
    assert triager.post(priority, {"label": "77"}, format="json").json()["score"] == 77


def test_models_dashboard_and_saved_searches(api_client, make):
    SavedSearch.objects.create(name="sucks", query='"ROCm sucks"')
    prioritized(make, "x", 5)
    models = api_client.get("/api/models/").json()
    assert {m["name"] for m in models} >= {"kind", "component", "severity", "sentiment"}
    dashboard = api_client.get("/api/dashboard/").json()
    assert dashboard["open"] == 1 and dashboard["untriaged"] == 1
    assert len(dashboard["issues_per_week"]["labels"]) == 12
    searches = api_client.get("/api/saved-searches/").json()
    assert searches[0]["query"] == '"ROCm sucks"'


def test_runners_and_repro_approval_through_the_api(api_client, django_user_model, make):
    Runner.objects.create(name="gpu-1", arch="gfx942", healthy=False, reason="no /dev/kfd")
    assert api_client.get("/api/runners/").json()[0]["reason"] == "no /dev/kfd"
    case = case_refresh(issue=make.issue(number=9, body=issue_body()))
    url = f"/api/repro-cases/{case.pk}/approve/"
    assert api_client.post(url, {"sha256": case.sha256}, format="json").status_code == 403
    triager = api_as(django_user_model, "tri", "triagers")
    stale = triager.post(url, {"sha256": "0" * 64}, format="json")
    assert stale.status_code == 409
    assert not ReproRun.objects.exists()
    response = triager.post(url, {"sha256": case.sha256}, format="json")
    assert response.status_code == 201
    assert ReproRun.objects.count() == len(response.json()) >= 1


def test_every_new_endpoint_is_in_the_schema(api_client):
    paths = api_client.get("/api/schema/?format=json").json()["paths"]
    for path in (
        "/api/triage-queue/",
        "/api/models/",
        "/api/dashboard/",
        "/api/saved-searches/",
        "/api/runners/",
        "/api/repro-cases/{case_id}/approve/",
        "/api/issues/{owner}/{name}/{number}/predictions/{model_name}/",
    ):
        assert path in paths, path
