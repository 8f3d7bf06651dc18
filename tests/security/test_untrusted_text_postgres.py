"""The untrusted text corpus through a real sync into Postgres: PyGithub against the GitHub
emulator and tweepy against the X emulator, then the pages, the API and full-text search.

Postgres refuses NUL characters that SQLite stores: the sync must store every issue, comment and
post anyway (cleaned), not fail the page they arrive on. Full-text search
(websearch syntax) must answer every search-box string without an error: words find the issues
that hold them, punctuation alone (`%`, `_`, `\\`) is no wildcard and finds nothing.
"""

from __future__ import annotations

import pytest
from django.db import connection

from tests.conftest import user_with_role
from tests.fakes.github_api import GitHubEmulator
from tests.fakes.x_api import XEmulator
from tests.security.corpus import HOSTILE_LABELS, SEARCHES, hostile_texts, html_problems
from triage.models import Comment, Issue, Post, SavedSearch
from triage.services import issue_search, tracking
from triage.sources.github import sync
from triage.sources.x import sync as x_sync

# Plain `db`: the pipeline's tasks are enqueued on commit, so none leave this test's transaction.
pytestmark = [pytest.mark.integration, pytest.mark.django_db]
REPO = "ROCm/ROCm"


@pytest.fixture
def synced(real_services, settings):
    assert connection.vendor == "postgresql"
    # GitHub and X send UTF-8; a lone surrogate only arrives escaped in a webhook delivery
    # (tests/security/test_webhook_worker.py takes it to Postgres).
    texts = {k: v for k, v in hostile_texts().items() if k != "lone surrogate"}
    with GitHubEmulator(token="corpus-token") as github, XEmulator(bearer_token="x-tok") as x:
        settings.GITHUB_API_URL, settings.GITHUB_TOKEN = github.url, "corpus-token"
        settings.GITHUB_RETRY_BACKOFF = 0
        settings.X_API_URL, settings.X_BEARER_TOKEN = x.url, "x-tok"
        github.add_repo(REPO)
        numbers, searchable = {}, {}
        for name, text in texts.items():
            title = text if len(text) < 2000 else f"{name}: {text[:200]}"
            issue = github.add_issue(REPO, title=title, body=text, labels=HOSTILE_LABELS)
            numbers[name] = issue["number"]
            github.add_comment(REPO, issue["number"], body=text)
        for index, (name, query) in enumerate(SEARCHES.items()):
            title = f"search-{name} {query} zebra{index}"
            searchable[name] = github.add_issue(REPO, title=title, body="plain")["number"]
        x.add_user("mallory", name="<b>mallory</b>")
        for text in texts.values():
            x.add_post(f"rocm {text[:3000]}", username="mallory")
        report = sync.repository_sync(repository=tracking.repository_track(full_name=REPO))
        # the pipeline's step that a worker runs after each page (its tasks never leave here)
        issue_search.issues_index(ids=list(Issue.objects.values_list("id", flat=True)))
        search = SavedSearch.objects.create(name="corpus", query="rocm")
        posts = x_sync.saved_search_sync(search=search)
    return {"texts": texts, "numbers": numbers, "searchable": searchable, "report": report,
            "posts": posts}  # fmt: skip


def test_the_sync_stores_every_hostile_issue_comment_and_post_cleaned(synced):
    texts, numbers = synced["texts"], synced["numbers"]
    assert Issue.objects.count() == len(texts) + len(SEARCHES)
    assert Comment.objects.count() == len(texts)
    assert Post.objects.count() == len(texts)
    bodies = dict(Issue.objects.values_list("number", "body"))
    assert bodies[numbers["nul"]] == texts["nul"].replace("\x00", "")
    assert bodies[numbers["huge body"]] == texts["huge body"]
    assert bodies[numbers["script-0"]] == texts["script-0"]


def test_every_page_and_endpoint_answers_200_on_postgres(synced, client, django_user_model):
    client.force_login(user_with_role(django_user_model, "viewer", "viewers"))
    pages = ["/", "/issues/", "/triage/", "/social/"]
    pages += [f"/issues/{REPO}/{n}/" for n in synced["numbers"].values()]
    for page in pages:
        response = client.get(page)
        assert response.status_code == 200, page
        assert html_problems(response.content.decode()) == [], page
    for url in ["/api/issues/", "/api/posts/", "/api/triage-queue/", "/api/dashboard/"]:
        assert client.get(url).status_code == 200, url


def found(client, query: str) -> set[int]:
    response = client.get("/api/issues/", {"q": query, "state": "all"})
    assert response.status_code == 200, (query, response.content[:300])
    return {row["number"] for row in response.json()["results"]}


def test_full_text_search_takes_every_search_box_string(synced, client, django_user_model):
    client.force_login(user_with_role(django_user_model, "viewer", "viewers"))
    searchable = synced["searchable"]
    # words: exactly the issue that holds them all (the others hold some at most)
    assert found(client, SEARCHES["sql"]) == {searchable["sql"]}
    assert found(client, SEARCHES["quote"]) == {searchable["quote"]}
    # punctuation only: no lexeme, no wildcard, nothing found (and no error)
    for name in ("percent", "underscore", "backslash"):
        assert found(client, SEARCHES[name]) == set(), name
    # operators of the websearch syntax, unbalanced or nested 40 deep: answered, not everything
    assert len(found(client, SEARCHES["websearch"])) < Issue.objects.count()
    assert len(found(client, SEARCHES["negations"])) < Issue.objects.count()
    assert Issue.objects.count() > 50  # DROP TABLE did nothing
    for query in [*SEARCHES.values(), *synced["texts"].values(), "\x00", "\x1b[2J"]:
        for box in ("/issues/", "/triage/", "/social/"):
            response = client.get(box, {"q": query[:190]})
            assert response.status_code == 200, (box, query[:40])
