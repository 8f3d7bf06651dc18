"""Reads about X posts for the dashboard and the API."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from urllib.parse import urlencode

from django.db.models import Case, Count, F, IntegerField, Prefetch, QuerySet, Value, When
from django.db.models.functions import TruncDate
from django.utils import timezone

from triage.models import Issue, Post, PostIssueLink, SavedSearch, Spike

SENTIMENTS = [choice for choice, _ in Post.Sentiment.choices]


def spike_posts_query(spike) -> str:
    """The social feed's query string that lists a spike's posts: its search or component, and
    its hour."""
    params = {"hour": spike.hour.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
    if spike.search_id:
        params["search"] = spike.search_id
    else:
        params["component"] = spike.component
    return urlencode(params)


def post_list(
    *,
    search_id: int | None = None,
    sentiment: str = "",
    component: str = "",
    since: datetime | None = None,
    hour: datetime | None = None,
    q: str = "",
    linked: bool | None = None,
) -> QuerySet[Post]:
    posts = Post.objects.select_related("author").prefetch_related(
        "searches",
        Prefetch(
            "issue_links",
            queryset=PostIssueLink.objects.exclude(status=PostIssueLink.Status.REJECTED)
            .select_related("issue__repository")
            .order_by("-score"),
        ),
    )
    if search_id:
        posts = posts.filter(searches__id=search_id)
    if sentiment:
        posts = posts.filter(sentiment=sentiment)
    if component:
        posts = posts.filter(component_tags__contains=f"|{component}|")
    if since:
        posts = posts.filter(created_at__gte=since)
    if hour:  # the posts of one hour (a spike's)
        posts = posts.filter(created_at__gte=hour, created_at__lt=hour + timedelta(hours=1))
    if q:
        posts = posts.filter(text__icontains=q)
    if linked is not None:
        confirmed = PostIssueLink.objects.filter(status=PostIssueLink.Status.CONFIRMED)
        posts = (
            posts.filter(pk__in=confirmed.values("post_id"))
            if linked
            else posts.exclude(pk__in=confirmed.values("post_id"))
        )
    return posts.order_by("-created_at", "-id")


def _month_start() -> date:
    return timezone.now().date().replace(day=1)


def _used_this_month():
    """posts_this_month counts for the month in budget_month; in a later month nothing is used
    yet (the counter resets on the search's next run)."""
    return Case(
        When(budget_month=_month_start(), then=F("posts_this_month")),
        default=Value(0),
        output_field=IntegerField(),
    )


def saved_searches() -> QuerySet[SavedSearch]:
    return SavedSearch.objects.annotate(
        post_count=Count("posts"), used_this_month=_used_this_month()
    ).order_by("name")


@dataclass(frozen=True)
class SearchOverview:
    search: SavedSearch
    used_this_month: int
    budget_left: int
    latest_post_at: datetime | None
    chart: dict
    spikes: list[Spike]


def saved_search_overview(*, pk: int, days: int = 30) -> SearchOverview | None:
    """A saved search's page: budget of the current month, its chart and spikes."""
    search = SavedSearch.objects.annotate(used_this_month=_used_this_month()).filter(pk=pk).first()
    if search is None:
        return None
    latest = search.posts.order_by("-created_at").values_list("created_at", flat=True).first()
    return SearchOverview(
        search=search,
        used_this_month=search.used_this_month,
        budget_left=max(0, search.monthly_budget - search.used_this_month),
        latest_post_at=latest,
        chart=posts_per_day_by_sentiment(search=search, days=days, end=latest or timezone.now()),
        spikes=list(search.spikes.order_by("-hour")[:20]),
    )


def recent_spikes(limit: int = 10) -> QuerySet[Spike]:
    return Spike.objects.select_related("search").order_by("-hour")[:limit]


def posts_per_day_by_sentiment(*, search: SavedSearch, days: int = 30, end: datetime) -> dict:
    """{"days": [...], "series": {sentiment: [counts]}, "spikes": [day, ...]} for a chart."""
    start = (end - timedelta(days=days - 1)).date()
    rows = (
        Post.objects.filter(searches=search, created_at__date__gte=start)
        .annotate(day=TruncDate("created_at"))
        .values_list("day", "sentiment")
        .annotate(n=Count("id"))
    )
    counts: dict = defaultdict(lambda: defaultdict(int))
    for day, sentiment, n in rows:
        counts[sentiment or "unknown"][day] += n
    day_list = [start + timedelta(days=i) for i in range(days)]
    series = {
        name: [counts[name].get(day, 0) for day in day_list]
        for name in [*SENTIMENTS, "unknown"]
        if counts.get(name)
    }
    spike_days = sorted(
        {s.hour.date().isoformat() for s in search.spikes.filter(hour__date__gte=start)}
    )
    return {"days": [d.isoformat() for d in day_list], "series": series, "spikes": spike_days}


def issue_linked_posts(issue: Issue) -> list[PostIssueLink]:
    return list(
        PostIssueLink.objects.filter(issue=issue)
        .exclude(status=PostIssueLink.Status.REJECTED)
        .select_related("post__author")
        .order_by("status", "-post__created_at")
    )
