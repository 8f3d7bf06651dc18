"""Celery tasks of triage: thin, they take ids, load rows and call one service."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.signals import beat_init

from triage.models import Repository, SavedSearch
from triage.services import social, spikes, sync, tracking, webhooks
from triage.sources.github import RateLimited, TransientGitHubError
from triage.sources.x import XRateLimited, XUnavailable

logger = logging.getLogger(__name__)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def sync_repository(self, repository_id: int, full: bool = False) -> str:
    repository = Repository.objects.filter(pk=repository_id, tracked=True).first()
    if repository is None:
        return "not tracked"
    try:
        report = sync.repository_sync(repository=repository, full=full)
    except sync.SyncBusy as exc:
        return str(exc)
    except RateLimited as exc:
        # Free the worker and come back when the limit resets; the watermark keeps our place.
        logger.warning("%s: %s; retrying in %.0fs", repository, exc, exc.seconds_to_wait())
        raise self.retry(exc=exc, countdown=exc.seconds_to_wait()) from exc
    except TransientGitHubError as exc:
        if self.request.retries >= 8:
            raise
        raise self.retry(exc=exc, countdown=min(600, 15 * 2**self.request.retries)) from exc
    logger.info("%s", report.summary())
    return report.summary()


@shared_task(acks_late=True, reject_on_worker_lost=True)
def process_webhook_delivery(delivery_id: int) -> str:
    return webhooks.delivery_process(delivery_id=delivery_id)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def process_pending_webhook_deliveries() -> int:
    """Pick up deliveries stored while no worker ran (or whose enqueue was lost)."""
    ids = webhooks.deliveries_pending_ids()
    for delivery_id in ids:
        process_webhook_delivery.delay(delivery_id)
    return len(ids)


@beat_init.connect
def track_configured_repositories(**kwargs) -> None:
    tracking.repositories_track_configured()
    tracking.schedules_install_defaults()
    social.saved_searches_seed()
    social.saved_searches_schedule()


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def sync_saved_search(self, search_id: int) -> str:
    search = SavedSearch.objects.filter(pk=search_id, enabled=True).first()
    if search is None:
        return "disabled or gone"
    try:
        report = social.saved_search_sync(search=search)
    except social.BudgetExhausted as exc:
        return str(exc)
    except XRateLimited as exc:
        # Free the worker; come back at x-rate-limit-reset. The since_id kept our place.
        raise self.retry(exc=exc, countdown=exc.seconds_to_wait()) from exc
    except XUnavailable as exc:
        if self.request.retries >= 8:
            raise
        raise self.retry(exc=exc, countdown=min(600, 15 * 2**self.request.retries)) from exc
    return report.summary()


@shared_task(acks_late=True, reject_on_worker_lost=True)
def detect_spikes() -> int:
    found = spikes.spikes_detect()
    return sum(spikes.spike_announce(spike=spike) for spike in found)


# --- classification (issue 3) --------------------------------------------------------------


@shared_task(acks_late=True, reject_on_worker_lost=True, soft_time_limit=300, time_limit=360)
def classify_issues(ids: list[int]) -> str:
    from triage.services import classification

    return classification.issues_classify(ids=ids).summary()


@shared_task(acks_late=True, reject_on_worker_lost=True, soft_time_limit=3000, time_limit=3600)
def classify_retrain_models(force: bool = False) -> str:
    from triage.services import classification

    return classification.classifiers_retrain(force=force).summary()


@beat_init.connect
def schedule_weekly_retraining(**kwargs) -> None:
    from triage.services import classification_schedule

    classification_schedule.retraining_schedule_install()


@shared_task(acks_late=True, reject_on_worker_lost=True, soft_time_limit=300, time_limit=360)
def classify_posts(ids: list[int]) -> str:
    from triage.services import post_understanding

    return post_understanding.posts_understand(ids=ids).summary()
