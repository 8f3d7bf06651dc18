"""X's saved searches read through tweepy, one page at a time into the one upsert path.

A saved search is read newest first with tweepy.Paginator from its since_id. Each page is
committed as it comes (posts unique by X id, authors by X id, a post matched by two searches
stored once and tagged with both); the since_id moves to the newest id of the run only when the
run's last page is committed, so an interrupted run is read again from the old since_id and
nothing between is lost. X refuses a since_id older than 7 days: a watermark whose post is older
than about 6.5 days is dropped for start_time = now - 7 days (+ a margin); posts are unique, so
reading a few of them again costs budget but never duplicates.

Without X_BEARER_TOKEN a run records "X_BEARER_TOKEN is not set" on its search and is skipped
(XNotConfigured), not failed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import date, datetime

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from triage.models import Post, SavedSearch
from triage.services import upsert
from triage.sources.x import records as x_records
from triage.sources.x.client import XSource, recent_start_time, since_id_usable, snowflake_time

logger = logging.getLogger(__name__)


class BudgetExhausted(Exception):
    pass


@dataclass
class XSyncReport:
    search: str
    fetched: int = 0
    created: int = 0
    updated: int = 0
    requests: int = 0
    changed_ids: list[int] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"{self.search}: fetched {self.fetched}, created {self.created}, "
            f"updated {self.updated}, requests {self.requests}"
        )


def month_start() -> date:
    return timezone.now().date().replace(day=1)


def _watermark_time(since_id: str) -> datetime | None:
    """When the watermark's post was made: from our copy of it, else from the id itself."""
    if not since_id.isdigit():
        return None
    created = (
        Post.objects.filter(source=x_records.SOURCE, external_id=since_id)
        .values_list("created_at", flat=True)
        .first()
    )
    return created or snowflake_time(int(since_id))


def _budget_left(search: SavedSearch) -> int:
    month = month_start()
    if search.budget_month != month:
        SavedSearch.objects.filter(pk=search.pk).update(budget_month=month, posts_this_month=0)
        search.budget_month, search.posts_this_month = month, 0
    return max(0, search.monthly_budget - search.posts_this_month)


def posts_upsert(
    *, search: SavedSearch | None, posts: list[dict], users: dict[str, dict]
) -> XSyncReport:
    """Write one page of X posts (and their authors, as people of source "x")."""
    result = upsert.posts_upsert(search=search, records=x_records.posts(posts, users))
    return XSyncReport(
        search=search.name if search else "",
        fetched=result.fetched,
        created=result.created,
        updated=result.updated,
        changed_ids=result.changed_ids,
    )


def saved_search_sync(*, search: SavedSearch, source: XSource | None = None) -> XSyncReport:
    """Fetch the posts of one saved search newer than its since_id. Raises XError kinds."""
    if _budget_left(search) == 0:
        raise BudgetExhausted(
            f"{search.name}: the monthly budget of {search.monthly_budget} is used"
        )
    report = XSyncReport(search=search.name)
    newest: int | None = None
    now = timezone.now()
    SavedSearch.objects.filter(pk=search.pk).update(last_run_at=now)
    since_id, start_time = search.since_id or None, None
    if since_id and not since_id_usable(_watermark_time(since_id), now):
        logger.info("%s: the since_id is older than X allows; reading 7 days back", search.name)
        since_id, start_time = None, recent_start_time(now)
    try:
        source = source or XSource()
        pages = source.search_pages(search.query, since_id=since_id, start_time=start_time)
        for page in pages:
            with transaction.atomic():
                result = posts_upsert(search=search, posts=page.posts, users=page.users)
                SavedSearch.objects.filter(pk=search.pk).update(
                    posts_this_month=F("posts_this_month") + len(page.posts),
                    requests_used=F("requests_used") + 1,
                )
            report.fetched += result.fetched
            report.created += result.created
            report.updated += result.updated
            page_ids = [int(p["id"]) for p in page.posts if p.get("id")]
            newest = max([newest or 0, *page_ids]) or None
            search.posts_this_month += len(page.posts)
            if search.posts_this_month >= search.monthly_budget:
                logger.warning("%s: monthly post budget reached; stopping", search.name)
                break
        else:
            if newest and newest > int(search.since_id or 0):
                search.since_id = str(newest)
        search.last_success_at, search.last_error = timezone.now(), ""
        SavedSearch.objects.filter(pk=search.pk).update(
            since_id=search.since_id, last_success_at=search.last_success_at, last_error=""
        )
    except Exception as exc:
        SavedSearch.objects.filter(pk=search.pk).update(last_error=str(exc)[:2000])
        raise
    finally:
        report.requests = source.requests if source is not None else 0
    return report
