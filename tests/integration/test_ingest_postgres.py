"""The upserts' rules again, on Postgres, where a page's stored rows are read by a statement of
their own (one index probe per number) and jsonb comes back as text for the field to decode.

The rules themselves are tests/triage/test_ingest.py's (run here a second time, on the real
database); the test below adds what only a repository of many pages shows.
"""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from tests.triage.test_ingest import (  # noqa: F401  (collected again here, on Postgres)
    item,
    test_an_older_snapshot_never_overwrites_a_newer_one_even_with_other_reactions,
    test_reaction_counts_are_stored_by_content_and_kept_when_a_payload_has_none,
)
from triage.models import Issue, Person
from triage.services import upsert
from triage.sources.github import ingest
from triage.sources.records import PersonRecord

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def _on_postgres(db):
    assert connection.vendor == "postgresql", "run with DATABASE_URL=postgres://... (make test)"


def test_each_page_finds_its_stored_rows_among_many_and_only_those(make):
    repository, other = make.repository(), make.repository(full_name="rocm/other")
    pages = [
        [item(number=n, id=10_000 + n, title=f"t{n}") for n in range(s, s + 50)] for s in (1, 51)
    ]
    for page in pages:
        ingest.issues_upsert(repository=repository, items=page)
    # the same numbers in another repository are other issues
    ingest.issues_upsert(repository=other, items=[item(number=1, id=99_001, title="elsewhere")])

    again = ingest.issues_upsert(repository=repository, items=pages[0])
    newer = [
        item(number=n, id=10_000 + n, title=f"edited {n}", updated_at="2026-02-01T00:00:00Z")
        for n in (51, 52)
    ]
    edited = ingest.issues_upsert(
        repository=repository, items=newer + [item(number=101, id=10_101)]
    )

    assert (again.unchanged, again.updated, again.created) == (50, 0, 0)
    assert (edited.unchanged, edited.updated, edited.created) == (0, 2, 1)
    assert Issue.objects.get(repository=repository, number=51).title == "edited 51"
    assert Issue.objects.get(repository=other, number=1).title == "elsewhere"


def _person(external_id: str, login: str, name: str = "") -> PersonRecord:
    return PersonRecord(source="github", external_id=external_id, login=login, name=name)


def test_two_pages_of_one_table_in_one_transaction_each_write_only_their_own_rows():
    with transaction.atomic():
        first = upsert.persons_upsert(people=[_person("1", "ana"), _person("2", "bo")])
        second = upsert.persons_upsert(people=[_person("3", "cy")])

    assert set(first) == {("github", "1"), ("github", "2")}
    assert set(second) == {("github", "3")}  # not the first page's rows again
    assert sorted(Person.objects.values_list("login", flat=True)) == ["ana", "bo", "cy"]


def test_an_overlong_value_is_cut_to_its_column_as_before_not_refused():
    written = upsert.rows_upsert(
        Person,
        ("source", "external_id", "login", "name"),
        [("github", "9", "e" * 150, "n" * 300)],
        conflict=("source", "external_id"),
        update=("login", "name"),
    )

    assert written == []  # nothing asked back
    person = Person.objects.get(external_id="9")
    assert (len(person.login), len(person.name)) == (100, 255)


def _labelled(number: int, labels: list[str], assignees: list[str] = (), **fields) -> dict:
    return item(
        number=number,
        id=20_000 + number,
        labels=[{"id": 500 + sum(map(ord, name)), "name": name} for name in labels],
        assignees=[{"id": 900 + sum(map(ord, login)), "login": login} for login in assignees],
        **fields,
    )


def _links(repository, number: int) -> tuple[set[str], set[str]]:
    issue = Issue.objects.get(repository=repository, number=number)
    return (
        set(issue.labels.values_list("name", flat=True)),
        set(issue.assignees.values_list("login", flat=True)),
    )


def test_a_sync_page_inserts_its_new_issues_with_their_links_and_decides_stored_ones(make):
    repository = make.repository()
    ingest.issues_upsert(
        repository=repository,
        items=[
            _labelled(1, ["bug"], title="newer", updated_at="2026-03-01T00:00:00Z"),
            _labelled(2, ["bug"], ["ana"], title="first", updated_at="2026-01-01T00:00:00Z"),
        ],
    )
    page = [
        _labelled(1, ["question"], title="an older snapshot", updated_at="2026-02-01T00:00:00Z"),
        _labelled(2, ["crash"], title="edited", updated_at="2026-02-01T00:00:00Z"),
        _labelled(3, ["bug", "crash"], ["ana", "bob"], title="new"),
    ]

    with upsert.sync_memo():
        result = ingest.issues_upsert(repository=repository, items=page)

    pks = dict(Issue.objects.filter(repository=repository).values_list("number", "pk"))
    assert (result.created, result.updated, result.unchanged) == (1, 1, 1)
    assert result.changed_ids == [pks[2], pks[3]]
    assert Issue.objects.get(repository=repository, number=1).title == "newer"
    assert _links(repository, 1) == ({"bug"}, set())
    assert _links(repository, 2) == ({"crash"}, set())  # replaced: no assignees listed now
    assert _links(repository, 3) == ({"bug", "crash"}, {"ana", "bob"})


def test_a_sync_page_of_new_issues_is_written_with_its_links_in_one_statement(make):
    repository = make.repository()
    with upsert.sync_memo(), CaptureQueriesContext(connection) as queries:
        result = ingest.issues_upsert(
            repository=repository,
            items=[_labelled(n, ["bug"], ["ana"]) for n in (2, 3, 4)],
        )

    # the issues, their labels and their assignees (people and labels are statements of their own)
    issues = [q["sql"] for q in queries if '"triage_issue' in q["sql"]]
    assert result.created == 3
    assert len(issues) == 1, [sql[:100] for sql in issues]
    assert all(_links(repository, n) == ({"bug"}, {"ana"}) for n in (2, 3, 4))
