import pytest
from rest_framework.test import APIClient


def test_it_returns_one_issue_with_its_comments(api_client, make):
    pr = make.pull_request(
        number=12,
        body="Fixes #3",
        state="closed",
        state_reason="completed",
        merged=True,
        merged_at=make.now,
        merge_commit_sha="abc123",
        base_ref="develop",
        head_ref="fix/x",
        milestone="6.4",
        labels=["bug"],
    )
    pr.assignees.set([make.person("dev1"), make.person("dev2")])
    make.comment(pr, body="LGTM", author="reviewer")
    make.comment(pr, body="deleted", deleted_at=make.now)

    response = api_client.get("/api/issues/ROCm/ROCm/12/")

    assert response.status_code == 200
    data = response.json()
    assert data["repo"] == "ROCm/ROCm"
    assert data["number"] == 12
    assert data["body"] == "Fixes #3"
    assert data["state_reason"] == "completed"
    assert data["merged"] is True
    assert data["merge_commit_sha"] == "abc123"
    assert (data["base_ref"], data["head_ref"]) == ("develop", "fix/x")
    assert sorted(data["assignees"]) == ["dev1", "dev2"]
    assert data["milestone"] == "6.4"
    assert data["labels"] == ["bug"]
    assert isinstance(data["comments"], int)
    assert len(data["comment_items"]) == 1
    item = data["comment_items"][0]
    assert set(item) == {"author", "body", "created_at", "updated_at", "html_url"}
    assert (item["author"], item["body"]) == ("reviewer", "LGTM")


def test_it_matches_the_repository_case_insensitively(api_client, make):
    make.issue(number=4)
    assert api_client.get("/api/issues/rocm/rocm/4/").status_code == 200


def test_it_answers_404_for_an_unknown_issue(api_client, make):
    make.issue(number=4)
    assert api_client.get("/api/issues/ROCm/ROCm/5/").status_code == 404
    assert api_client.get("/api/issues/ROCm/nope/4/").status_code == 404


@pytest.mark.django_db
def test_it_refuses_anonymous_requests():
    assert APIClient().get("/api/issues/ROCm/ROCm/1/").status_code == 401
