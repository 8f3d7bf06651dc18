"""Spikes of X posts: an hour far above the trailing 14 days, per saved search and per component.

A spike is an hour whose count is above mean + 3 standard deviations of the hourly counts of the
14 days before it, and at least SPIKE_MIN_POSTS (three angry posts are never a spike). Each spike
is stored once (unique on search, component and hour) and announced once, through the log,
e-mail (Django's e-mail backend) and an optional Slack-compatible webhook.
"""

from __future__ import annotations

import logging
import statistics
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta

import requests
from django.conf import settings
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.utils import timezone

from triage.models import Post, SavedSearch, Spike

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


def hourly_counts(posts: list[tuple[datetime, str]], start: datetime, hours: int) -> list[int]:
    counter = Counter(_hour(created) for created, _ in posts)
    return [counter.get(start + timedelta(hours=i), 0) for i in range(hours)]


def _hourly_counts(*, search: SavedSearch | None, component: str, start: datetime, hours: int):
    query = Post.objects.filter(
        created_at__gte=start, created_at__lt=start + timedelta(hours=hours)
    )
    if search is not None:
        query = query.filter(searches=search)
    if component:
        query = query.filter(component_tags__contains=f"|{component}|")
    return hourly_counts(list(query.values_list("created_at", "lang")), start, hours)


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


def _spike_record(search, component, hour, verdict) -> Spike | None:
    try:
        with transaction.atomic():
            spike, _ = Spike.objects.update_or_create(
                search=search,
                component=component,
                hour=hour,
                defaults={
                    "count": verdict.count,
                    "baseline_mean": verdict.mean,
                    "baseline_stdev": verdict.stdev,
                    "threshold": verdict.threshold,
                },
            )
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
        try:
            requests.post(settings.SPIKE_SLACK_WEBHOOK_URL, json={"text": text}, timeout=10)
        except requests.RequestException as exc:
            logger.error("spike webhook failed: %s", type(exc).__name__)
    return True
