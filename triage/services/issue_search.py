"""Full-text search's vectors of issues (Postgres): written after the issues are stored.

The pipeline's `index_issues` step calls `issues_index` with the ids of the issues a page, a
delivery or an edit changed. Only an issue whose text (title and body, as bounded below) differs
from the text its vector was made of is read again: most changes are of state, labels or
reactions. One statement a call, whatever the number of issues. SQLite has no vectors (search
there is a substring match: triage.selectors.issues.text_search).

Any body is indexed in bounded time: Postgres' text parser reads `<` as the start of a tag or an
HTML comment and is quadratic on a body of repeated `<!--` (8-10 s for one 65 kB body), so the
parser is given the text with `<` and `>` as spaces (a tag's words are still words); and every
statement runs under SEARCH_INDEX_TIMEOUT_MS. A call whose statement runs out of time indexes its
issues one by one, and an issue that alone runs out of time is indexed by its title (with its
text's digest, so it is not read again until it changes). The task runs on the classify queue,
never behind webhook deliveries.
"""

from __future__ import annotations

import logging

from django.db import OperationalError, connection, transaction

from triage.models import Issue, IssueSearch

logger = logging.getLogger(__name__)

# The text a vector is made of: bounded, so a huge body can neither exceed tsvector's 1 MB nor
# fail the write (the bounds of the trigger this replaced, migration 0007).
TITLE_MAX, BODY_MAX = 1000, 50000
SEARCH_INDEX_TIMEOUT_MS = 5000  # a statement's budget, whatever its text


def issues_index(*, ids: list[int]) -> int:
    """Write the vectors of the issues among `ids` whose text changed since their vector was
    made (or that have none); returns how many were written."""
    if connection.vendor != "postgresql" or not ids:
        return 0
    try:
        return _index(list(ids), title_only=False)
    except _OutOfTime:
        pass
    written = 0
    for one in ids:
        try:
            written += _index([one], title_only=False)
        except _OutOfTime:
            logger.warning("issue %s: its text ran out of time to index: its title is", one)
            written += _index([one], title_only=True)
    return written


class _OutOfTime(Exception):
    pass


def _index(ids: list[int], *, title_only: bool) -> int:
    issue, search = Issue._meta.db_table, IssueSearch._meta.db_table
    text = (
        f"left(coalesce(i.title, ''), {TITLE_MAX}) || ' ' || left(coalesce(i.body, ''), {BODY_MAX})"
    )
    parsed = f"left(page.text, {TITLE_MAX})" if title_only else "page.text"
    # Every name here is the models' own; the ids are the one parameter.
    sql = (
        f"WITH page AS (SELECT i.id, {text} AS text, "  # noqa: S608
        f"encode(sha256(convert_to({text}, 'UTF8')), 'hex') AS digest "
        f"FROM {issue} AS i WHERE i.id = ANY(%s::bigint[])) "
        f"INSERT INTO {search} (issue_id, vector, digest) "
        f"SELECT page.id, to_tsvector('english'::regconfig, translate({parsed}, '<>', '  ')), "
        f"page.digest FROM page LEFT JOIN {search} AS s ON s.issue_id = page.id "
        "WHERE s.digest IS DISTINCT FROM page.digest "
        "ON CONFLICT (issue_id) DO UPDATE SET vector = EXCLUDED.vector, digest = EXCLUDED.digest"
    )
    budget = 0 if title_only else int(SEARCH_INDEX_TIMEOUT_MS)  # a title is 1,000 characters
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SHOW statement_timeout")
            before = cursor.fetchone()[0]
            cursor.execute("SELECT set_config('statement_timeout', %s, true)", [str(budget)])
            cursor.execute(sql, [ids])
            written = cursor.rowcount
            # an enclosing transaction (a sync's, in process) keeps its own budget after this
            cursor.execute("SELECT set_config('statement_timeout', %s, true)", [before])
            return written
    except OperationalError as exc:
        if getattr(exc.__cause__, "sqlstate", "") == "57014":  # query_canceled: the timeout
            raise _OutOfTime from None
        raise
