"""Spikes of X posts: an hour far above the trailing 14 days, per saved search and per component.

A spike is an hour whose count is above mean + 3 standard deviations of the hourly counts of the
14 days before it, and at least SPIKE_MIN_POSTS (three angry posts are never a spike). Each spike
is stored once (unique on search, component and hour) and announced once, through the log,
e-mail (Django's e-mail backend) and an optional Slack-compatible webhook.

The component scopes are the parts of the stack that post understanding tags posts with
(`component_scopes()`). A component spike has no search (search NULL), and Postgres treats NULLs
as distinct in a unique constraint, so the row is written under a transaction-scoped advisory
lock on its scope and hour: two detectors never store the same spike twice.
"""

from __future__ import annotations

import hashlib
import logging
import statistics
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import requests
from django.conf import settings
from django.core.mail import send_mail
from django.db import IntegrityError, connection, transaction
from django.db.models import Count
from django.db.models.functions import TruncHour
from django.utils import timezone

from triage.models import Post, SavedSearch, Spike
from triage.services.post_understanding import COMPONENT_WORDS

logger = logging.getLogger(__name__)

WINDOW = timedelta(days=14)
SIGMAS = 3.0


@dataclass(frozen=True)
class SpikeVerdict:
    is_spike: bool
    count: int
    mean: float
    stdev: float
    threshold: float


def spike_verdict(history: list[int], count: int, *, min_count: int) -> SpikeVerdict:
    """Whether `count` is a spike over `history` (hourly counts of the trailing window)."""
    mean = statistics.fmean(history) if history else 0.0
    stdev = statistics.pstdev(history) if len(history) > 1 else 0.0
    threshold = mean + SIGMAS * stdev
    return SpikeVerdict(count > threshold and count >= min_count, count, mean, stdev, threshold)


def _hour(moment: datetime) -> datetime:
    return moment.replace(minute=0, second=0, microsecond=0)


def component_scopes() -> list[str]:
    """The components spikes are detected for: every tag post understanding gives posts."""
    return list(COMPONENT_WORDS)


def _hourly_counts(*, search: SavedSearch | None, component: str, start: datetime, hours: int):
    query = Post.objects.filter(
        created_at__gte=start, created_at__lt=start + timedelta(hours=hours)
    )
    if search is not None:
        query = query.filter(searches=search)
    if component:
        query = query.filter(component_tags__contains=f"|{component}|")
    per_hour = {
        hour.astimezone(UTC): n
        for hour, n in query.annotate(hour=TruncHour("created_at", tzinfo=UTC))
        .values("hour")
        .annotate(n=Count("id"))
        .values_list("hour", "n")
    }
    start = start.astimezone(UTC)
    return [per_hour.get(start + timedelta(hours=i), 0) for i in range(hours)]


def spikes_scan(
    *, first_hour: datetime, last_hour: datetime, components: list[str] | None = None
) -> list[Spike]:
    """Check every hour from first_hour to last_hour, for every enabled search and component."""
    first, last = _hour(first_hour), _hour(last_hour)
    window = int(WINDOW.total_seconds() // 3600)
    checked = int((last - first).total_seconds() // 3600) + 1
    scopes = [(s, "") for s in SavedSearch.objects.filter(enabled=True)]
    scopes += [(None, c) for c in components or []]
    found = []
    for search, component in scopes:
        counts = _hourly_counts(
            search=search, component=component, start=first - WINDOW, hours=window + checked
        )
        for offset in range(checked):
            history, count = counts[offset : offset + window], counts[offset + window]
            verdict = spike_verdict(history, count, min_count=settings.SPIKE_MIN_POSTS)
            if verdict.is_spike:
                hour = first + timedelta(hours=offset)
                spike = _spike_record(search, component, hour, verdict)
                if spike is not None:
                    found.append(spike)
    return found


def spikes_detect(
    *, end: datetime | None = None, components: list[str] | None = None
) -> list[Spike]:
    """Check the hour of `end` (default now) and the hour before it (it may have ended)."""
    end = end or timezone.now()
    return spikes_scan(first_hour=end - timedelta(hours=1), last_hour=end, components=components)


def _scope_lock(search, component: str, hour: datetime) -> None:
    """Hold, until the transaction ends, a lock on one spike's scope and hour (Postgres;
    SQLite runs one writer at a time anyway)."""
    if connection.vendor != "postgresql":
        return
    scope = f"spike|{search.pk if search else ''}|{component}|{hour.astimezone(UTC).isoformat()}"
    digest = hashlib.blake2b(scope.encode(), digest_size=8).digest()
    key = int.from_bytes(digest, "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])


def _spike_record(search, component, hour, verdict) -> Spike | None:
    values = {
        "count": verdict.count,
        "baseline_mean": verdict.mean,
        "baseline_stdev": verdict.stdev,
        "threshold": verdict.threshold,
    }
    try:
        with transaction.atomic():
            _scope_lock(search, component, hour)
            spike = (
                Spike.objects.select_for_update()
                .filter(search=search, component=component, hour=hour)
                .order_by("id")
                .first()
            )
            if spike is None:
                return Spike.objects.create(search=search, component=component, hour=hour, **values)
            Spike.objects.filter(pk=spike.pk).update(**values)
            for name, value in values.items():
                setattr(spike, name, value)
    except IntegrityError:
        return None
    return spike


def spike_announce(*, spike: Spike) -> bool:
    """Announce once: the conditional update lets only one caller through."""
    claimed = Spike.objects.filter(pk=spike.pk, announced_at=None).update(
        announced_at=timezone.now()
    )
    if not claimed:
        return False
    text = spike.describe()
    logger.warning("X spike: %s", text)
    if settings.SPIKE_EMAIL_RECIPIENTS:
        send_mail(
            subject=f"[ROCm triage] spike: {spike.scope_name()}",
            message=text,
            from_email=None,
            recipient_list=settings.SPIKE_EMAIL_RECIPIENTS,
            fail_silently=True,
        )
    if settings.SPIKE_SLACK_WEBHOOK_URL:
        _slack_post(text)
    return True


def _slack_post(text: str) -> None:
    """POST {"text": ...} to the Slack-compatible webhook. Its URL is a secret: never logged."""
    try:
        response = requests.post(settings.SPIKE_SLACK_WEBHOOK_URL, json={"text": text}, timeout=10)
    except requests.RequestException as exc:
        logger.error("spike webhook failed: %s", type(exc).__name__)
        return
    if response.status_code >= 300:
        logger.error("spike webhook answered HTTP %s", response.status_code)
