from datetime import UTC, datetime

import pytest
from django.test import Client

from releases.models import Backport, FixLink, ReleaseCandidate, TrainTarget
from releases.services.backports import backport_nominate

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def issue(make, series):
    return make.issue(number=1, title="NaN in gemm")


@pytest.fixture
def merged_pr(make, series):
    return make.pull_request(
        number=2,
        merged=True,
        base_ref="release/rocm-rel-7.8",
        merged_at=datetime(2026, 11, 1, tzinfo=UTC),
    )


def test_a_viewer_may_not_change_anything(logged_in_client, issue):
    for url, data in [
        ("/releases/7.8/backports/", {"issue": "ROCm/ROCm#1"}),
        ("/releases/targets/", {"issue": "ROCm/ROCm#1", "flags": "blocker"}),
        ("/releases/fix-links/add/", {"issue": "ROCm/ROCm#1", "pull_request": "ROCm/ROCm#2"}),
        ("/releases/7.9/rc/", {"tag": "rc1"}),
        ("/releases/7.9/notes/save/", {"text": "## notes"}),
    ]:
        assert logged_in_client.post(url, data).status_code == 403, url
    assert not Backport.objects.exists() and not TrainTarget.objects.exists()


def test_actions_need_the_csrf_token(release_manager, issue):
    client = Client(enforce_csrf_checks=True)
    client.force_login(release_manager)
    response = client.post("/releases/7.8/backports/", {"issue": "ROCm/ROCm#1"})
    assert response.status_code == 403
    assert not Backport.objects.exists()


def test_actions_answer_only_post(release_manager_client, series):
    assert release_manager_client.get("/releases/7.8/backports/").status_code == 405


def test_nominating_redirects_to_the_train_with_a_message(release_manager_client, issue):
    response = release_manager_client.post(
        "/releases/7.8/backports/", {"issue": "ROCm/ROCm#1", "reason": "customer"}
    )
    assert response.status_code == 302
    assert response["Location"] == "/releases/7.8/?series=rocm"
    backport = Backport.objects.get()
    assert (backport.train_version, backport.state, backport.reason) == (
        "7.8",
        "nominated",
        "customer",
    )
    page = release_manager_client.get(response["Location"])
    assert b"ROCm/ROCm#1 nominated for 7.8" in page.content


def test_with_htmx_nominating_answers_the_backports_partial(release_manager_client, issue):
    response = release_manager_client.post(
        "/releases/7.8/backports/", {"issue": "ROCm/ROCm#1"}, **HX
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert html.startswith('<section id="backports"') and "<html" not in html
    assert "NaN in gemm" in html and "Approve" in html


def test_bad_input_is_a_clear_error_and_writes_nothing(release_manager_client, issue):
    response = release_manager_client.post(
        "/releases/7.8/backports/", {"issue": "ROCm/ROCm#99"}, **HX
    )
    assert response.status_code == 200
    assert b'role="alert"' in response.content and b"no issue ROCm/ROCm#99" in response.content
    response = release_manager_client.post("/releases/6.0/backports/", {"issue": "ROCm/ROCm#1"})
    assert response.status_code == 302
    assert not Backport.objects.exists()


def test_a_refused_nomination_keeps_the_section_with_the_error_in_its_form(
    release_manager_client, issue, series
):
    backport_nominate(issue=issue, series=series, version="7.8")
    response = release_manager_client.post(
        "/releases/7.8/backports/", {"issue": "ROCm/ROCm#99", "reason": "urgent"}, **HX
    )
    html = response.content.decode()
    assert html.startswith('<section id="backports"')
    assert "NaN in gemm" in html  # the table is still there
    form = html[html.index('<form method="post" action="/releases/7.8/backports/"') :]
    assert 'role="alert"' in form and "no issue ROCm/ROCm#99" in form
    assert 'value="ROCm/ROCm#99"' in form and 'value="urgent"' in form


def test_a_release_manager_approves_and_rejects(release_manager_client, issue, make, series):
    first = backport_nominate(issue=issue, series=series, version="7.8")
    second = backport_nominate(issue=make.issue(number=3), series=series, version="7.8")
    response = release_manager_client.post(f"/releases/backports/{first.pk}/approve/", **HX)
    assert response.status_code == 200 and b"is approved" in response.content
    release_manager_client.post(f"/releases/backports/{second.pk}/reject/")
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.state, second.state) == ("approved", "rejected")
    again = release_manager_client.post(f"/releases/backports/{first.pk}/reject/", **HX)
    assert b"is approved, not nominated" in again.content


def test_a_triager_may_not_approve(triager_client, issue, series):
    backport = backport_nominate(issue=issue, series=series, version="7.8")
    assert triager_client.post(f"/releases/backports/{backport.pk}/approve/").status_code == 403
    backport.refresh_from_db()
    assert backport.state == "nominated"


def test_a_fix_link_is_added_and_removed_by_hand(release_manager_client, issue, merged_pr):
    data = {"issue": "ROCm/ROCm#1", "pull_request": "https://github.com/ROCm/ROCm/pull/2"}
    response = release_manager_client.post("/releases/fix-links/add/", data, **HX)
    assert b"linked (train 7.8)" in response.content
    link = FixLink.objects.get()
    assert (link.source, link.via, link.removed) == ("manual", "release_branch", False)
    release_manager_client.post("/releases/fix-links/remove/", data)
    link.refresh_from_db()
    assert link.removed is True


def test_linking_an_issue_as_the_fix_is_refused(release_manager_client, issue, make):
    make.issue(number=5)
    response = release_manager_client.post(
        "/releases/fix-links/add/", {"issue": "ROCm/ROCm#1", "pull_request": "ROCm/ROCm#5"}, **HX
    )
    assert b"no pull request ROCm/ROCm#5" in response.content
    assert not FixLink.objects.exists()


def test_the_target_and_flags_are_set(release_manager_client, issue):
    response = release_manager_client.post(
        "/releases/targets/",
        {"issue": "ROCm/ROCm#1", "version": "7.10.0", "flags": "Blocker, known issue"},
        **HX,
    )
    assert b"train 7.10, blocker, known issue" in response.content
    target = TrainTarget.objects.get()
    assert (target.train_version, target.flags) == ("7.10", ["blocker", "known issue"])


def test_an_rc_tag_is_recorded_once(release_manager_client, series):
    for _ in range(2):
        response = release_manager_client.post("/releases/7.9/rc/", {"tag": "rocm-7.9.0-rc1"})
        assert response.status_code == 302
    assert ReleaseCandidate.objects.get().tag == "rocm-7.9.0-rc1"
    bad = release_manager_client.post("/releases/7.9/rc/", {"tag": "rc 1; rm -rf"}, **HX)
    assert b'role="alert"' in bad.content
    assert ReleaseCandidate.objects.count() == 1


def test_the_redirect_goes_only_to_a_local_next(release_manager_client, issue):
    response = release_manager_client.post(
        "/releases/targets/",
        {"issue": "ROCm/ROCm#1", "flags": "", "next": "https://evil.example/"},
    )
    assert response["Location"] == "/releases/"
    response = release_manager_client.post(
        "/releases/targets/", {"issue": "ROCm/ROCm#1", "flags": "", "next": "/releases/7.9/"}
    )
    assert response["Location"] == "/releases/7.9/"


def test_the_train_page_shows_the_forms_to_a_release_manager_only(
    release_manager_client, logged_in_client, series
):
    assert b"Manage the train" in release_manager_client.get("/releases/7.9/").content
    assert b"Manage the train" not in logged_in_client.get("/releases/7.9/").content
