"""The one upsert path: people, labels, issues, pull requests, comments and posts from every source.

The source packages turn their payloads into records (triage/sources/records.py); these functions
write them one page or one delivery at a time, a few statements a page whatever its size, and
say what they did (created / updated / unchanged, the changed rows) so callers can report it and
the pipeline gets the changed rows. Text is made storable (no NUL, no lone surrogate) and URLs
are kept only when they are http(s), whatever the source.

On Postgres a page's rows of one table go in as one JSON array, in one
`INSERT ... SELECT FROM jsonb_array_elements(...) ON CONFLICT DO UPDATE ... RETURNING` bound
server-side and prepared (`rows_upsert`): no statement of thousands of parameters for Django to
build and psycopg to parse again on every page, and no Python loop over every value. Elsewhere
(SQLite, the embedded default) Django's bulk_create does the same upsert.

Within a sync on Postgres, a page of issues or pulls is first offered as new: one statement
inserts the rows not stored yet with their label and assignee links and reads the stored fields
of the others (`_new_rows_insert`), whose rows are then decided and written as a delivery's are.
A backfill's page is all new: one round trip where a lookup, the write and two link writes were
four.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import cache

import psycopg
from django.db import connection, models, transaction
from django.utils import timezone

from triage import pipeline
from triage.models import Comment, Issue, Label, Person, Post, Repository, SavedSearch
from triage.sources.records import (
    CommentRecord,
    IssueRecord,
    LabelRecord,
    PersonRecord,
    PostRecord,
    PullRecord,
)
from triage.text.safe_links import is_external, safe_link_url

logger = logging.getLogger(__name__)


@dataclass
class UpsertResult:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    changed_ids: list[int] = field(default_factory=list)
    missing_issue_numbers: set[int] = field(default_factory=set)

    def add(self, other: UpsertResult) -> None:
        self.created += other.created
        self.updated += other.updated
        self.unchanged += other.unchanged
        self.changed_ids.extend(other.changed_ids)
        self.missing_issue_numbers |= other.missing_issue_numbers

    @property
    def fetched(self) -> int:
        return self.created + self.updated + self.unchanged

    def summary(self) -> str:
        """The line a task returns and a command prints, as every report's."""
        line = f"{self.created} created, {self.updated} updated, {self.unchanged} unchanged"
        if self.missing_issue_numbers:
            line += f", {len(self.missing_issue_numbers)} comments' issues not stored yet"
        return line


def storable_text(value: str) -> str:
    """Text as every database can store it: without NUL characters (which Postgres text cannot
    hold) and with lone surrogates (which UTF-8 cannot encode) replaced by "?"."""
    if not value.isascii():
        value = value.encode("utf-8", "replace").decode("utf-8")
    return value.replace("\x00", "") if "\x00" in value else value


def _text(value, limit: int | None = None) -> str:
    text = storable_text(value) if isinstance(value, str) else ""
    return text[:limit] if limit else text


def web_url(value) -> str:
    """An http(s) URL as the sources send them (html_url, avatar_url), else "": a payload's
    "javascript:..." is never stored, so neither a page nor an API client ever gets it."""
    url = _text(value, 500)
    return url if is_external(safe_link_url(url)) else ""


# --- the bulk write ------------------------------------------------------------------------


def _column(model: type[models.Model], name: str) -> models.Field:
    return model._meta.get_field(name)


def rows_upsert(
    model: type[models.Model],
    columns: Sequence[str],
    rows: list[tuple],
    *,
    conflict: Sequence[str],
    update: Sequence[str],
    returning: Sequence[str] = (),
) -> list[tuple]:
    """Insert `rows` (values of `columns`, model field names), updating `update` on a conflict
    on `conflict` (nothing when `update` is empty); returns `returning` + the pk of each row."""
    if not rows:
        return []
    if connection.vendor == "postgresql":
        return _json_upsert(model, columns, rows, conflict, update, returning)
    attnames = [_column(model, name).attname for name in columns]
    objects = [model(**dict(zip(attnames, row, strict=True))) for row in rows]
    if update:
        model.objects.bulk_create(
            objects, update_conflicts=True, unique_fields=conflict, update_fields=update
        )
    else:
        model.objects.bulk_create(objects, ignore_conflicts=True)
    if not returning:
        return []
    if any(obj.pk is None for obj in objects):  # a database without RETURNING: ask
        keys = {tuple(getattr(obj, name) for name in returning) for obj in objects}
        found = model.objects.filter(
            **{f"{returning[0]}__in": {key[0] for key in keys}}
        ).values_list(*returning, "pk")
        return [row for row in found if tuple(row[:-1]) in keys]
    return [(*(getattr(obj, name) for name in returning), obj.pk) for obj in objects]


def _bound_cursor():
    """A cursor of Django's connection that binds parameters server-side (psycopg's own
    `Cursor`, not the client-side one Django's settings choose), so a statement whose text
    repeats is prepared once; wrapped as Django wraps its own cursors (the execute wrappers,
    and the query log where queries are logged)."""
    connection.ensure_connection()
    cursor = psycopg.Cursor(connection.connection)
    if connection.queries_logged:
        return connection.make_debug_cursor(cursor)
    return connection.make_cursor(cursor)


def _json_value(value):
    """What JSON cannot say itself, as Postgres reads it back: times as ISO 8601."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not a column value an upsert writes")


def _defaults(others) -> list:
    """Each other column's default as a new row gets it (a callable's, each time)."""
    return [f.get_db_prep_save(f.get_default(), connection) for f in others]


def _json_decoded(rows: list[tuple], fields, start: int) -> list[list]:
    """The rows with the values of `fields` (from column `start` on) as Django's fields read
    them: Django reads jsonb as text, and its JSON field decodes it."""
    decode = [(start + i, f) for i, f in enumerate(fields) if isinstance(f, models.JSONField)]
    decoded = [list(row) for row in rows]
    for row in decoded:
        for i, json_field in decode:
            row[i] = json_field.from_db_value(row[i], None, connection)
    return decoded


def _json_upsert(model, columns, rows, conflict, update, returning) -> list[tuple]:
    """Postgres: one `INSERT ... SELECT FROM jsonb_array_elements(the page) ... ON CONFLICT`
    whose text is the same for every page of a kind, so psycopg prepares it once a connection
    has run it a few times: one round trip a table, whatever the page's size. The page is one
    JSON array of rows, which json.dumps writes in C; Postgres casts each value to its column's
    type (a varchar cast cuts an overlong value to its length). One array per column, as before,
    cost the client four times the CPU, spent in psycopg's Python loop over every value. Rows
    that would not change are not written; their pks come back all the same (from the table,
    as the statement found it)."""
    sql, others = _json_upsert_sql(
        model, tuple(columns), tuple(conflict), tuple(update), tuple(returning)
    )
    page = json.dumps(rows, default=_json_value, ensure_ascii=False, allow_nan=False)
    with _bound_cursor() as cursor:
        cursor.execute(sql, [*_defaults(others), page])
        return cursor.fetchall() if returning else []


def _json_page_sql(model, columns) -> tuple[str, list]:
    """`SELECT ... FROM jsonb_array_elements(%s::jsonb) AS e`: a page's rows (JSON arrays of the
    values of `columns`) as the table's columns c0, c1 ..., then each other column's default
    (the first parameters); and those other columns."""
    given = [_column(model, name) for name in columns]
    named = set(columns)
    others = [f for f in model._meta.concrete_fields if not f.primary_key and f.name not in named]
    values = [
        # a JSON field's value is the element itself; its null is SQL's NULL, as Django writes it
        f"NULLIF(e->{i}, 'null'::jsonb) AS c{i}"
        if isinstance(field, models.JSONField)
        else f"(e->>{i})::{field.db_type(connection)} AS c{i}"
        for i, field in enumerate(given)
    ]
    values += [f"%s::{f.db_type(connection)}" for f in others]
    return f"SELECT {', '.join(values)} FROM jsonb_array_elements(%s::jsonb) AS e", others  # noqa: S608


def _columns_sql(model, names) -> list[str]:
    return [connection.ops.quote_name(_column(model, name).column) for name in names]


@cache
def _json_upsert_sql(model, columns, conflict, update, returning) -> tuple[str, list]:
    """The statement of `_json_upsert` for one model and column list (built once a process),
    and the model's other columns, whose defaults are its first parameters."""
    meta = model._meta
    table = connection.ops.quote_name(meta.db_table)
    key = {name: f"c{i}" for i, name in enumerate(columns)}
    rows_sql, others = _json_page_sql(model, columns)
    target = ", ".join(_columns_sql(model, conflict))
    if update:
        updated = _columns_sql(model, update)
        sets = ", ".join(f"{c} = EXCLUDED.{c}" for c in updated)
        # a row that would not change is left as it is (no new row version, no index writes)
        same = (
            f"({', '.join(f'{table}.{c}' for c in updated)}) IS DISTINCT FROM "
            f"({', '.join(f'EXCLUDED.{c}' for c in updated)})"
        )
        action = f"DO UPDATE SET {sets} WHERE {same}"
    else:
        action = "DO NOTHING"
    back = _columns_sql(model, (*returning, meta.pk.name))
    inserted = _columns_sql(model, columns) + [connection.ops.quote_name(f.column) for f in others]
    # Every name here is the model's own (quoted identifiers); every value is a parameter.
    sql = (
        f"WITH page AS MATERIALIZED ({rows_sql}), "  # noqa: S608
        f"written AS (INSERT INTO {table} ({', '.join(inserted)}) "
        f"SELECT * FROM page ON CONFLICT ({target}) {action} RETURNING {', '.join(back)}) "
        "SELECT * FROM written"
    )
    if returning:  # and the rows left as they were
        kept = ", ".join(f"kept.{c}" for c in _columns_sql(model, conflict))
        sql += (
            f" UNION SELECT {', '.join(f'kept.{c}' for c in back)} FROM {table} AS kept "  # noqa: S608
            f"JOIN page ON ({kept}) = ({', '.join(f'page.{key[n]}' for n in conflict)})"
        )
    return sql, others


def _json_insert_new(model, columns, rows, *, conflict, probe, links) -> list[tuple]:
    """Postgres: insert the `rows` whose `conflict` key is not stored yet, with their links, and
    read the `probe` fields of the stored ones, in one statement (`_json_insert_new_sql`).
    `links` are (through model, owner field, other field, [[*key, other pk], ...]): the link
    rows of the inserted rows. Returns (*key, inserted pk or None, stored pk or None, *probe)
    for each row, a JSON field's value decoded."""
    sql, others = _json_insert_new_sql(
        model,
        tuple(columns),
        tuple(conflict),
        tuple(probe),
        tuple((through, owner, other) for through, owner, other, _ in links),
    )
    pages = [
        json.dumps(values, default=_json_value, ensure_ascii=False, allow_nan=False)
        for values in (rows, *(pairs for *_, pairs in links))
    ]
    with _bound_cursor() as cursor:
        cursor.execute(sql, [*_defaults(others), *pages])
        found = cursor.fetchall()
    return _json_decoded(found, [_column(model, n) for n in probe], len(conflict) + 2)


@cache
def _json_insert_new_sql(model, columns, conflict, probe, links) -> tuple[str, list]:
    """The statement of `_json_insert_new` (built once a process), and the model's other
    columns, whose defaults are its first parameters.

    Every part of a WITH runs on one snapshot: the join with the table (`stored`) sees the rows
    as they were before the statement, so an inserted row is found in `new` and a stored one in
    `stored`, never in both."""
    quote = connection.ops.quote_name
    table, pk = quote(model._meta.db_table), quote(model._meta.pk.column)
    rows_sql, others = _json_page_sql(model, columns)
    key = _columns_sql(model, conflict)
    key_types = [_column(model, n).db_type(connection) for n in conflict]
    page_key = ", ".join(f"page.c{columns.index(n)}" for n in conflict)
    inserted = _columns_sql(model, columns) + [quote(f.column) for f in others]
    # Every name here is the model's own (quoted identifiers); every value is a parameter.
    parts = [
        f"page AS MATERIALIZED ({rows_sql})",
        f"new AS (INSERT INTO {table} ({', '.join(inserted)}) SELECT * FROM page "  # noqa: S608
        f"ON CONFLICT ({', '.join(key)}) DO NOTHING RETURNING {', '.join(key)}, {pk})",
    ]
    for j, (through, owner, other) in enumerate(links):
        owner_column, other_field = (through._meta.get_field(n) for n in (owner, other))
        match = " AND ".join(
            f"new.{c} = (x->>{i})::{t}" for i, (c, t) in enumerate(zip(key, key_types, strict=True))
        )
        parts.append(
            f"link{j} AS (INSERT INTO {quote(through._meta.db_table)} "  # noqa: S608
            f"({quote(owner_column.column)}, {quote(other_field.column)}) "
            f"SELECT new.{pk}, (x->>{len(key)})::{other_field.db_type(connection)} "
            f"FROM new JOIN jsonb_array_elements(%s::jsonb) AS x ON {match} "
            "ON CONFLICT DO NOTHING)"
        )
    stored = [f"stored.{c}" for c in _columns_sql(model, probe)]
    sql = (
        f"WITH {', '.join(parts)} "  # noqa: S608
        f"SELECT {page_key}, new.{pk}, stored.{pk}, {', '.join(stored)} FROM page "
        f"LEFT JOIN new ON ({', '.join(f'new.{c}' for c in key)}) = ({page_key}) "
        f"LEFT JOIN {table} AS stored ON ({', '.join(f'stored.{c}' for c in key)}) = ({page_key})"
    )
    return sql, others


# --- people and labels ---------------------------------------------------------------------

PERSON_FIELDS = ("login", "name", "avatar_url", "html_url", "type", "site_admin", "followers_count")


PERSON_TEXT_LIMITS = {"login": 100, "name": 255, "type": 32}


# Within one sync, a person or a label already written with the same values is not written again:
# a backfill's pages name the same few hundred people and the same labels on every page.
_written: ContextVar[dict | None] = ContextVar("upsert_written", default=None)
# Within one transaction of a sync's pages (`sync_memo_transaction`): what it wrote so far.
_in_transaction: ContextVar[dict | None] = ContextVar("upsert_in_transaction", default=None)


@contextmanager
def sync_memo():
    """Remember, for as long as it lasts (one repository's sync), the people and labels written
    and their ids; a row whose values are the same as written before is not sent again."""
    token = _written.set({})
    try:
        yield
    finally:
        _written.reset(token)


@contextmanager
def sync_memo_transaction():
    """Within a sync, around the pages one transaction writes (inside it): the people and labels
    its pages write are remembered at once, for its later pages, and kept for the rest of the
    sync once it commits. If it raises they are forgotten, and if it rolls back they are never
    kept. A savepoint rolled back inside it must not have written people or labels."""
    memo = _written.get()
    if memo is None:
        yield
        return
    pending: dict = {}
    token = _in_transaction.set(pending)
    try:
        yield
    finally:
        _in_transaction.reset(token)
    transaction.on_commit(lambda: memo.update(pending))


def _memo_split(rows: list[tuple], scope: tuple) -> tuple[list[tuple], dict[tuple, int]]:
    """(rows to write, {row: id} of those this sync already wrote with the same values)."""
    memo = _written.get()
    if memo is None:
        return rows, {}
    pending = _in_transaction.get() or {}
    known = {}
    for row in rows:
        key = (*scope, row)
        found = memo.get(key, pending.get(key))
        if found is not None:
            known[row] = found
    return [row for row in rows if row not in known], known


def _memo_add(scope: tuple, written: dict[tuple, int]) -> None:
    """Remember rows once their transaction commits (a page rolled back wrote nothing)."""
    memo = _written.get()
    if memo is not None and written:
        entries = {(*scope, row): pk for row, pk in written.items()}
        pending = _in_transaction.get()
        if pending is not None:
            pending.update(entries)
        else:
            transaction.on_commit(lambda: memo.update(entries))


def _person_value(name: str, value):
    if name in ("avatar_url", "html_url"):
        return web_url(value)
    if name in PERSON_TEXT_LIMITS:
        return _text(value, PERSON_TEXT_LIMITS[name])
    return value


def persons_upsert(*, people: Iterable[PersonRecord | None]) -> dict[tuple[str, str], int]:
    """Upsert people; returns {(source, external id): Person pk}. A field a record does not
    carry (None) keeps what is stored, or the default for a new person."""
    by_key: dict[tuple[str, str], PersonRecord] = {}
    for person in people:
        if person is not None and person.external_id and person.login:
            by_key[(person.source, person.external_id)] = person
    found: dict[tuple[str, str], int] = {}
    groups: dict[tuple[str, ...], list[PersonRecord]] = {}
    for person in by_key.values():
        carried = tuple(n for n in PERSON_FIELDS if getattr(person, n) is not None)
        groups.setdefault(carried, []).append(person)
    for carried, group in groups.items():
        # remembered as given: a person written before with the same values is not cleaned again
        given = [(p.source, p.external_id, *(getattr(p, n) for n in carried)) for p in group]
        given, known = _memo_split(given, ("person", carried))
        written = rows_upsert(
            Person,
            ("source", "external_id", *carried),
            [
                (source, external_id, *map(_person_value, carried, values))
                for source, external_id, *values in given
            ],
            conflict=("source", "external_id"),
            update=carried,
            returning=("source", "external_id"),
        )
        row_of = {(row[0], row[1]): row for row in given}
        _memo_add(("person", carried), {row_of[(s, e)]: pk for s, e, pk in written})
        found.update({(row[0], row[1]): pk for row, pk in known.items()})
        found.update({(source, external_id): pk for source, external_id, pk in written})
    return found


def _person_pk(people: dict[tuple[str, str], int], person: PersonRecord | None) -> int | None:
    return people.get((person.source, person.external_id)) if person else None


def labels_upsert(*, repository: Repository, labels: Iterable[LabelRecord]) -> dict[str, int]:
    """Upsert labels of one repository; returns {lower-cased name: Label pk}."""
    by_key: dict[str, LabelRecord] = {}
    for label in labels:
        if label.name:
            by_key[label.name.lower()] = label
    if not by_key:
        return {}

    def row(key: str, label: LabelRecord) -> tuple:
        return (
            repository.pk,
            label.external_id,
            label.name,
            key,
            _text(label.color, 16),
            _text(label.description),
            label.default,
        )

    columns = ("repository", "github_id", "name", "name_key", "color", "description", "default")
    found: dict[str, int] = {}
    rows, known = _memo_split([row(k, lb) for k, lb in by_key.items()], ("label",))
    found.update({r[3]: pk for r, pk in known.items()})
    # A label's GitHub id is unique: one that another repository's label holds (GitHub never
    # gives it twice; a forged or confused delivery does) is not taken, the label is kept by its
    # name, and the issue that carries it is stored anyway.
    ids = {r[1] for r in rows if r[1] is not None}
    taken = set(
        Label.objects.filter(github_id__in=ids)
        .exclude(repository=repository)
        .values_list("github_id", flat=True)
        if ids
        else ()
    )
    if taken:
        logger.warning(
            "%s: label ids %s belong to another repository's labels: kept by name only",
            repository.full_name,
            sorted(taken),
        )
        rows = [(r[0], None, *r[2:]) if r[1] in taken else r for r in rows]
    # A label renamed on GitHub keeps its id: rename our row first so the upsert below matches.
    with_ids = {r[1]: r[3] for r in rows if r[1] is not None}
    stored = (
        Label.objects.filter(repository=repository, github_id__in=with_ids).values_list(
            "pk", "github_id", "name_key"
        )
        if with_ids
        else ()  # every label is as this sync wrote it before: no query
    )
    for pk, github_id, name_key in stored:
        if with_ids[github_id] != name_key:
            Label.objects.filter(repository=repository, name_key=with_ids[github_id]).exclude(
                pk=pk
            ).delete()
            Label.objects.filter(pk=pk).update(
                name=by_key[with_ids[github_id]].name, name_key=with_ids[github_id]
            )
    for part, update in (
        (
            [r for r in rows if r[1] is not None],
            ("name", "color", "description", "default", "github_id"),
        ),
        ([r for r in rows if r[1] is None], ("name", "color")),
    ):
        written = dict(
            rows_upsert(
                Label,
                columns,
                part,
                conflict=("repository", "name_key"),
                update=update,
                returning=("name_key",),
            )
        )
        _memo_add(("label",), {r: written[r[3]] for r in part if r[3] in written})
        found.update(written)
    return found


def label_delete(*, repository: Repository, label: LabelRecord) -> int:
    query = Label.objects.filter(repository=repository)
    if label.external_id is not None:
        deleted, _ = query.filter(github_id=label.external_id).delete()
        if deleted:
            return deleted
    deleted, _ = query.filter(name_key=label.name.lower()).delete()
    return deleted


# --- issues and pull requests --------------------------------------------------------------

ISSUE_COLUMNS = (
    "repository",
    "number",
    "source",
    "external_id",
    "node_id",
    "title",
    "body",
    "state",
    "state_reason",
    "locked",
    "author",
    "author_association",
    "milestone",
    "comments_count",
    "reactions_total",
    "reactions",
    "html_url",
    "created_at",
    "updated_at",
    "closed_at",
    "is_pull_request",
    "merged",
    "merged_at",
    "deleted_at",
    "last_ingested_at",
)

PULL_COLUMNS = (
    "repository",
    "number",
    "title",
    "body",
    "state",
    "locked",
    "author",
    "author_association",
    "html_url",
    "created_at",
    "updated_at",
    "closed_at",
    "is_pull_request",
    "pr_github_id",
    "pr_updated_at",
    "draft",
    "merged",
    "merged_at",
    "merged_by",
    "merge_commit_sha",
    "base_ref",
    "head_ref",
    "head_sha",
    "deleted_at",
    "last_ingested_at",
)


def _label_ids(item_labels: list[LabelRecord] | None, labels: dict[str, int]) -> list[int]:
    """The ids of an item's labels, those that `labels` holds."""
    return [
        labels[lb.name.lower()] for lb in item_labels or [] if lb.name and lb.name.lower() in labels
    ]


def _replace_links(
    through,
    owner_field: str,
    other_field: str,
    pairs: dict[int, list[int]],
    created: frozenset[int] = frozenset(),
) -> None:
    """Make the links of each owner exactly `pairs[owner]`.

    Owners in `created` were inserted by this very upsert and have no links to delete (in a
    backfill that is every row: one DELETE a page saved).
    """
    if not pairs:
        return
    stale = [owner for owner in pairs if owner not in created]
    if stale:
        through.objects.filter(**{f"{owner_field}__in": stale}).delete()
    rows = [(owner, other) for owner, others in pairs.items() for other in dict.fromkeys(others)]
    rows_upsert(
        through, (owner_field, other_field), rows, conflict=(owner_field, other_field), update=()
    )


def _is_current(stored, incoming, same_time_is_current: bool) -> bool:
    """Whether the stored row is as new as the incoming item (then we keep it).

    A stored row newer than the item always wins (deliveries can arrive out of order). At the same
    updated_at a sync's item is the same item again; a delivery's may not be (two labels added
    within one second), so deliveries are applied then.
    """
    if stored is None or incoming is None:
        return False
    return stored > incoming or (stored == incoming and same_time_is_current)


def _stored(repository: Repository, records: list, *fields: str) -> dict[int, tuple]:
    """{number: (fields...)} of the stored issues the records name."""
    numbers = [r.number for r in records]
    if connection.vendor == "postgresql":
        return _stored_probed(repository, numbers, fields)
    return {
        row[0]: row[1:]
        for row in Issue.objects.filter(repository=repository, number__in=numbers)
        .order_by()  # a lookup: the model's ordering would only sort it
        .values_list("number", *fields)
    }


def _stored_probed(repository: Repository, numbers: list[int], fields) -> dict[int, tuple]:
    """Postgres: each number probed in the unique (repository, number) index, by a statement
    whose text is the same for every page (prepared once, like the upserts).

    `number IN (...)` let the planner, on statistics that lag a backfill (a table it believes
    small), read every stored issue of the repository and filter them, so a page's lookup grew
    with the repository. The page's (repository, number) pairs, materialized, are joined as the
    upsert's own are: one probe of the unique index each, however many issues are stored.
    """
    columns = [_column(Issue, name) for name in fields]
    quote = connection.ops.quote_name
    number, repository_id = (quote(_column(Issue, n).column) for n in ("number", "repository"))
    # Every name here is the model's own (quoted identifiers); every value is a parameter.
    sql = (
        "WITH page AS MATERIALIZED "  # noqa: S608
        "(SELECT %s::bigint AS repository, unnest(%s::integer[]) AS number) "
        f"SELECT i.{number}, {', '.join(f'i.{quote(f.column)}' for f in columns)} "
        f"FROM page JOIN {quote(Issue._meta.db_table)} AS i "
        f"ON (i.{repository_id}, i.{number}) = (page.repository, page.number)"
    )
    with _bound_cursor() as cursor:
        cursor.execute(sql, [repository.pk, numbers])
        rows = cursor.fetchall()
    return {row[0]: tuple(row[1:]) for row in _json_decoded(rows, columns, 1)}


def _changed_rows_write(
    model: type[models.Model],
    columns: Sequence[str],
    changed: list[tuple[list, object]],
    conflict: Sequence[str],
    returning: Sequence[str] = (),
) -> list[tuple]:
    """Upsert the rows of the changed (row, record) pairs, a conflict on `conflict` updating every
    column after the first two (the key)."""
    return rows_upsert(
        model,
        columns,
        [tuple(row) for row, _ in changed],
        conflict=conflict,
        update=columns[2:],
        returning=returning,
    )


def _people_labels_write(
    repository: Repository, pairs: list[tuple[list, object]], columns
) -> tuple[dict[tuple[str, str], int], dict[str, int]]:
    """Write the people and labels of the (row, record) pairs of issues or pulls, and put the
    people's pks in the rows; returns (people, labels)."""
    people = persons_upsert(
        people=[p for _, r in pairs for p in (r.author, *getattr(r, "assignees", ()))]
        + [getattr(r, "merged_by", None) for _, r in pairs]
    )
    labels = labels_upsert(
        repository=repository, labels=[lb for _, r in pairs for lb in r.labels or []]
    )
    author = columns.index("author")
    merged_by = columns.index("merged_by") if "merged_by" in columns else None
    for row, record in pairs:
        row[author] = _person_pk(people, record.author)
        if merged_by is not None:
            row[merged_by] = _person_pk(people, record.merged_by)
    return people, labels


def _assignee_ids(record, people: dict[tuple[str, str], int]) -> list[int]:
    """The person pks of a record's assignees, those that `people` holds."""
    return [
        people[(a.source, a.external_id)]
        for a in getattr(record, "assignees", ())
        if (a.source, a.external_id) in people
    ]


def _new_rows_first() -> bool:
    """Whether new issues are inserted before the stored ones are read (`_new_rows_insert`):
    on Postgres, within a sync. A sync lists what GitHub holds now, so the people and labels of
    every listed item are current and written whether or not the item changed; a delivery's
    may be older than what is stored, so deliveries write only those of the changed items."""
    return connection.vendor == "postgresql" and _written.get() is not None


def _new_rows_insert(
    repository: Repository,
    records: list,
    *,
    columns,
    fields: tuple[str, ...],
    row_of: Callable[[object, tuple | None, datetime], list | None],
    now: datetime,
    unlisted_labels_clear: bool,
    pks: dict[int, int],
) -> dict[int, tuple]:
    """Insert the records not stored yet, with their label and assignee links, and read the
    stored fields of the others: one statement (`_json_insert_new`) where the lookup, the write
    and two link writes were four. A backfill's page is all new: it is written in that one round
    trip. Adds {number: pk} of those inserted to `pks`; returns {number: stored fields} of the
    others (which the caller decides and writes as before). A row that another writer inserted
    after the statement's snapshot was neither inserted nor seen: it is looked up again."""
    rows = [(row, record) for record in records if (row := row_of(record, None, now)) is not None]
    people, labels = _people_labels_write(repository, rows, columns)
    label_links: list[list[int]] = []
    assignee_links: list[list[int]] = []
    for _, record in rows:
        key = [repository.pk, record.number]
        if unlisted_labels_clear or record.labels is not None:
            label_links += [[*key, pk] for pk in dict.fromkeys(_label_ids(record.labels, labels))]
        assignee_links += [[*key, pk] for pk in dict.fromkeys(_assignee_ids(record, people))]
    found = _json_insert_new(
        Issue,
        columns,
        [tuple(row) for row, _ in rows],
        conflict=("repository", "number"),
        probe=fields,
        links=(
            (Issue.labels.through, "issue", "label", label_links),
            (Issue.assignees.through, "issue", "person", assignee_links),
        ),
    )
    existing: dict[int, tuple] = {}
    unseen: set[int] = set()
    for _repository, number, new_pk, stored_pk, *stored in found:
        if new_pk is not None:
            pks[number] = new_pk
        elif stored_pk is not None:
            existing[number] = tuple(stored)
        else:
            unseen.add(number)
    if unseen:
        existing.update(_stored(repository, [r for r in records if r.number in unseen], *fields))
    return existing


def _numbered_upsert(
    repository: Repository,
    records: list,
    *,
    fields: tuple[str, ...],
    columns,
    row_of: Callable[[object, tuple | None, datetime], list | None],
    unlisted_labels_clear: bool,
) -> UpsertResult:
    """Upsert issues or pulls by number: `row_of(record, stored fields, now)` is the record's row,
    or None where the stored one is current. A record without labels clears the stored ones when
    `unlisted_labels_clear`, else keeps them; assignees are written for records that carry them."""
    result = UpsertResult()
    records = list({record.number: record for record in records}.values())
    if not records:
        return result
    now = timezone.now()
    pks: dict[int, int] = {}  # number: pk of each row written
    if _new_rows_first():
        existing = _new_rows_insert(
            repository,
            records,
            columns=columns,
            fields=fields,
            row_of=row_of,
            now=now,
            unlisted_labels_clear=unlisted_labels_clear,
            pks=pks,
        )
        result.created = len(pks)
    else:
        existing = _stored(repository, records, *fields)
    changed: list[tuple[list, object]] = []
    for record in records:
        if record.number in pks:
            continue
        before = existing.get(record.number)
        row = row_of(record, before, now)
        if row is None:
            result.unchanged += 1
            continue
        if before is None:
            result.created += 1
        else:
            result.updated += 1
        changed.append((row, record))

    if changed:
        people, labels = _people_labels_write(repository, changed, columns)
        written = dict(
            _changed_rows_write(Issue, columns, changed, ("repository", "number"), ("number",))
        )
        pks.update(written)
        # rows this inserted have no links to delete
        created = frozenset(written[r.number] for _, r in changed if r.number not in existing)
        label_pairs, assignee_pairs = {}, {}
        for _, record in changed:
            pk = written[record.number]
            if unlisted_labels_clear or record.labels is not None:
                label_pairs[pk] = _label_ids(record.labels, labels)
            if hasattr(record, "assignees"):
                assignee_pairs[pk] = _assignee_ids(record, people)
        _replace_links(Issue.labels.through, "issue", "label", label_pairs, created)
        _replace_links(Issue.assignees.through, "issue", "person", assignee_pairs, created)
    result.changed_ids = [pks[r.number] for r in records if r.number in pks]
    pipeline.issues_changed(result.changed_ids)
    return result


def issues_upsert(
    *, repository: Repository, records: list[IssueRecord], from_webhook: bool = False
) -> UpsertResult:
    """Upsert issues (and PRs as an issue listing shows them) of one repository."""

    def row_of(record: IssueRecord, before: tuple | None, now: datetime) -> list | None:
        updated_at = record.updated_at or now
        reactions = record.reactions
        if reactions is None:
            reactions = (before[5], before[6]) if before else (0, {})
        if (
            before is not None
            and _is_current(before[0], updated_at, not from_webhook)
            and (not record.external_id or before[1] == record.external_id)
            and before[4] is None
            # the same snapshot again, unless only its reaction counts moved
            and (before[0] > updated_at or (before[5], before[6]) == reactions)
        ):
            return None
        if record.merge is not None:
            merged, merged_at = record.merge
        else:
            merged, merged_at = (before[2], before[3]) if before else (None, None)
        return [
            repository.pk,
            record.number,
            record.source,
            record.external_id or "",
            _text(record.node_id, 100),
            _text(record.title),
            _text(record.body),
            record.state or Issue.State.OPEN,
            _text(record.state_reason, 32),
            record.locked,
            None,  # author, once people are written
            _text(record.author_association, 32),
            _text(record.milestone, 255),
            record.comments_count,
            reactions[0],
            reactions[1],
            web_url(record.html_url),
            record.created_at or updated_at,
            updated_at,
            record.closed_at,
            record.is_pull_request,
            merged,
            merged_at,
            None,
            now,
        ]

    return _numbered_upsert(
        repository,
        records,
        fields=(
            "updated_at",
            "external_id",
            "merged",
            "merged_at",
            "deleted_at",
            "reactions_total",
            "reactions",
        ),
        columns=ISSUE_COLUMNS,
        row_of=row_of,
        unlisted_labels_clear=True,
    )


def pulls_upsert(
    *, repository: Repository, records: list[PullRecord], from_webhook: bool = False
) -> UpsertResult:
    """Upsert pull requests' own fields (a pulls listing or a pull_request delivery)."""

    def row_of(record: PullRecord, before: tuple | None, now: datetime) -> list | None:
        updated_at = record.updated_at or now
        stale = before is not None and before[0] is not None and before[0] > updated_at
        if stale or (
            before is not None
            and _is_current(before[0], updated_at, not from_webhook)
            and before[1] == record.merged
        ):
            return None
        return [
            repository.pk,
            record.number,
            _text(record.title),
            _text(record.body),
            record.state or Issue.State.OPEN,
            record.locked,
            None,  # author
            _text(record.author_association, 32),
            web_url(record.html_url),
            record.created_at or updated_at,
            updated_at,
            record.closed_at,
            True,
            record.pull_id,
            updated_at,
            record.draft,
            record.merged,
            record.merged_at,
            None,  # merged_by
            _text(record.merge_commit_sha, 64),
            _text(record.base_ref, 255),
            _text(record.head_ref, 255),
            _text(record.head_sha, 64),
            None,
            now,
        ]

    return _numbered_upsert(
        repository,
        records,
        fields=("pr_updated_at", "merged"),
        columns=PULL_COLUMNS,
        row_of=row_of,
        unlisted_labels_clear=False,
    )


def issue_mark_deleted(*, repository: Repository, number: int) -> int:
    return Issue.objects.filter(repository=repository, number=number, deleted_at=None).update(
        deleted_at=timezone.now()
    )


def issue_mark_transferred(*, repository: Repository, number: int, new_reference: str) -> int:
    return Issue.objects.filter(repository=repository, number=number).update(
        transferred_to=new_reference[:300], state=Issue.State.CLOSED
    )


# --- comments ------------------------------------------------------------------------------

COMMENT_COLUMNS = (
    "source",
    "external_id",
    "issue",
    "node_id",
    "author",
    "author_association",
    "body",
    "html_url",
    "created_at",
    "updated_at",
    "deleted_at",
    "reactions_total",
)


def comments_upsert(
    *, repository: Repository, records: list[CommentRecord], from_webhook: bool = False
) -> UpsertResult:
    """Upsert comments on issues of one repository.

    Comments of issues we do not hold yet are not written; their issue numbers come back in
    missing_issue_numbers so the caller can fetch those issues first.
    """
    result = UpsertResult()
    records = list({(r.source, r.external_id): r for r in records}.values())
    if not records:
        return result
    issue_pks = dict(
        Issue.objects.filter(
            repository=repository, number__in={r.issue_number for r in records if r.issue_number}
        ).values_list("number", "pk")
    )
    existing = {
        (row[0], row[1]): row[2:]
        for row in Comment.objects.filter(
            source__in={r.source for r in records},
            external_id__in=[r.external_id for r in records],
        ).values_list("source", "external_id", "updated_at", "reactions_total")
    }
    changed: list[tuple[list, CommentRecord]] = []
    for record in records:
        if record.issue_number not in issue_pks:
            if record.issue_number:
                result.missing_issue_numbers.add(record.issue_number)
            continue
        updated_at = record.updated_at or timezone.now()
        before = existing.get((record.source, record.external_id))
        reactions_total = record.reactions_total
        if reactions_total is None:
            reactions_total = before[1] if before else 0
        if (
            before is not None
            and _is_current(before[0], updated_at, not from_webhook)
            and (before[0] > updated_at or before[1] == reactions_total)
        ):
            result.unchanged += 1
            continue
        if before is not None:
            result.updated += 1
        else:
            result.created += 1
        row = [
            record.source,
            record.external_id,
            issue_pks[record.issue_number],
            _text(record.node_id, 100),
            None,  # author
            _text(record.author_association, 32),
            _text(record.body),
            web_url(record.html_url),
            record.created_at or updated_at,
            updated_at,
            None,
            reactions_total,
        ]
        changed.append((row, record))
    if not changed:
        return result
    people = persons_upsert(people=[r.author for _, r in changed])
    for row, record in changed:
        row[4] = _person_pk(people, record.author)
    _changed_rows_write(Comment, COMMENT_COLUMNS, changed, ("source", "external_id"))
    touched = sorted({row[2] for row, _ in changed})
    result.changed_ids.extend(touched)
    pipeline.comments_changed(touched)
    return result


def comment_mark_deleted(*, source: str, external_id: str) -> int:
    return Comment.objects.filter(source=source, external_id=external_id, deleted_at=None).update(
        deleted_at=timezone.now()
    )


# --- posts ---------------------------------------------------------------------------------

POST_COLUMNS = (
    "source",
    "external_id",
    "author",
    "text",
    "created_at",
    "lang",
    "conversation_id",
    "public_metrics",
    "entities",
    "referenced_tweets",
    "ingested_at",
    "url",
)
POST_UPDATED = ("author", "text", "public_metrics", "entities", "referenced_tweets", "url")


def posts_upsert(*, search: SavedSearch | None, records: list[PostRecord]) -> UpsertResult:
    """Upsert posts (of a saved search, which tags them: a post two searches found is stored once
    and tagged with both)."""
    result = UpsertResult()
    records = list({(r.source, r.external_id): r for r in records if r.external_id}.values())
    if not records:
        return result
    existing = set(
        Post.objects.filter(
            source__in={r.source for r in records},
            external_id__in=[r.external_id for r in records],
        ).values_list("source", "external_id")
    )
    people = persons_upsert(people=[r.author for r in records])
    now = timezone.now()
    written = rows_upsert(
        Post,
        POST_COLUMNS,
        [
            (
                r.source,
                r.external_id,
                _person_pk(people, r.author),
                _text(r.text),
                r.created_at or now,
                _text(r.lang, 8),
                _text(r.conversation_id, 32),
                r.public_metrics,
                r.entities,
                r.referenced_tweets,
                now,
                web_url(r.url),
            )
            for r in records
        ],
        conflict=("source", "external_id"),
        update=POST_UPDATED,
        returning=("source", "external_id"),
    )
    pks = sorted(pk for _, _, pk in written)
    if search is not None:
        rows_upsert(
            Post.searches.through,
            ("post", "savedsearch"),
            [(pk, search.pk) for pk in pks],
            conflict=("post", "savedsearch"),
            update=(),
        )
    result.created = sum(1 for r in records if (r.source, r.external_id) not in existing)
    result.updated = len(records) - result.created
    result.changed_ids = pks
    pipeline.posts_changed(pks)
    return result
