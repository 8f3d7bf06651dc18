"""The untrusted text corpus (tests/security/corpus.py) in headless Chromium.

Ingested through the upserts the sync and the webhook use (issues, comments, labels) and the X
post upsert; then a viewer opens the pages that show it and uses the search box. In the browser
nothing from the corpus runs: no dialog, window.__pwned never set, no Content-Security-Policy
violation, no request to another host at all (images in issue text are links to them, unless an
image proxy is configured; then they load from the proxy only), and every page answers 200.
Searches find what they should: the SQL-looking string exactly the issue that holds it, `%` and
`_` only the issues that hold them.
"""

from __future__ import annotations

from urllib.parse import quote

import pytest

from tests.browser.conftest import log_in
from tests.conftest import user_with_role
from tests.security.corpus import SCRIPTS, SEARCHES, SQLISH, corpus_ingest, github_comment
from triage.models import Issue
from triage.sources.github import ingest

ALL_VECTORS = 900  # the issue whose body holds every script vector, one comment each too


@pytest.fixture
def corpus(make):
    repository = make.repository("ROCm/ROCm")
    found = corpus_ingest(repository=repository)
    from tests.security.corpus import HOSTILE_LABELS, github_issue

    ingest.issues_upsert(
        repository=repository,
        items=[
            github_issue(
                ALL_VECTORS,
                title=SCRIPTS[0],
                body="\n\n".join(SCRIPTS),
                labels=HOSTILE_LABELS,
            )
        ],
    )
    ingest.comments_upsert(
        repository=repository,
        items=[
            github_comment(80_000 + i, issue_number=ALL_VECTORS, body=text)
            for i, text in enumerate(SCRIPTS)
        ],
    )
    return found


def visit(page, url: str) -> None:
    response = page.goto(url)
    assert response is not None and response.status == 200, url
    # hover across the page (mouse handlers) and let deferred scripts and htmx run
    for y in range(50, 900, 120):
        page.mouse.move(640, y)
    page.wait_for_load_state("networkidle")
    assert page.evaluate("typeof window.__pwned") == "undefined", url


def shown_issue_numbers(page) -> set[int]:
    hrefs = page.locator("main a.issue-title").evaluate_all("els => els.map(e => e.pathname)")
    return {int(href.rstrip("/").rsplit("/", 1)[1]) for href in hrefs}


def issues_containing(text: str) -> set[int]:
    return {
        number
        for number, title, body in Issue.objects.values_list("number", "title", "body")
        if text.lower() in title.lower() or text.lower() in body.lower()
    }


@pytest.mark.django_db(transaction=True)
def test_no_corpus_text_runs_in_the_browser_and_every_page_answers(
    watched, corpus, django_user_model
):
    user_with_role(django_user_model, "viewer", "viewers")
    page = watched
    log_in(page, "viewer", "pw-viewer-1")
    heavy = [corpus["issues"][name] for name in corpus["issues"] if not name.startswith("script")]
    urls = [
        "/",
        "/issues/",
        "/issues/?page=2",
        "/triage/",
        "/social/",
        f"/issues/ROCm/ROCm/{ALL_VECTORS}/",
        *[f"/issues/ROCm/ROCm/{number}/" for number in heavy],
        "/issues/?q=" + quote("<script>"),
        "/social/?q=" + quote("<img src=x onerror=alert(1)>"),
    ]
    for url in urls:
        visit(page, url)
        if url == f"/issues/ROCm/ROCm/{ALL_VECTORS}/":
            page.get_by_text("hover pwned").first.hover()
            assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.dialogs == []
    assert [e for e in page.errors if "net::ERR_FAILED" not in e] == []
    # nothing reaches for another host: not a script, a style, a frame, a form, a navigation,
    # nor an image (the author's host would learn every maintainer's address)
    assert page.external == []
    # the text is there, as text
    page.goto(f"/issues/ROCm/ROCm/{ALL_VECTORS}/")
    assert "<script>" in page.locator("h1").inner_text()


@pytest.mark.django_db(transaction=True)
def test_with_an_image_proxy_images_load_from_the_proxy_only(
    watched, corpus, django_user_model, settings, live_server
):
    settings.IMAGE_PROXY_URL = live_server.url + "/camo"  # answered 404 by us: only the URL counts
    settings.IMAGE_PROXY_KEY = "corpus-proxy-key"
    user_with_role(django_user_model, "viewer", "viewers")
    page = watched
    log_in(page, "viewer", "pw-viewer-1")
    proxied = []
    page.on("request", lambda r: r.resource_type == "image" and proxied.append(r.url))
    page.goto(f"/issues/ROCm/ROCm/{ALL_VECTORS}/")
    page.wait_for_load_state("networkidle")
    sources = page.locator("main img").evaluate_all("els => els.map(e => e.src)")
    assert sources and all(src.startswith(settings.IMAGE_PROXY_URL + "/") for src in sources)
    assert proxied and all(url.startswith(settings.IMAGE_PROXY_URL + "/") for url in proxied)
    assert page.external == []
    assert page.evaluate("typeof window.__pwned") == "undefined"


@pytest.mark.django_db(transaction=True)
def test_the_search_box_finds_what_the_strings_say_literally(watched, corpus, django_user_model):
    user_with_role(django_user_model, "viewer", "viewers")
    page = watched
    log_in(page, "viewer", "pw-viewer-1")
    for name in ("sql", "percent", "underscore", "backslash"):
        page.goto("/issues/?state=all")
        page.get_by_label("Search").fill(SEARCHES[name])
        page.get_by_role("button", name="Filter").click()
        page.wait_for_load_state("networkidle")
        expected = issues_containing(SEARCHES[name])
        if name == "sql":
            assert expected == {corpus["searchable"]["sql"]}
        assert len(expected) < Issue.objects.count()
        assert page.locator(".result-count").inner_text().startswith(f"{len(expected)} result")
        assert shown_issue_numbers(page) <= expected  # the first page of them
        assert corpus["searchable"][name] in expected
    assert Issue.objects.filter(title__contains=SQLISH).count() == 1
    assert page.dialogs == []
