"""A sync's page meets an issue that a webhook delivery is inserting at that moment, on Postgres.

Within a sync a page's new issues are inserted first and the stored ones read in the same
statement (triage/services/upsert.py `_new_rows_insert`). An issue that another transaction
inserts while the statement runs is neither: the insert waits for that transaction and then
leaves the row alone, and the statement's snapshot, taken before that commit, does not show
it. It must be read again and decided by the usual rules, not taken for new and overwritten by
an older snapshot.
"""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from tests.integration.concurrency import start_and_meet
from tests.triage.test_ingest import item
from triage.models import Issue
from triage.services import upsert
from triage.sources.github import ingest

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_an_issue_a_delivery_inserts_meanwhile_is_read_again_not_overwritten(make):
    assert connection.vendor == "postgresql", "run with DATABASE_URL=postgres://..."
    repository = make.repository()
    outcome: dict = {}

    def sync_page():
        try:
            with upsert.sync_memo(), transaction.atomic():
                outcome["result"] = ingest.issues_upsert(
                    repository=repository,
                    items=[
                        item(number=4, id=4004, title="new in the listing"),
                        # the listing's snapshot of #5 is older than the delivery's
                        item(number=5, id=5005, title="older", updated_at="2026-01-02T00:00:00Z"),
                    ],
                )
        except Exception as exc:  # what the sync would have died of
            outcome["error"] = exc

    with transaction.atomic():  # the delivery: inserted, not committed yet
        ingest.issues_upsert(
            repository=repository,
            items=[
                item(
                    number=5,
                    id=5005,
                    title="from the delivery",
                    updated_at="2026-01-05T00:00:00Z",
                    user={"id": 2, "login": "bo"},
                )
            ],
            from_webhook=True,
        )
        sync = start_and_meet(sync_page)
    sync.join(timeout=30)

    assert "error" not in outcome, f"the page failed: {outcome.get('error')!r}"
    result = outcome["result"]
    assert (result.created, result.updated, result.unchanged) == (1, 0, 1)
    assert Issue.objects.get(repository=repository, number=5).title == "from the delivery"
    assert Issue.objects.get(repository=repository, number=4).title == "new in the listing"
