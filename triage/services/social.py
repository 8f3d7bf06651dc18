"""X posts: saved searches, ingestion through tweepy, the links from posts to issues, and triagers'
sentiment decisions on posts.

A saved search is read newest first with tweepy.Paginator from its since_id. Each page is
committed as it comes (posts unique by X id, authors by X id, a post matched by two searches
stored once and tagged with both); the since_id moves to the newest id of the run only when the
run's last page is committed, so an interrupted run is read again from the old since_id and
nothing between is lost. X refuses a since_id older than 7 days: a watermark whose post is older
than about 6.5 days is dropped for start_time = now - 7 days (+ a margin); posts are unique, so
reading a few of them again costs budget but never duplicates.

Without X_BEARER_TOKEN nothing is seeded or scheduled at beat start, and a run records
"X_BEARER_TOKEN is not set" on its search and is skipped (XNotConfigured), not failed.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from datetime import date, datetime

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from config import linear_re
from triage.models import (
    Post,
    PostIssueLink,
    SavedSearch,
    SentimentCorrection,
    TriageAction,
)
from triage.services import priority, upsert
from triage.sources.x import records as x_records
from triage.sources.x.client import (
    XSource,
    recent_start_time,
    since_id_usable,
    snowflake_time,
)

logger = logging.getLogger(__name__)

DEFAULT_SEARCHES = [
    ("ROCm sucks", '"ROCm sucks" -is:retweet'),
    ("ROCm breakage", 'ROCm (broken OR crash OR hang OR bug OR "doesn\'t work") -is:retweet'),
    ("HIP errors", '("HIP error" OR hipErrorNoBinaryForGpu) -is:retweet'),
    ("MI300X and Strix Halo", '(MI300X OR "Strix Halo") ROCm -is:retweet'),
]

ISSUE_URL = linear_re.compile(
    r"https?://(?:www\.)?github\.com/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)/(?:issues|pull)/(\d+)"
)


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


def _free_name(wanted: str) -> str:
    """`wanted` (cut to the field's 100 characters), or "wanted (2)", "(3)" ... if it is taken."""
    base = wanted.strip()[:100] or "search"
    name, n = base, 1
    while SavedSearch.objects.filter(name=name).exists():
        n += 1
        suffix = f" ({n})"
        name = base[: 100 - len(suffix)] + suffix
    return name


@transaction.atomic
def saved_search_for_query(*, query: str, name: str = "") -> tuple[SavedSearch, bool]:
    """The saved search with this query, made (with a free name) and scheduled if new."""
    existing = SavedSearch.objects.filter(query=query).first()
    if existing is not None:
        return existing, False
    search = SavedSearch.objects.create(
        query=query,
        name=_free_name(name or query),
        interval_minutes=settings.X_SYNC_INTERVAL_MINUTES,
        monthly_budget=settings.X_MONTHLY_POST_BUDGET,
    )
    saved_search_schedule(search=search)
    return search, True


def saved_searches_seed() -> int:
    """Create the default saved searches that do not exist yet; returns how many were made."""
    return sum(saved_search_for_query(query=q, name=name)[1] for name, q in DEFAULT_SEARCHES)


def saved_searches_install() -> int:
    """At beat start: with a bearer token, seed the defaults and schedule every search; without
    one, seed nothing and keep the searches' beat entries disabled (nothing could run)."""
    if not settings.X_BEARER_TOKEN:
        logger.info("X_BEARER_TOKEN is not set: X searches are not seeded or scheduled")
        saved_searches_schedule()
        return 0
    made = saved_searches_seed()
    saved_searches_schedule()
    return made


def saved_search_schedule(*, search: SavedSearch) -> None:
    """Create or refresh the beat entry that runs this search (disabled with the search)."""
    interval, _ = IntervalSchedule.objects.get_or_create(
        every=search.interval_minutes, period=IntervalSchedule.MINUTES
    )
    PeriodicTask.objects.update_or_create(
        name=f"sync X search {search.pk}",
        defaults={
            "task": "triage.tasks.sync_saved_search",
            "interval": interval,
            "kwargs": json.dumps({"search_id": search.pk}),
            "queue": "ingest",
            "enabled": search.enabled and bool(settings.X_BEARER_TOKEN),
            "description": f"X recent search: {search.query}",
        },
    )


def saved_searches_schedule() -> None:
    for search in SavedSearch.objects.all():
        saved_search_schedule(search=search)
    every, _ = IntervalSchedule.objects.get_or_create(every=15, period=IntervalSchedule.MINUTES)
    PeriodicTask.objects.get_or_create(
        name="detect X spikes",
        defaults={"task": "triage.tasks.detect_spikes", "interval": every, "queue": "ingest"},
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


# --- links from posts to issues -------------------------------------------------------------


def explicit_issue_references(post: Post) -> set[tuple[str, int]]:
    """(OWNER/NAME, number) of every GitHub issue or PR URL in the post's entities and text."""
    texts = [post.text]
    for url in (post.entities or {}).get("urls", []) or []:
        if isinstance(url, dict):
            texts += [str(url.get("expanded_url") or ""), str(url.get("unwound_url") or "")]
    found = set()
    for text in texts:
        for owner, name, number in ISSUE_URL.findall(text):
            found.add((f"{owner}/{name}".lower(), int(number)))
    return found


def post_link_decide(*, link: PostIssueLink, user, confirm: bool) -> PostIssueLink:
    link.status = PostIssueLink.Status.CONFIRMED if confirm else PostIssueLink.Status.REJECTED
    link.decided_by, link.decided_at = user, timezone.now()
    link.save(update_fields=["status", "decided_by", "decided_at"])
    priority.issues_prioritize(ids=[link.issue_id])  # confirmed posts count toward reach
    return link


class InvalidSentiment(ValueError):
    """A sentiment correction names no sentiment the model knows."""


def post_sentiment_correct(*, post: Post, label: str, user) -> SentimentCorrection:
    """Record a triager's sentiment for a post (accepting the model's when `label` equals it).

    From then on the post keeps it (a new sentiment version does not overwrite it), and the
    latest decision per post is a training label of the sentiment model."""
    label = (label or "").strip().lower()
    if label not in Post.Sentiment.values:
        raise InvalidSentiment(
            f"unknown sentiment {label!r}: expected one of {', '.join(Post.Sentiment.values)}"
        )
    with transaction.atomic():
        correction = SentimentCorrection.objects.create(
            post=post,
            before=post.sentiment,
            before_confidence=post.sentiment_confidence,
            after=label,
            user=user,
        )
        TriageAction.objects.create(
            actor=user,
            action="post.sentiment",
            before={"post": post.external_id, "sentiment": post.sentiment},
            after={"post": post.external_id, "sentiment": label},
        )
        post.sentiment, post.sentiment_confidence = label, 1.0
        post.sentiment_corrected_at = correction.created_at
        post.save(update_fields=["sentiment", "sentiment_confidence", "sentiment_corrected_at"])
    return correction
