"""The queue's in-place actions (htmx), saved views, the new filters and its query count."""

import html

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from kernels_ci.models import ReproCase
from kernels_ci.services.cases import case_refresh
from tests.kernels_ci.factories import issue_body
from triage.models import IssuePrediction, IssuePriority, PredictionCorrection, SavedView

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


def queued(make, title, score, **predictions):
    issue = make.issue(title=title, body=predictions.pop("body", ""))
    make.priority(issue, score)
    for model_name, label in predictions.items():
        IssuePrediction.objects.create(
            issue=issue, model_name=model_name, label=label, confidence=0.6, needs_triage=True
        )
    return issue


def decide_url(issue, model):
    return f"/issues/{issue.repository.full_name}/{issue.number}/predictions/{model}/"


def test_a_triager_accepts_a_kind_in_place_and_gets_the_row_back(triager_client, make, triager):
    issue = queued(make, "Hang in hipMemcpy", 70, kind="bug", component="HIP")
    response = triager_client.post(
        decide_url(issue, "kind"), {"label": "bug", "partial": "queue-row"}, **HX
    )
    assert response.status_code == 200
    row = response.content.decode()
    assert row.lstrip().startswith(f'<tr id="queue-row-{issue.pk}"')
    assert "decided" in row
    correction = PredictionCorrection.objects.get(issue=issue, model_name="kind")
    assert (correction.user, correction.after, correction.accepted) == (triager, "bug", True)


def test_a_triager_corrects_a_component_and_sets_a_priority(triager_client, make):
    issue = queued(make, "rocBLAS gemm wrong", 40, kind="bug", component="HIP")
    triager_client.post(
        decide_url(issue, "component"), {"label": "rocBLAS", "partial": "queue-row"}, **HX
    )
    response = triager_client.post(
        decide_url(issue, "priority"), {"label": "95", "partial": "queue-row"}, **HX
    )
    assert IssuePrediction.objects.get(issue=issue, model_name="component").label == "rocblas"
    assert IssuePriority.objects.get(issue=issue).score == 95
    assert 'value="95"' in response.content.decode()


def test_a_viewer_cannot_act_and_nothing_changes(logged_in_client, make):
    issue = queued(make, "Something", 40, kind="bug")
    response = logged_in_client.post(
        decide_url(issue, "kind"), {"label": "feature", "partial": "queue-row"}, **HX
    )
    assert response.status_code == 403
    assert not PredictionCorrection.objects.exists()
    assert "Accept" not in logged_in_client.get("/triage/").content.decode()


def test_actions_need_the_csrf_token(triager, make):
    from django.test import Client

    issue = queued(make, "Something", 40, kind="bug")
    client = Client(enforce_csrf_checks=True)
    client.force_login(triager)
    response = client.post(decide_url(issue, "kind"), {"label": "bug"}, **HX)
    assert response.status_code == 403
    assert not PredictionCorrection.objects.exists()


def test_it_filters_by_severity_reproducer_and_words(logged_in_client, make):
    crash = queued(make, "Segfault in MIOpen conv", 30, severity="critical")
    queued(make, "Docs typo", 20, severity="low", body="the install guide has a typo")
    repro = queued(make, "Wrong mask", 10, severity="high", body=issue_body())
    case_refresh(issue=repro)
    assert ReproCase.objects.filter(issue=repro).exclude(script="").exists()

    def titles(query):
        page = logged_in_client.get(f"/triage/?{query}").content.decode()
        return sorted(
            t for t in ("Segfault in MIOpen conv", "Docs typo", "Wrong mask") if t in page
        )

    assert titles("severity=critical") == [crash.title]
    assert titles("has_repro=on") == ["Wrong mask"]
    assert titles("q=install+guide") == ["Docs typo"]
    assert titles(f"q=%23{crash.number}") == [crash.title]


def test_a_triager_approves_a_repro_from_the_queue(make, django_user_model):
    from django.test import Client

    from tests.conftest import user_with_role

    issue = queued(make, "Wrong mask", 10, body=issue_body())
    case = case_refresh(issue=issue)
    client = Client()
    client.force_login(user_with_role(django_user_model, "tri", "triagers"))
    page = client.get("/triage/").content.decode()
    # what would run is on the page, inside the review that holds the button (x shows it)
    review = page.split(f'id="repro-review-{case.pk}"', 1)[1].split("</details>", 1)[0]
    assert "Approve this script" in review and 'data-confirm-reveal="repro-review-' in review
    assert html.escape(case.script.splitlines()[0]) in review
    response = client.post(
        f"/repro/cases/{case.pk}/approve/",
        {"sha256": case.sha256, "partial": "queue-cell"},
        **HX,
    )
    assert response.status_code == 200
    case.refresh_from_db()
    assert case.is_approved
    assert "approved" in response.content.decode()


def test_saved_views_belong_to_their_user(logged_in_client, user, triager_client, make):
    response = logged_in_client.post(
        "/triage/views/", {"name": "gfx942 bugs", "query": "kind=bug&architecture=gfx942&page=3"}
    )
    assert response.status_code == 302
    view = SavedView.objects.get(user=user)
    assert view.query == "kind=bug&architecture=gfx942"
    page = logged_in_client.get("/triage/").content.decode()
    assert "gfx942 bugs" in page and "?kind=bug&amp;architecture=gfx942" in page
    assert "gfx942 bugs" not in triager_client.get("/triage/").content.decode()
    triager_client.post(f"/triage/views/{view.pk}/delete/")
    assert SavedView.objects.filter(pk=view.pk).exists()  # not the triager's to delete
    logged_in_client.post(f"/triage/views/{view.pk}/delete/")
    assert not SavedView.objects.filter(pk=view.pk).exists()


def test_it_makes_the_same_number_of_queries_whatever_the_page_size(triager_client, make):
    def queries() -> int:
        from django.core.cache import cache

        cache.clear()  # the filter choices are cached: count the uncached page
        with CaptureQueriesContext(connection) as captured:
            assert triager_client.get("/triage/").status_code == 200
        return len(captured)

    queued(make, "first", 50, kind="bug", component="HIP", body=issue_body())
    case_refresh(issue=IssuePriority.objects.get().issue)
    few = queries()
    for n in range(30):
        issue = queued(
            make, f"more {n}", n, kind="bug", component="HIP", severity="high", body=issue_body()
        )
        case_refresh(issue=issue)
    assert queries() == few


def test_the_home_pages_awaiting_approval_count_opens_the_list_it_counts(
    make, triager_client, api_client
):
    import re

    from automation.known_errors.models import KnownError, KnownErrorMatch

    waiting = queued(make, "Wrong mask", 30, body=issue_body())
    approved = queued(make, "Approved mask", 20, body=issue_body())
    case_refresh(issue=waiting)
    case = case_refresh(issue=approved)
    case.approved_sha256 = case.sha256
    case.save()
    queued(make, "No script", 10)

    home = triager_client.get("/").content.decode()
    link = re.search(r'href="(/triage/\?awaiting_approval=on)"><strong>(\d+)</strong>', home)
    assert link and link.group(2) == "1"
    page = triager_client.get(link.group(1)).content.decode()
    assert "1 issue<" in page and "Wrong mask" in page and "Approved mask" not in page

    canonical = make.issue(number=2000, title="No binary for the GPU")
    signature = KnownError.objects.create(
        name="no binary", pattern="hipErrorNoBinaryForGpu", canonical=canonical, answer="see"
    )
    KnownErrorMatch.objects.create(signature=signature, issue=approved, evidence="x")
    page = triager_client.get("/triage/?known_error=on").content.decode()
    assert "Approved mask" in page and "Wrong mask" not in page
    answer = api_client.get("/api/triage-queue/?awaiting_approval=true").json()
    assert [item["title"] for item in answer["results"]] == ["Wrong mask"]
