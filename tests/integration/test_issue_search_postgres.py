"""Full-text search on Postgres: the pipeline's `index_issues` step writes an issue's vector after
the issue is stored, and reads its text again only when the text changed."""

from __future__ import annotations

import pytest
from django.db import connection

from config import wiring
from tests.triage.test_ingest import item
from triage.models import Issue, IssueSearch
from triage.selectors.issues import text_search
from triage.services import issue_search
from triage.sources.github import ingest

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def _on_postgres(db):
    assert connection.vendor == "postgresql", "run with DATABASE_URL=postgres://... (make test)"


def searched(q: str) -> set[int]:
    return set(text_search(Issue.objects.all(), q).values_list("number", flat=True))


def store(repository, **fields) -> list[int]:
    return ingest.issues_upsert(repository=repository, items=[item(**fields)]).changed_ids


def test_an_indexed_issue_is_found_by_its_words_stemmed_and_only_after_the_step(make):
    repository = make.repository()
    ids = store(repository, title="Kernels crashing on gfx942", body="rocBLAS gemm segfaults")
    assert "triage.tasks.index_issues" in wiring.AFTER_ISSUES_CHANGED
    assert searched("crash") == set()  # stored, not yet indexed: the step runs after the commit

    assert issue_search.issues_index(ids=ids) == 1

    assert searched("crash") == {7}  # "crashing" stemmed
    assert searched("segfault gemm") == {7}
    assert searched("hipcc") == set()


def test_only_an_issue_whose_text_changed_is_read_again(make):
    repository = make.repository()
    ids = store(repository, title="Hang in hipMemcpy", body="hangs forever")
    issue_search.issues_index(ids=ids)
    vector_before = IssueSearch.objects.get(issue_id=ids[0]).digest

    closed = store(repository, title="Hang in hipMemcpy", body="hangs forever", state="closed",
                   updated_at="2026-01-03T00:00:00Z")  # fmt: skip
    assert closed == ids
    assert issue_search.issues_index(ids=ids) == 0  # the same text: nothing read again

    store(repository, title="Hang in hipMemcpyAsync", body="deadlock on stream sync",
          updated_at="2026-01-04T00:00:00Z")  # fmt: skip
    assert issue_search.issues_index(ids=ids) == 1

    assert IssueSearch.objects.get(issue_id=ids[0]).digest != vector_before
    assert searched("deadlock") == {7}
    assert searched("forever") == set()  # the old body's words are gone


def test_a_deleted_issue_takes_its_vector_with_it(make):
    repository = make.repository()
    ids = store(repository, title="Wrong results in rocFFT")
    issue_search.issues_index(ids=ids)

    Issue.objects.filter(pk__in=ids).delete()

    assert not IssueSearch.objects.exists()
    assert issue_search.issues_index(ids=ids) == 0  # an id that is gone is no error


def test_a_body_of_repeated_html_comment_openers_is_indexed_in_bounded_time(make, settings):
    """Postgres' parser is quadratic on `<!--<!--...`: the text it is given has no `<`, and
    every statement runs under the budget (a test of behaviour: without the cleaning the body
    exceeds the service's own statement budget and the issue would lose its text)."""
    hostile = make.issue(number=71, title="odd template", body="<!--" * 12490 + " zebrafish")
    plain = make.issue(number=72, title="hipMemcpy zebra crash", body="segfault in zebra")
    assert issue_search.issues_index(ids=[hostile.pk, plain.pk]) == 2
    vectors = dict(IssueSearch.objects.values_list("issue_id", "vector"))
    # its words made it within the budget (uncleaned: about 6 s, past it, and title only)
    assert "zebrafish" in vectors[hostile.pk] and "zebra" in vectors[plain.pk]


def test_an_issue_whose_text_runs_out_of_time_is_indexed_by_its_title(make, monkeypatch):
    monkeypatch.setattr(issue_search, "SEARCH_INDEX_TIMEOUT_MS", 1)
    issue = make.issue(number=73, title="rocBLAS gemm zebra", body=" ".join(["word"] * 40000))
    assert issue_search.issues_index(ids=[issue.pk]) == 1
    assert "zebra" in IssueSearch.objects.get(issue=issue).vector
    with connection.cursor() as cursor:  # the budget is this statement's, not the caller's
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone()[0] == "0"
