from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

URL = reverse("issue-list")


def numbers(response):
    return [issue.number for issue in response.context["page"].object_list]


def test_it_shows_open_issues_and_prs_by_default(logged_in_client, make):
    make.issue(number=1, title="Open issue")
    make.issue(number=2, state="closed")
    make.pull_request(number=3, title="Open PR")

    response = logged_in_client.get(URL)

    assert sorted(numbers(response)) == [1, 3]
    content = response.content.decode()
    assert "ROCm/ROCm#1" in content
    assert "Open issue" in content
    assert "Open PR" in content


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"state": "closed"}, [2, 4]),
        ({"state": "all"}, [1, 2, 3, 4]),
        ({"state": "all", "type": "pr"}, [3, 4]),
        ({"state": "all", "type": "issue"}, [1, 2]),
        ({"type": "pr"}, [3]),
    ],
)
def test_it_filters_by_state_and_type(logged_in_client, make, query, expected):
    make.issue(number=1)
    make.issue(number=2, state="closed")
    make.pull_request(number=3)
    make.pull_request(number=4, state="closed", merged=True)

    assert sorted(numbers(logged_in_client.get(URL, query))) == expected


def test_it_filters_by_repository_case_insensitively(logged_in_client, make):
    make.issue(repository=make.repository("ROCm/hip"), number=1)
    make.issue(repository=make.repository("ROCm/rocBLAS"), number=2)

    assert numbers(logged_in_client.get(URL, {"repo": "rocm/HIP"})) == [1]


def test_it_reports_a_malformed_repository_and_ignores_it(logged_in_client, make):
    make.issue(number=1)

    response = logged_in_client.get(URL, {"repo": "not a repo", "state": "bogus"})

    assert numbers(response) == [1]
    content = response.content.decode()
    assert "Use OWNER/NAME" in content
    assert "Select a valid choice" in content


def test_it_filters_by_label_name(logged_in_client, make):
    make.issue(number=1, labels=["bug", "gfx942"])
    make.issue(number=2, labels=["enhancement"])
    make.issue(number=3)

    assert numbers(logged_in_client.get(URL, {"label": "GFX942"})) == [1]


def test_it_searches_title_and_body(logged_in_client, make):
    make.issue(number=1, title="hipMalloc fails on MI300")
    make.issue(number=2, title="Crash", body="stack trace mentions HIPMALLOC")
    make.issue(number=3, title="Unrelated")

    assert sorted(numbers(logged_in_client.get(URL, {"q": "hipmalloc"}))) == [1, 2]


def test_it_finds_issues_with_every_word_of_the_search_wherever_they_are(logged_in_client, make):
    make.issue(number=1, title="hipBLASLt GEMM fails", body="on gfx942 with ROCm 6.4")
    make.issue(number=2, title="hipBLASLt tuning", body="gfx90a only")
    make.issue(number=3, title="gfx942 hang in rccl")

    assert numbers(logged_in_client.get(URL, {"q": "hipblaslt gfx942"})) == [1]
    assert sorted(numbers(logged_in_client.get(URL, {"q": "hipblaslt"}))) == [1, 2]


@pytest.mark.parametrize("q", ["42", "#42", " #42 "])
def test_it_finds_an_issue_by_number(logged_in_client, make, q):
    make.issue(number=42, title="The answer")
    make.issue(number=7, title="Something else")

    assert numbers(logged_in_client.get(URL, {"q": q})) == [42]


def test_it_hides_deleted_issues_and_marks_transferred_ones(logged_in_client, make):
    make.issue(number=1, title="Deleted one", deleted_at=make.now)
    make.issue(number=2, title="Moved one", transferred_to="ROCm/hip#9")

    response = logged_in_client.get(URL)

    assert numbers(response) == [2]
    content = response.content.decode()
    assert "Deleted one" not in content
    assert "transferred to ROCm/hip#9" in content


def test_it_orders_by_most_recent_update(logged_in_client, make):
    make.issue(number=1, updated_at=make.now - timedelta(days=3))
    make.issue(number=2, updated_at=make.now - timedelta(days=1))
    make.issue(number=3, updated_at=make.now - timedelta(days=2))

    assert numbers(logged_in_client.get(URL)) == [2, 3, 1]


def test_it_paginates_fifty_per_page_and_keeps_the_filters(logged_in_client, make):
    for n in range(1, 56):
        make.issue(number=n, labels=["bug"])

    first = logged_in_client.get(URL, {"label": "bug"})
    second = logged_in_client.get(URL, {"label": "bug", "page": 2})

    assert len(numbers(first)) == 50
    assert len(numbers(second)) == 5
    assert "?label=bug&amp;page=2" in first.content.decode()
    assert logged_in_client.get(URL, {"page": "999"}).context["page"].number == 2


def test_it_escapes_titles_and_label_colors(logged_in_client, make):
    label = make.label('<img src=x onerror="alert(1)">', color='"; background: url(x)')
    make.issue(number=1, title="<script>alert(1)</script>", labels=[label])

    content = logged_in_client.get(URL).content.decode()

    assert "<script>alert(1)</script>" not in content
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in content
    assert "<img src=x" not in content
    assert "url(x)" not in content
    assert 'data-label-color="ededed"' in content  # the default (app.js paints it)
    assert "style=" not in content  # the Content-Security-Policy allows no style attribute


def test_it_shows_author_comments_label_colors_and_merged_badge(logged_in_client, make):
    make.pull_request(
        number=8, author="dev1", comments_count=3, merged=True, state="open", labels=["bug"]
    )

    content = logged_in_client.get(URL).content.decode()

    assert "dev1" in content
    assert "3 comments" in content
    assert 'class="label label-light-text" data-label-color="d73a4a"' in content
    assert "badge-merged" in content


def test_it_has_labelled_filter_controls(logged_in_client, db):
    content = logged_in_client.get(URL).content.decode()
    for control in ("id_repo", "id_state", "id_type", "id_label", "id_q"):
        assert f'<label for="{control}">' in content
        assert f'id="{control}"' in content


def test_it_uses_the_same_number_of_queries_for_5_and_50_rows(logged_in_client, make):
    def count_queries():
        with CaptureQueriesContext(connection) as queries:
            response = logged_in_client.get(URL)
        assert response.status_code == 200
        return len(queries), len(numbers(response))

    repos = [make.repository(f"ROCm/repo{n}") for n in range(5)]
    for n in range(1, 6):
        make.issue(repository=repos[n % 5], number=n, labels=["bug", f"area-{n}"], author=f"u{n}")
    few, shown = count_queries()
    assert shown == 5

    for n in range(6, 51):
        make.issue(repository=repos[n % 5], number=n, labels=["bug", f"area-{n}"], author=f"u{n}")
    many, shown = count_queries()
    assert shown == 50

    assert few == many
