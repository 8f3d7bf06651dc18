"""How the repositories of one rate budget share it: which scheduled syncs run, and in what turns.

A budget is the personal token's or one App installation's (GitHub's rule: 5,000 requests an
hour, 50 more for each repository past 20, at most 12,500). Three rules share it:

- **Webhook-fed repositories spend little.** A repository whose events arrive by webhook (it is
  held by an App installation, whose one webhook serves it, or a delivery for it came in the last
  day) is kept current by the deliveries; its scheduled sync is a reconciliation and runs only
  when its last complete sync is GITHUB_WEBHOOK_FED_SYNC_MINUTES old (default 6 hours). The other
  beat runs of it are skipped before any request.
- **A backfill takes turns.** A first (or `--full`) sync makes GITHUB_BACKFILL_SLICE_REQUESTS
  requests (200), then goes on in a task at the back of the ingest queue (`SliceSpent`), so a
  large repository's backfill never holds the others' syncs, or smaller backfills, behind it:
  every repository waiting gets its turn between two slices. While such a continuation (or one
  waiting for a rate limit's reset) is queued, the beat's runs of that repository are skipped,
  so it never holds two turns.
- **A backfill leaves a reserve** (GITHUB_RATE_RESERVE, 500): it stops when its budget falls to
  that and goes on after the reset; the rest is for the other repositories and the outbox.

The continuation marks live in the cache (Redis in production): a lost mark costs at most one
extra turn, never a sync.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, Min, Q
from django.utils import timezone

from triage.models import Repository, SyncState, WebhookDelivery
from triage.sources.github import sync
from triage.sources.github.client import RateLimited, SliceSpent

logger = logging.getLogger(__name__)

WEBHOOK_FED_WINDOW = timedelta(days=1)
# A queued continuation that has not started this long after its time was lost (a purged queue,
# a broker restart): the beat's runs take over.
CONTINUATION_GRACE = timedelta(minutes=30)


def _mark(repository: Repository) -> str:
    return f"github-sync-continues:{repository.pk}"


def continuation_queued(*, repository: Repository, countdown: float) -> None:
    """A task goes on with this repository's sync in `countdown` seconds (a slice spent, a
    limit's reset, a 5xx)."""
    at = timezone.now() + timedelta(seconds=countdown)
    timeout = max(1, int(countdown + CONTINUATION_GRACE.total_seconds()))
    cache.set(_mark(repository), at.isoformat(), timeout=timeout)


def continuation_started(*, repository: Repository) -> None:
    cache.delete(_mark(repository))


def continuation_pending(repository: Repository) -> datetime | None:
    """When the queued continuation of this repository's sync runs (None: none is queued)."""
    found = cache.get(_mark(repository))
    return datetime.fromisoformat(found) if found else None


def webhook_fed(repository: Repository) -> bool:
    """Its events arrive by webhook: its App installation's hook, or a recent delivery."""
    if repository.installation_id is not None:
        return True
    since = timezone.now() - WEBHOOK_FED_WINDOW
    return WebhookDelivery.objects.filter(
        repository_full_name__iexact=repository.full_name, received_at__gte=since
    ).exists()


def last_complete_sync(repository: Repository) -> datetime | None:
    """When every resource of the repository last synced to the end (None: never all of them)."""
    states = SyncState.objects.filter(repository=repository)
    found = states.aggregate(
        oldest=Min("last_success_at"),
        unfinished=Count("pk", filter=Q(last_success_at__isnull=True)),
        backfilled=Count("pk", filter=Q(resource=SyncState.Resource.ISSUES, backfill_done=True)),
    )
    if found["unfinished"] or not found["backfilled"]:
        return None
    return found["oldest"]


def scheduled_sync_skip(repository: Repository) -> str | None:
    """Why the beat's run of this repository's sync is skipped now (None: it runs)."""
    pending = continuation_pending(repository)
    if pending is not None:
        return f"{repository}: its sync goes on in a queued task at {pending:%H:%M:%S} UTC"
    if not webhook_fed(repository):
        return None
    synced = last_complete_sync(repository)
    if synced is None:  # never synced to the end: a backfill to finish
        return None
    due = synced + timedelta(minutes=settings.GITHUB_WEBHOOK_FED_SYNC_MINUTES)
    if timezone.now() >= due:
        return None
    return f"{repository}: webhook-fed; its next reconciliation is at {due:%Y-%m-%d %H:%M} UTC"


# --- one turn of a repository's sync (the task's body; benchmarks/org_backfill.py runs it too) ---


@dataclass
class Turn:
    summary: str
    # seconds until the sync goes on in a queued task (a slice spent, a limit to wait for);
    # None: it ended, or was skipped
    again_in: float | None = None
    synced: bool = False  # a sync ran to its end in this turn


def sync_turn(
    repository: Repository, *, continuation: bool, full: bool = False, eager: bool = False
) -> Turn:
    """One turn of the repository's sync. `continuation`: a queued task going on with it (else
    the beat's run, which the sharing rules above may skip). `eager`: in-process, with no queue
    to go behind: a backfill runs to its end, a rate limit leaves the rest to the next sync.
    TransientGitHubError (5xx, no connection) is the caller's to retry."""
    if continuation:
        continuation_started(repository=repository)
    else:
        skip = scheduled_sync_skip(repository)
        if skip is not None:
            return Turn(skip)
    # the limit of its budget (the token's, or its App installation's), shared by its repositories
    limited_until = sync.rate_limited_until(repository)
    if limited_until is not None:
        summary = f"{repository}: rate-limited until {limited_until:%Y-%m-%d %H:%M:%S} UTC"
        if not continuation or eager:
            return Turn(f"{summary}; skipped")
        # our own retry woke before the reset (countdowns stay under the broker's visibility
        # timeout): wait again
        return _again(repository, summary, (limited_until - timezone.now()).total_seconds() + 1)
    try:
        # in-process there is no queue to step aside for: a backfill goes to its end
        report = sync.repository_sync(repository=repository, full=full, sliced=not eager)
    except (sync.SyncBusy, sync.RepositoryNotFound) as exc:
        logger.warning("%s", exc)
        return Turn(str(exc))
    except RateLimited as exc:
        if eager:
            return Turn(f"{repository}: {exc}; the next sync resumes")
        if not isinstance(exc, SliceSpent):
            logger.warning("%s: %s", repository, exc)
        return _again(repository, f"{repository}: {exc}", exc.seconds_to_wait())
    return Turn(report.summary(), synced=True)


def _again(repository: Repository, summary: str, seconds: float) -> Turn:
    countdown = sync.retry_countdown(seconds)
    continuation_queued(repository=repository, countdown=countdown)
    return Turn(f"{summary}; goes on in {countdown:.0f}s", again_in=countdown)
