from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

URL = "/api/issues/"
FIELDS = {
    "repo",
    "number",
    "title",
    "state",
    "is_pull_request",
    "labels",
    "author",
    "comments",
    "created_at",
    "updated_at",
    "closed_at",
    "merged_at",
    "html_url",
}


def numbers(response):
    return [row["number"] for row in response.json()["results"]]


@pytest.mark.django_db
def test_it_refuses_anonymous_requests():
    response = APIClient().get(URL)
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Token")


@pytest.mark.django_db
def test_it_refuses_a_wrong_token():
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-key")
    assert client.get(URL).status_code == 401


def test_it_accepts_a_session_login(logged_in_client, make):
    make.issue(number=1)
    assert logged_in_client.get(URL).status_code == 200


def test_it_lists_issues_with_their_fields(api_client, make):
    issue = make.issue(number=3, title="Crash", labels=["bug", "gfx942"], comments_count=2)

    response = api_client.get(URL)

    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"count", "next", "previous", "results"}
    assert body["count"] == 1
    row = body["results"][0]
    assert set(row) == FIELDS
    assert row["repo"] == "ROCm/ROCm"
    assert row["number"] == 3
    assert row["state"] == "open"
    assert row["is_pull_request"] is False
    assert sorted(row["labels"]) == ["bug", "gfx942"]
    assert row["author"] == "octocat"
    assert row["comments"] == 2
    assert row["merged_at"] is None
    assert row["html_url"] == issue.html_url


def test_it_gives_null_for_a_missing_author(api_client, make):
    make.issue(number=1, author=None)
    assert api_client.get(URL).json()["results"][0]["author"] is None


def test_it_lists_all_states_by_default(api_client, make):
    make.issue(number=1)
    make.issue(number=2, state="closed")
    assert sorted(numbers(api_client.get(URL))) == [1, 2]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"state": "open"}, [1, 3, 4]),
        ({"state": "closed"}, [2]),
        ({"is_pull_request": "true"}, [3]),
        ({"is_pull_request": "false"}, [1, 2, 4]),
        ({"repo": "rocm/hip"}, [4]),
        ({"label": "Bug"}, [1]),
        ({"q": "#2"}, [2]),
        # a form's empty fields are no filter, as GitHub's list reads them
        ({"repo": "", "label": "", "q": "", "state": "all"}, [1, 2, 3, 4]),
        ({"repo": "", "label": "Bug", "q": ""}, [1]),
    ],
)
def test_it_filters(api_client, make, query, expected):
    make.issue(number=1, labels=["bug"])
    make.issue(number=2, state="closed")
    make.pull_request(number=3)
    make.issue(repository=make.repository("ROCm/hip"), number=4)

    assert sorted(numbers(api_client.get(URL, query))) == expected


def test_it_hides_deleted_issues(api_client, make):
    make.issue(number=1, deleted_at=make.now)
    make.issue(number=2)
    assert numbers(api_client.get(URL)) == [2]


def test_it_orders_by_most_recent_update(api_client, make):
    make.issue(number=1, updated_at=make.now - timedelta(days=3))
    make.issue(number=2, updated_at=make.now - timedelta(days=1))
    make.issue(number=3, updated_at=make.now - timedelta(days=2))
    assert numbers(api_client.get(URL)) == [2, 3, 1]


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ({"state": "bogus"}, "state", '"bogus" is not a state: use open, closed or all.'),
        ({"is_pull_request": "maybe"}, "is_pull_request", "Use true or false."),
        ({"repo": "no-slash"}, "repo", "Use OWNER/NAME, for example ROCm/rocm-libraries."),
    ],
)
def test_it_answers_400_for_a_bad_filter(api_client, db, query, field, message):
    response = api_client.get(URL, query)
    assert response.status_code == 400
    assert response.json() == {field: [message]}


def test_it_paginates_by_fifty(api_client, make):
    for n in range(1, 53):
        make.issue(number=n)

    first = api_client.get(URL).json()
    second = api_client.get(URL, {"page": 2}).json()

    assert first["count"] == 52
    assert len(first["results"]) == 50
    assert first["previous"] is None
    assert first["next"].endswith("/api/issues/?page=2")
    assert len(second["results"]) == 2
    assert second["next"] is None
    assert api_client.get(URL, {"page": 9}).status_code == 404


def test_it_uses_the_same_number_of_queries_for_5_and_50_rows(api_client, make):
    def count_queries():
        with CaptureQueriesContext(connection) as queries:
            response = api_client.get(URL)
        assert response.status_code == 200
        return len(queries), len(response.json()["results"])

    for n in range(1, 6):
        make.issue(number=n, labels=["bug", f"area-{n}"], author=f"u{n}")
    few, shown = count_queries()
    assert shown == 5
    for n in range(6, 51):
        make.issue(number=n, labels=["bug", f"area-{n}"], author=f"u{n}")
    many, shown = count_queries()
    assert shown == 50
    assert few == many
