"""The untrusted text corpus (tests/security/corpus.py) through the real ingestion upserts, the
Markdown renderer, every page and API endpoint that shows it, and the search boxes.

On SQLite here; tests/security/test_untrusted_text_postgres.py runs the corpus through a real
sync (PyGithub, tweepy, the emulators) into Postgres and checks full-text search there; and
tests/browser/test_untrusted_corpus.py shows it in Chromium.
"""

from __future__ import annotations

import pytest
from django.db import connection

from tests.conftest import user_with_role
from tests.security.corpus import (
    HUGE_BODY,
    LONE_SURROGATE,
    NUL,
    SEARCHES,
    SQLISH,
    corpus_ingest,
    hostile_texts,
    html_problems,
)
from triage.models import Comment, Issue, Label, Post
from triage.text.rendering import MAX_MARKDOWN_CHARS, render_markdown

pytestmark = pytest.mark.django_db


@pytest.fixture
def corpus(make):
    return corpus_ingest(repository=make.repository("ROCm/ROCm"))


@pytest.fixture
def viewer(client, django_user_model):
    client.force_login(user_with_role(django_user_model, "viewer", "viewers"))
    return client


@pytest.mark.parametrize("name", list(hostile_texts()))
def test_rendered_markdown_of_the_corpus_holds_no_script_handler_or_unsafe_url(name):
    html = render_markdown(hostile_texts()[name])
    assert html_problems(html) == []
    assert "<script" not in html.lower()


def test_a_huge_body_is_rendered_truncated_with_a_note():
    html = render_markdown(HUGE_BODY)
    assert "Text truncated" in html
    assert len(html) < 2 * MAX_MARKDOWN_CHARS


def test_every_corpus_text_is_stored_whole_or_cleaned(corpus):
    texts = hostile_texts()
    stored = dict(
        Issue.objects.filter(number__in=corpus["issues"].values()).values_list("number", "body")
    )
    for name, number in corpus["issues"].items():
        expected = texts[name]
        if name == "nul":
            expected = NUL.replace("\x00", "")
        elif name == "lone surrogate":
            expected = LONE_SURROGATE.replace("\ud800", "?")
        assert stored[number] == expected, name
    assert Comment.objects.count() == len(texts)
    assert Post.objects.count() == len(texts)
    assert Label.objects.filter(name__contains="DROP TABLE").exists()


def test_every_page_with_the_corpus_answers_200_and_shows_it_only_as_text(viewer, corpus):
    pages = ["/", "/issues/", "/issues/?state=all", "/triage/", "/social/", "/settings/"]
    pages += [f"/issues/ROCm/ROCm/{number}/" for number in corpus["issues"].values()]
    for page in pages:
        response = viewer.get(page)
        assert response.status_code == 200, page
        assert html_problems(response.content.decode()) == [], page


def test_every_api_endpoint_with_the_corpus_answers_200_as_json(viewer, corpus):
    urls = ["/api/issues/", "/api/posts/", "/api/triage-queue/", "/api/dashboard/"]
    urls += [f"/api/issues/ROCm/ROCm/{number}/" for number in corpus["issues"].values()]
    for url in urls:
        response = viewer.get(url)
        assert response.status_code == 200, url
        assert response["Content-Type"] == "application/json", url
        response.json()


def test_the_corpus_survives_the_search_boxes(viewer, corpus):
    boxes = ["/issues/?q={}", "/triage/?q={}", "/social/?q={}", "/api/issues/?q={}"]
    queries = [*SEARCHES.values(), *[t[:190] for t in hostile_texts().values()], NUL, "\x1b[2J"]
    queries.append("\udcff\udcfe invalid UTF-8")
    from urllib.parse import quote

    for box in boxes:
        for query in queries:
            # a lone surrogate goes as the invalid UTF-8 bytes it stands for (%ED%A0%80)
            response = viewer.get(box.format(quote(query.encode("utf-8", "surrogatepass"))))
            assert response.status_code in (200, 400), (box, query[:40], response.status_code)
            if box.startswith("/api/") and "\x00" not in query:
                assert response.status_code == 200, (box, query[:40])
            if response["Content-Type"].startswith("text/html"):
                assert html_problems(response.content.decode()) == [], (box, query[:40])


def issues_found(client, query: str) -> set[int]:
    response = client.get("/api/issues/", {"q": query, "state": "all"})
    assert response.status_code == 200, response.content[:300]
    body = response.json()
    assert body["next"] is None, "the corpus fits on one page"
    return {row["number"] for row in body["results"]}


def issues_containing(text: str) -> set[int]:
    text = text.lower()
    return {
        number
        for number, title, body in Issue.objects.values_list("number", "title", "body")
        if text in title.lower() or text in body.lower()
    }


def test_a_sql_looking_search_finds_exactly_the_issue_that_holds_it(viewer, corpus):
    assert connection.vendor == "sqlite"
    assert issues_found(viewer, SQLISH) == {corpus["searchable"]["sql"]}
    assert Issue.objects.count() > 50  # the table is still there, every row in it


@pytest.mark.parametrize("name", ["percent", "underscore", "backslash", "quote"])
def test_like_wildcards_in_a_search_are_literal(viewer, corpus, name):
    query = SEARCHES[name]
    found = issues_found(viewer, query)
    assert found == issues_containing(query)
    assert corpus["searchable"][name] in found
    assert len(found) < Issue.objects.count()  # as a wildcard it would match every issue


def test_the_issue_list_search_box_agrees_with_the_api(viewer, corpus):
    for name in ("sql", "percent", "underscore"):
        page = viewer.get("/issues/", {"q": SEARCHES[name], "state": "all"}).content.decode()
        for number in issues_found(viewer, SEARCHES[name]):
            assert f"/issues/ROCm/ROCm/{number}/" in page, (name, number)
        assert f"/issues/ROCm/ROCm/{corpus['searchable']['sql']}/" in page or name != "sql"


@pytest.mark.parametrize("query", ["%", "_", "\\", SQLISH])
def test_a_post_search_matches_the_text_literally(viewer, corpus, query):
    from triage.selectors.social import post_list

    expected = {i for i, text in Post.objects.values_list("external_id", "text") if query in text}
    assert set(post_list(q=query).values_list("external_id", flat=True)) == expected
    assert len(expected) < Post.objects.count()
    assert viewer.get("/social/", {"q": query}).status_code == 200
