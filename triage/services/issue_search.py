"""Full-text search's vectors of issues (Postgres): written after the issues are stored.

The pipeline's `index_issues` step calls `issues_index` with the ids of the issues a page, a
delivery or an edit changed. Only an issue whose text (title and body, as bounded below) differs
from the text its vector was made of is read again: most changes are of state, labels or
reactions. One statement a call, whatever the number of issues. SQLite has no vectors (search
there is a substring match: triage.selectors.issues.text_search).
"""

from __future__ import annotations

from django.db import connection

from triage.models import Issue, IssueSearch

# The text a vector is made of: bounded, so a huge body can neither exceed tsvector's 1 MB nor
# fail the write (the bounds of the trigger this replaced, migration 0007).
TITLE_MAX, BODY_MAX = 1000, 50000


def issues_index(*, ids: list[int]) -> int:
    """Write the vectors of the issues among `ids` whose text changed since their vector was
    made (or that have none); returns how many were written."""
    if connection.vendor != "postgresql" or not ids:
        return 0
    issue, search = Issue._meta.db_table, IssueSearch._meta.db_table
    text = (
        f"left(coalesce(i.title, ''), {TITLE_MAX}) || ' ' || left(coalesce(i.body, ''), {BODY_MAX})"
    )
    # Every name here is the models' own; the ids are the one parameter.
    sql = (
        f"WITH page AS (SELECT i.id, {text} AS text, "  # noqa: S608
        f"encode(sha256(convert_to({text}, 'UTF8')), 'hex') AS digest "
        f"FROM {issue} AS i WHERE i.id = ANY(%s::bigint[])) "
        f"INSERT INTO {search} (issue_id, vector, digest) "
        "SELECT page.id, to_tsvector('english'::regconfig, page.text), page.digest "
        f"FROM page LEFT JOIN {search} AS s ON s.issue_id = page.id "
        "WHERE s.digest IS DISTINCT FROM page.digest "
        "ON CONFLICT (issue_id) DO UPDATE SET vector = EXCLUDED.vector, digest = EXCLUDED.digest"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [list(ids)])
        return cursor.rowcount
