"""X posts: saved searches and their schedules, the links from posts to issues, and triagers'
sentiment decisions on posts. Reading a saved search's posts is X's own (triage/sources/x/sync.py).
"""

from __future__ import annotations

import json
import logging

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from config import github_web, linear_re
from triage.models import (
    Post,
    PostIssueLink,
    SavedSearch,
    SentimentCorrection,
    TriageAction,
)
from triage.services import priority

logger = logging.getLogger(__name__)

DEFAULT_SEARCHES = [
    ("ROCm sucks", '"ROCm sucks" -is:retweet'),
    ("ROCm breakage", 'ROCm (broken OR crash OR hang OR bug OR "doesn\'t work") -is:retweet'),
    ("HIP errors", '("HIP error" OR hipErrorNoBinaryForGpu) -is:retweet'),
    ("MI300X and Strix Halo", '(MI300X OR "Strix Halo") ROCm -is:retweet'),
]

ISSUE_URL = linear_re.compile(  # on one of GitHub's hosts (config.github_web)
    r"https?://([A-Za-z0-9.-]{1,253})/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)/(?:issues|pull)/(\d+)"
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


# --- links from posts to issues -------------------------------------------------------------


def explicit_issue_references(post: Post) -> set[tuple[str, int]]:
    """(OWNER/NAME, number) of every GitHub issue or PR URL in the post's entities and text."""
    texts = [post.text]
    for url in (post.entities or {}).get("urls", []) or []:
        if isinstance(url, dict):
            texts += [str(url.get("expanded_url") or ""), str(url.get("unwound_url") or "")]
    found = set()
    for text in texts:
        for host, owner, name, number in ISSUE_URL.findall(text):
            if github_web.is_github_host(host):
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
