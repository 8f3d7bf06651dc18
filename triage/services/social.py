"""X posts: saved searches, ingestion through tweepy, and the links from posts to issues.

A saved search is read newest first with tweepy.Paginator from its since_id. Each page is
committed as it comes (posts unique by X id, authors by X id, a post matched by two searches
stored once and tagged with both); the since_id moves to the newest id of the run only when the
run's last page is committed, so an interrupted run is read again from the old since_id and
nothing between is lost.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from datetime import date

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from triage import pipeline
from triage.models import Post, PostIssueLink, SavedSearch, XAuthor
from triage.services.ingest import parse_timestamp
from triage.sources.x import XSource

logger = logging.getLogger(__name__)

DEFAULT_SEARCHES = [
    ("ROCm sucks", '"ROCm sucks" -is:retweet'),
    ("ROCm breakage", 'ROCm (broken OR crash OR hang OR bug OR "doesn\'t work") -is:retweet'),
    ("HIP errors", '("HIP error" OR hipErrorNoBinaryForGpu) -is:retweet'),
    ("MI300X and Strix Halo", '(MI300X OR "Strix Halo") ROCm -is:retweet'),
]

ISSUE_URL = re.compile(
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


def saved_searches_seed() -> int:
    """Create the default saved searches that do not exist yet; returns how many were made."""
    made = 0
    for name, query in DEFAULT_SEARCHES:
        _, created = SavedSearch.objects.get_or_create(
            query=query, defaults={"name": name, "monthly_budget": settings.X_MONTHLY_POST_BUDGET}
        )
        made += created
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
            "enabled": search.enabled,
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


def _month_start() -> date:
    return timezone.now().date().replace(day=1)


def _budget_left(search: SavedSearch) -> int:
    month = _month_start()
    if search.budget_month != month:
        SavedSearch.objects.filter(pk=search.pk).update(budget_month=month, posts_this_month=0)
        search.budget_month, search.posts_this_month = month, 0
    return max(0, search.monthly_budget - search.posts_this_month)


def authors_upsert(*, users: dict[str, dict]) -> dict[str, int]:
    """Upsert X users; returns {X user id: XAuthor pk}."""
    if not users:
        return {}
    XAuthor.objects.bulk_create(
        [
            XAuthor(
                x_id=int(user_id),
                username=str(user.get("username") or "")[:50],
                name=str(user.get("name") or "")[:100],
                followers_count=int((user.get("public_metrics") or {}).get("followers_count") or 0),
            )
            for user_id, user in users.items()
        ],
        update_conflicts=True,
        unique_fields=["x_id"],
        update_fields=["username", "name", "followers_count"],
    )
    return {
        str(x_id): pk
        for x_id, pk in XAuthor.objects.filter(x_id__in=[int(u) for u in users]).values_list(
            "x_id", "pk"
        )
    }


def posts_upsert(
    *, search: SavedSearch | None, posts: list[dict], users: dict[str, dict]
) -> XSyncReport:
    report = XSyncReport(search=search.name if search else "")
    posts = [p for p in posts if isinstance(p, dict) and p.get("id")]
    if not posts:
        return report
    ids = [int(p["id"]) for p in posts]
    existing = set(Post.objects.filter(x_id__in=ids).values_list("x_id", flat=True))
    authors = authors_upsert(users=users)
    now = timezone.now()
    Post.objects.bulk_create(
        [
            Post(
                x_id=int(p["id"]),
                author_id=authors.get(str(p.get("author_id"))),
                text=str(p.get("text") or ""),
                created_at=parse_timestamp(p.get("created_at")) or now,
                lang=str(p.get("lang") or "")[:8],
                conversation_id=str(p.get("conversation_id") or "")[:32],
                public_metrics=p.get("public_metrics") or {},
                entities=p.get("entities") or {},
                referenced_tweets=p.get("referenced_tweets") or [],
                ingested_at=now,
            )
            for p in posts
        ],
        update_conflicts=True,
        unique_fields=["x_id"],
        update_fields=["author", "text", "public_metrics", "entities", "referenced_tweets"],
    )
    pks = dict(Post.objects.filter(x_id__in=ids).values_list("x_id", "pk"))
    if search is not None:
        Post.searches.through.objects.bulk_create(
            [Post.searches.through(post_id=pk, savedsearch_id=search.pk) for pk in pks.values()],
            ignore_conflicts=True,
        )
    report.fetched = len(posts)
    report.created = len(set(ids) - existing)
    report.updated = len(posts) - report.created
    report.changed_ids = sorted(pks.values())
    pipeline.posts_changed(report.changed_ids)
    return report


def saved_search_sync(*, search: SavedSearch, source: XSource | None = None) -> XSyncReport:
    """Fetch the posts of one saved search newer than its since_id. Raises XError kinds."""
    if _budget_left(search) == 0:
        raise BudgetExhausted(
            f"{search.name}: the monthly budget of {search.monthly_budget} is used"
        )
    source = source or XSource()
    report = XSyncReport(search=search.name)
    newest: int | None = None
    SavedSearch.objects.filter(pk=search.pk).update(last_run_at=timezone.now())
    try:
        for page in source.search_pages(search.query, since_id=search.since_id or None):
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
        report.requests = source.requests
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
    return link
