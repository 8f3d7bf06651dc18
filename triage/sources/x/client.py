"""X (Twitter) API v2 through the real tweepy client: the one module that talks to X.

tweepy hard-codes https://api.twitter.com; X_API_URL (a proxy, a regional endpoint, or our test
emulator) is honoured by a requests adapter mounted on the client's own session that rewrites
the host, not by patching tweepy. A rate limit is never slept on (no wait_on_rate_limit): it
raises XRateLimited with the reset time, and the Celery task reschedules itself for then.

Recent search reaches back 7 days, and X refuses (400) a since_id or start_time older than
that; `since_id_usable` says whether a watermark is still young enough to send.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import requests
import tweepy
from django.conf import settings
from requests.adapters import HTTPAdapter

TWEEPY_HOST = "https://api.twitter.com"

TWEET_FIELDS = [
    "created_at",
    "public_metrics",
    "lang",
    "entities",
    "conversation_id",
    "referenced_tweets",
    "author_id",
]
USER_FIELDS = ["username", "name", "public_metrics"]
PAGE_SIZE = 100
RECENT_WINDOW = timedelta(days=7)
# A watermark older than this is dropped for start_time = now - 7 days + START_TIME_MARGIN.
SINCE_ID_MAX_AGE = timedelta(days=6, hours=12)
START_TIME_MARGIN = timedelta(minutes=10)
SNOWFLAKE_EPOCH_MS = 1288834974657


class XError(Exception):
    pass


class XUnavailable(XError):
    """5xx or no connection: try again later."""


class XNotConfigured(XError):
    """No bearer token: nothing to try until one is set."""


class XRateLimited(XError):
    def __init__(self, reset_at: datetime):
        super().__init__(f"X rate limit exceeded; resets at {reset_at.isoformat()}")
        self.reset_at = reset_at

    def seconds_to_wait(self) -> float:
        return max(1.0, (self.reset_at - datetime.now(UTC)).total_seconds() + 1)


class BaseURLAdapter(HTTPAdapter):
    """Sends requests for https://api.twitter.com to another base URL."""

    def __init__(self, base_url: str, **kwargs):
        super().__init__(**kwargs)
        self.base_url = base_url.rstrip("/")

    def send(self, request, *args, **kwargs):
        if request.url.startswith(TWEEPY_HOST):
            request.url = self.base_url + request.url[len(TWEEPY_HOST) :]
        return super().send(request, *args, **kwargs)


def build_client() -> tweepy.Client:
    if not settings.X_BEARER_TOKEN:
        raise XNotConfigured("X_BEARER_TOKEN is not set")
    client = tweepy.Client(bearer_token=settings.X_BEARER_TOKEN, wait_on_rate_limit=False)
    if settings.X_API_URL.rstrip("/") != TWEEPY_HOST:
        client.session.mount(TWEEPY_HOST, BaseURLAdapter(settings.X_API_URL))
    return client


@dataclass
class SearchPage:
    posts: list[dict]
    users: dict[str, dict]
    newest_id: str | None
    next_token: str | None


@dataclass
class XSource:
    client: tweepy.Client = field(default_factory=build_client)
    requests: int = 0

    def search_pages(
        self, query: str, since_id: str | None = None, start_time: datetime | None = None
    ):
        """Yield pages of a recent search, newest first, through tweepy.Paginator.

        X refuses since_id together with start_time: give one of them."""
        if since_id and start_time:
            raise ValueError("give since_id or start_time, not both")
        kwargs = dict(
            query=query,
            max_results=PAGE_SIZE,
            expansions=["author_id"],
            tweet_fields=TWEET_FIELDS,
            user_fields=USER_FIELDS,
        )
        if since_id:
            kwargs["since_id"] = since_id
        if start_time:
            kwargs["start_time"] = start_time.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        paginator = tweepy.Paginator(self.client.search_recent_tweets, **kwargs)
        iterator = iter(paginator)
        while True:
            self.requests += 1
            try:
                response = next(iterator)
            except StopIteration:
                self.requests -= 1
                return
            except tweepy.TooManyRequests as exc:
                reset = exc.reset_time or int(time.time()) + 60
                raise XRateLimited(datetime.fromtimestamp(reset, tz=UTC)) from exc
            except (tweepy.TwitterServerError, requests.ConnectionError) as exc:
                raise XUnavailable(f"X is unavailable: {exc}") from exc
            except tweepy.HTTPException as exc:
                raise XError(f"X refused the search: {exc}") from exc
            yield _page(response)


def snowflake_time(post_id: int) -> datetime:
    """When X made this id (its first 41 bits are milliseconds since X's epoch)."""
    return datetime.fromtimestamp(((int(post_id) >> 22) + SNOWFLAKE_EPOCH_MS) / 1000, tz=UTC)


def since_id_usable(created_at: datetime | None, now: datetime) -> bool:
    """Whether a watermark whose post was made at `created_at` may still be sent as since_id."""
    return created_at is not None and now - created_at < SINCE_ID_MAX_AGE


def recent_start_time(now: datetime) -> datetime:
    """The oldest start_time X accepts, with a margin for clocks and the request's travel."""
    return now - RECENT_WINDOW + START_TIME_MARGIN


def _page(response) -> SearchPage:
    posts = [tweet.data for tweet in response.data or []]
    users = {str(user.id): user.data for user in (response.includes or {}).get("users", [])}
    meta = response.meta or {}
    return SearchPage(
        posts=posts, users=users, newest_id=meta.get("newest_id"), next_token=meta.get("next_token")
    )
