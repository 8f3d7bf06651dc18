"""Celery tasks of triage: thin, they take ids, load rows and call one service."""

from __future__ import annotations

import logging

from celery import shared_task
from django.db import InterfaceError, OperationalError, close_old_connections

from config.task_retries import PIPELINE_STEP
from triage import pipeline
from triage.models import Repository, SavedSearch
from triage.services import (
    classification,
    github_signin,
    inbox,
    issue_search,
    post_understanding,
    priority,
    spikes,
)
from triage.services import (
    pipeline_sweep as sweep,
)
from triage.sources.github import redelivery, schedule, sync, webhooks
from triage.sources.github.client import RateLimited, TransientGitHubError
from triage.sources.x import sync as x_sync
from triage.sources.x.client import XNotConfigured, XRateLimited, XUnavailable

logger = logging.getLogger(__name__)


# 5xx answers (after the HTTP adapter's own retries) retry the task this many times; rate limits
# have no bound: waiting for a reset never uses up the task.
TRANSIENT_RETRIES = 8


def _transient_countdown(attempt: int) -> float:
    return sync.retry_countdown(min(600, 15 * 2**attempt))


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def sync_repository(
    self, repository_id: int, full: bool = False, transient_attempts: int = 0
) -> str:
    repository = Repository.objects.on_github().filter(pk=repository_id, tracked=True).first()
    if repository is None:
        return "not tracked"
    resume = {"repository_id": repository_id, "full": False}  # the watermarks keep our place
    try:
        # one turn: the beat's run (may be skipped), or our own retry going on with the sync
        turn = schedule.sync_turn(
            repository,
            continuation=bool(self.request.retries),
            full=full,
            eager=self.request.is_eager,
        )
    except TransientGitHubError as exc:
        if transient_attempts >= TRANSIENT_RETRIES:
            raise
        kwargs = dict(resume, transient_attempts=transient_attempts + 1)
        countdown = _transient_countdown(transient_attempts)
        schedule.continuation_queued(repository=repository, countdown=countdown)
        raise self.retry(exc=exc, kwargs=kwargs, countdown=countdown) from exc
    if turn.again_in is not None:  # free the worker; go on behind the queue, or after a reset
        kwargs = dict(resume, transient_attempts=transient_attempts)
        raise self.retry(kwargs=kwargs, countdown=turn.again_in)
    logger.info("%s", turn.summary)
    return turn.summary


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def read_pull_request_commits(self, issue_id: int, transient_attempts: int = 0) -> str:
    """Commit messages of a PR a delivery said was merged (the webhook never calls GitHub)."""
    return _read_pull(self, sync.pull_request_commits_sync, issue_id, transient_attempts)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def read_pull_request_files(self, issue_id: int, transient_attempts: int = 0) -> str:
    """Changed files of a PR a delivery said was opened or pushed to (path ownership rules)."""
    return _read_pull(self, sync.pull_request_files_sync, issue_id, transient_attempts)


def _read_pull(task, read, issue_id: int, transient_attempts: int) -> str:
    """Read what a delivery asked for; a rate limit waits for its reset, a 5xx is tried
    TRANSIENT_RETRIES times (in-process, without a broker: the next sync reads it)."""
    try:
        return read(issue_id=issue_id)
    except RateLimited as exc:
        if task.request.is_eager:  # the repository's next sync reads them
            return f"{exc}; left to the next sync"
        countdown = sync.retry_countdown(exc.seconds_to_wait())
        raise task.retry(exc=exc, countdown=countdown) from exc
    except TransientGitHubError as exc:
        if task.request.is_eager:
            return f"{exc}; left to the next sync"
        if transient_attempts >= TRANSIENT_RETRIES:
            raise
        kwargs = {"issue_id": issue_id, "transient_attempts": transient_attempts + 1}
        countdown = _transient_countdown(transient_attempts)
        raise task.retry(exc=exc, kwargs=kwargs, countdown=countdown) from exc


# ignore_result: the web process enqueues these, and a result it would wait to hear of makes an
# enqueue with the broker down hang for a reconnect loop (20 s) instead of failing at once.
@shared_task(
    bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=8, ignore_result=True
)
def process_webhook_delivery(self, delivery_id: int) -> str:
    try:
        return webhooks.delivery_process(delivery_id=delivery_id)
    except (OperationalError, InterfaceError) as exc:
        # The database went away mid-delivery (a dropped connection, a restart): the delivery
        # was left pending; try again on a fresh connection.
        raise self.retry(exc=exc, countdown=min(60, 2**self.request.retries)) from exc


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def process_webhook_deliveries(delivery_ids: list[int]) -> dict[str, int]:
    """The deliveries a web process stored within one enqueue window, in the order they came.
    Each is claimed on its own: a batch redelivered after its worker died skips what was done.
    One the database failed on goes back on the queue alone, to retry as process_webhook_delivery
    does, and the rest of the batch goes on."""
    outcomes: dict[str, int] = {}
    for delivery_id in delivery_ids:
        try:
            outcome = webhooks.delivery_process(delivery_id=delivery_id)
        except (OperationalError, InterfaceError):
            logger.warning("webhook delivery %s: database error; retried alone", delivery_id)
            close_old_connections()
            process_webhook_delivery.apply_async((delivery_id,), countdown=1)
            outcome = "retried"
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    return outcomes


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def process_pending_webhook_deliveries() -> int:
    """Pick up deliveries stored while no worker ran (or whose enqueue was lost)."""
    ids = webhooks.deliveries_pending_ids()
    for delivery_id in ids:
        process_webhook_delivery.delay(delivery_id)
    return len(ids)


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def prune_webhook_deliveries() -> int:
    """The daily retention job (webhooks.deliveries_prune_expired)."""
    return webhooks.deliveries_prune_expired()


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def redeliver_failed_webhook_deliveries() -> str:
    """Every 5 minutes from beat: ask GitHub again for the deliveries it recorded as failed
    and we never stored (redelivery.py; each guid at most once, also across retries)."""
    return redelivery.failed_deliveries_redeliver().summary()


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def sync_saved_search(self, search_id: int) -> str:
    search = SavedSearch.objects.filter(pk=search_id, enabled=True).first()
    if search is None:
        return "disabled or gone"
    try:
        report = x_sync.saved_search_sync(search=search)
    except (x_sync.BudgetExhausted, XNotConfigured) as exc:
        return f"{search.name}: {exc}; skipped"  # recorded on the search; nothing to retry
    except XRateLimited as exc:
        # Free the worker; come back at x-rate-limit-reset. The since_id kept our place.
        raise self.retry(exc=exc, countdown=sync.retry_countdown(exc.seconds_to_wait())) from exc
    except XUnavailable as exc:
        if self.request.retries >= 8:
            raise
        raise self.retry(exc=exc, countdown=min(600, 15 * 2**self.request.retries)) from exc
    return report.summary()


@shared_task(acks_late=True, reject_on_worker_lost=True)
def detect_spikes() -> int:
    found = spikes.spikes_detect(components=spikes.component_scopes())
    return sum(spikes.spike_announce(spike=spike) for spike in found)


# --- classification (issue 3) --------------------------------------------------------------


@shared_task(**PIPELINE_STEP, ignore_result=True)
def index_issues(ids: list[int]) -> int:
    """Full-text search's vectors of the changed issues whose text changed (Postgres)."""
    return issue_search.issues_index(ids=ids)


@shared_task(**PIPELINE_STEP)
def classify_issues(ids: list[int]) -> str:
    summary = classification.issues_classify(ids=ids).summary()
    pipeline.issues_classified(ids)
    return summary


@shared_task(acks_late=True, reject_on_worker_lost=True, soft_time_limit=3000, time_limit=3600)
def classify_retrain_models(force: bool = False) -> str:
    return classification.classifiers_retrain(force=force).summary()


@shared_task(**PIPELINE_STEP)
def classify_posts(ids: list[int]) -> str:
    return post_understanding.posts_understand(ids=ids).summary()


@shared_task(**PIPELINE_STEP)
def classify_comments(ids: list[int]) -> str:
    """Sentiment of the comments of these issues (AFTER_COMMENTS_CHANGED passes issue ids)."""
    return classification.comments_classify(issue_ids=ids).summary()


@shared_task(**PIPELINE_STEP)
def classify_environment(ids: list[int]) -> int:
    """The environment of these issues again, with their comments (AFTER_COMMENTS_CHANGED)."""
    changed = classification.issues_environment_refresh(ids=ids)
    pipeline.environment_read(ids)  # what the reporter added may be what was missing
    return changed


@shared_task(**PIPELINE_STEP)
def update_inboxes(ids: list[int]) -> str:
    """What concerns each maintainer in these issues reaches their inbox, once."""
    return inbox.inbox_update(issue_ids=ids).summary()


@shared_task(**PIPELINE_STEP)
def classify_prioritize_issues(ids: list[int]) -> int:
    return priority.issues_prioritize(ids=ids)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def classify_reprioritize_open() -> int:
    """Hourly from beat: one classify_prioritize_issues task per chunk of open issues."""
    return priority.open_issues_reprioritize()


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def github_roles_refresh() -> dict[str, int]:
    """Daily from beat: the roles of users who sign in with GitHub follow their teams."""
    return github_signin.github_roles_refresh()


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def pipeline_sweep() -> dict[str, int]:
    """Every 10 minutes from beat: issues stored whose classification or search vector was lost
    (its task gone with the broker or a worker, or past its retries) are done again."""
    return sweep.pipeline_sweep()
