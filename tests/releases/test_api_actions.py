from datetime import UTC, datetime

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from releases.models import Backport, FixLink, ReleaseCandidate, TrainTarget


@pytest.fixture
def manager_api(release_manager):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=release_manager)}")
    return client


@pytest.fixture
def data(make, series):
    issue = make.issue(number=1)
    pr = make.pull_request(
        number=2,
        merged=True,
        base_ref="release/rocm-rel-7.8",
        merged_at=datetime(2026, 11, 1, tzinfo=UTC),
        merge_commit_sha="e" * 40,
    )
    return {"issue": issue, "pr": pr}


def test_a_backport_is_nominated_approved_and_merged_through_the_api(manager_api, data):
    response = manager_api.post(
        "/api/releases/7.8/backports/", {"issue": "ROCm/ROCm#1", "reason": "x"}, format="json"
    )
    assert response.status_code == 201
    backport = response.json()
    assert (backport["train"], backport["state"], backport["issue"]) == (
        "7.8",
        "nominated",
        "ROCm/ROCm#1",
    )
    again = manager_api.post("/api/releases/7.8/backports/", {"issue": "ROCm/ROCm#1"})
    assert (again.status_code, again.json()["id"]) == (200, backport["id"])
    approved = manager_api.post(f"/api/releases/backports/{backport['id']}/approve/")
    assert (approved.status_code, approved.json()["state"]) == (200, "approved")
    link = manager_api.post(
        "/api/releases/fix-links/",
        {"issue": "ROCm/ROCm#1", "pull_request": "ROCm/ROCm#2"},
        format="json",
    )
    assert link.status_code == 201
    assert (link.json()["via"], link.json()["train"]) == ("release_branch", "7.8")
    assert Backport.objects.get().state == "merged"


def test_deciding_twice_is_a_400(manager_api, data, series):
    from releases.services.backports import backport_nominate

    backport = backport_nominate(issue=data["issue"], series=series, version="7.8")
    assert manager_api.post(f"/api/releases/backports/{backport.pk}/reject/").status_code == 200
    response = manager_api.post(f"/api/releases/backports/{backport.pk}/approve/")
    assert response.status_code == 400 and "rejected" in response.json()["detail"]
    assert manager_api.post(f"/api/releases/backports/{backport.pk}/maybe/").status_code == 404


def test_a_viewer_token_may_read_but_not_act(api_client, data, series):
    assert api_client.get("/api/releases/").status_code == 200
    for url, body in [
        ("/api/releases/7.8/backports/", {"issue": "ROCm/ROCm#1"}),
        ("/api/releases/fix-links/", {"issue": "ROCm/ROCm#1", "pull_request": "ROCm/ROCm#2"}),
        ("/api/releases/targets/", {"issue": "ROCm/ROCm#1"}),
        ("/api/releases/7.9/rc/", {"tag": "rc1"}),
    ]:
        assert api_client.post(url, body, format="json").status_code == 403, url
    assert not (Backport.objects.exists() or FixLink.objects.exists())


def test_a_fix_link_is_removed_and_stays_removed(manager_api, data):
    body = {"issue": "ROCm/ROCm#1", "pull_request": "ROCm/ROCm#2"}
    manager_api.post("/api/releases/fix-links/", body, format="json")
    response = manager_api.post("/api/releases/fix-links/remove/", body, format="json")
    assert (response.status_code, response.json()["removed"]) == (200, True)
    assert FixLink.objects.get().removed


def test_bad_references_are_400_with_the_reason(manager_api, data):
    response = manager_api.post(
        "/api/releases/fix-links/", {"issue": "nonsense", "pull_request": "ROCm/ROCm#1"}
    )
    assert response.status_code == 400
    errors = response.json()
    assert "OWNER/NAME#NUMBER" in errors["issue"][0]
    assert "no pull request ROCm/ROCm#1" in errors["pull_request"][0]


def test_the_target_and_flags_are_set_through_the_api(manager_api, data):
    response = manager_api.post(
        "/api/releases/targets/",
        {"issue": "ROCm/ROCm#1", "version": "7.9", "flags": ["blocker"], "note": "p0"},
        format="json",
    )
    assert response.status_code == 200
    assert response.json() == {
        "issue": "ROCm/ROCm#1",
        "series": "rocm",
        "train": "7.9",
        "flags": ["blocker"],
        "note": "p0",
    }
    bad = manager_api.post(
        "/api/releases/targets/", {"issue": "ROCm/ROCm#1", "version": "6.1"}, format="json"
    )
    assert bad.status_code == 400 and "no train 6.1" in bad.json()["detail"]
    assert TrainTarget.objects.get().train_version == "7.9"


def test_an_rc_tag_requests_verification_of_the_trains_fixes(manager_api, make, series):
    make.issue(number=1)
    pr = make.pull_request(
        number=2,
        body="Fixes #1",
        merged=True,
        base_ref="develop",
        merged_at=datetime(2026, 11, 20, tzinfo=UTC),
    )
    from releases.services.fixes import fix_links_sync

    fix_links_sync(pull_request=pr)
    response = manager_api.post("/api/releases/7.9/rc/", {"tag": "rocm-7.9.0-rc1"})
    assert response.status_code == 201
    assert response.json()["verification_requested"] == 1
    assert ReleaseCandidate.objects.get().train_version == "7.9"
