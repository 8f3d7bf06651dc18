"""GitHub webhook deliveries: store once, process once, through the same upserts as the sync.

Receiving stores the raw body keyed by X-GitHub-Delivery (a redelivery or a concurrent duplicate
finds the row and is not processed again) and enqueues processing on the `ingest` queue after
commit. Processing claims the row with a conditional update, so two workers never handle one
delivery, then hands the payload to the handler of its event (EVENT_HANDLERS).
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from django.conf import settings
from django.db import (
    DatabaseError,
    IntegrityError,
    InterfaceError,
    OperationalError,
    connection,
    transaction,
)
from django.db.models import F, Q
from django.utils import timezone

from config import session_locks, wiring
from triage.models import Issue, Repository, WebhookDelivery
from triage.services import batching, tracking, upsert
from triage.sources.github import app_auth, ingest

logger = logging.getLogger(__name__)

CLAIM_LEASE = timedelta(minutes=10)

# Events GitHub may send that this service does not use: stored, answered 2xx, marked ignored.
IGNORED_EVENTS = frozenset(
    {
        "branch_protection_rule",
        "check_run",
        "check_suite",
        "code_scanning_alert",
        "commit_comment",
        "create",
        "delete",
        "dependabot_alert",
        "deployment",
        "deployment_status",
        "discussion",
        "discussion_comment",
        "fork",
        "gollum",
        "member",
        "membership",
        "merge_group",
        "meta",
        "milestone",
        "organization",
        "package",
        "page_build",
        "project",
        "project_card",
        "project_column",
        "projects_v2_item",
        "public",
        "pull_request_review",
        "pull_request_review_comment",
        "pull_request_review_thread",
        "push",
        "registry_package",
        "release",
        "repository_vulnerability_alert",
        "secret_scanning_alert",
        "security_advisory",
        "sponsorship",
        "star",
        "status",
        "sub_issues",
        "team",
        "team_add",
        "watch",
        "workflow_dispatch",
        "workflow_job",
        "workflow_run",
    }
)


class Ignored(Exception):
    """The delivery is valid but there is nothing for us to do with it."""


# --- receiving -----------------------------------------------------------------------------


# A store that fails on its connection (the database restarted, a proxy or failover dropped it)
# is tried again on a new connection: GitHub never redelivers by itself what was answered 5xx.
STORE_ATTEMPTS = 4


def delivery_receive(
    *,
    delivery_id: str,
    event: str,
    body: bytes,
    payload: dict,
    hook_id: str = "",
    hook_target_type: str = "",
    hook_target_id: str = "",
    received_at: datetime | None = None,
) -> tuple[WebhookDelivery, bool]:
    """Store a verified delivery once; returns (delivery, created). Raises OperationalError or
    InterfaceError when the database cannot take it (the caller spools it: webhook_spool.py)."""
    row = {
        "delivery_id": delivery_id[:100],
        "event": event[:64],
        "hook_id": hook_id[:32],
        "hook_target_type": hook_target_type[:32],
        "hook_target_id": hook_target_id[:32],
        "received_at": received_at or timezone.now(),
    }
    for attempt in range(1, STORE_ATTEMPTS + 1):
        try:
            return _delivery_store(row=row, body=body, payload=payload)
        except (OperationalError, InterfaceError):
            # A connection that could not even be opened means the database is down or
            # unreachable, not a dropped connection: no more tries (each may take the connect
            # timeout), the caller spools it.
            never_connected = connection.connection is None
            if attempt == STORE_ATTEMPTS or connection.in_atomic_block or never_connected:
                raise
            # a commit whose answer was lost is found by the next attempt (IntegrityError:
            # stored before), so nothing is stored twice
            logger.warning("storing delivery %s: database connection lost; again", delivery_id)
            connection.close()
            time.sleep(0.05 * attempt)
    raise AssertionError("unreachable")


def _delivery_store(*, row: dict, body: bytes, payload: dict) -> tuple[WebhookDelivery, bool]:
    repository = payload.get("repository") if isinstance(payload.get("repository"), dict) else {}
    # Outside a transaction the INSERT commits by itself: one round trip, not BEGIN, INSERT and
    # COMMIT. Inside one (a caller's), a savepoint keeps that transaction usable after a duplicate.
    store = transaction.atomic() if connection.in_atomic_block else contextlib.nullcontext()
    try:
        with store:
            delivery = WebhookDelivery.objects.create(
                **row,
                action=str(payload.get("action") or "")[:64],
                repository_full_name=str(repository.get("full_name") or "")[:201],
                raw_body=body,
            )
    except IntegrityError:
        delivery = WebhookDelivery.objects.get(delivery_id=row["delivery_id"])
        if delivery.status == WebhookDelivery.Status.PENDING:
            # Stored before but not processed yet, perhaps never enqueued (the first answer was
            # a 5xx after its commit, or the broker was down): enqueue again; the claim keeps
            # it to one run.
            transaction.on_commit(lambda: _enqueue(delivery.pk))
        return delivery, False
    transaction.on_commit(lambda: _enqueue(delivery.pk))
    return delivery, True


# Sending from the web process gives up sooner than the default (settings): the rows are stored,
# and the pending sweep enqueues them once the broker is back.
ENQUEUE_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2}
# The deliveries a web process stores go to the ingest queue as one message per batch, sent by a
# thread of that process (triage/services/batching.py): at most ENQUEUE_WINDOW_S after the first,
# at once when ENQUEUE_BATCH_MAX are waiting. A request does not wait on the broker, and a burst
# costs a message per batch, not per delivery. What a killed web process held is still pending
# in the database: the sweep (process_pending_webhook_deliveries) enqueues it.
ENQUEUE_WINDOW_S = 0.05
ENQUEUE_BATCH_MAX = 50


# The tasks are sent by name (triage.tasks imports this module).
PROCESS_DELIVERIES_TASK = "triage.tasks.process_webhook_deliveries"
PROCESS_DELIVERY_TASK = "triage.tasks.process_webhook_delivery"
READ_COMMITS_TASK = "triage.tasks.read_pull_request_commits"
READ_FILES_TASK = "triage.tasks.read_pull_request_files"


def _send_batch(delivery_pks: list[int]) -> None:
    wiring.load(PROCESS_DELIVERIES_TASK).apply_async(
        (delivery_pks,), retry_policy=ENQUEUE_RETRY_POLICY
    )


_batcher = batching.Batcher(
    _send_batch, window_s=ENQUEUE_WINDOW_S, max_items=ENQUEUE_BATCH_MAX, name="webhook-enqueue"
)


def _enqueue(delivery_pk: int) -> None:
    process_webhook_delivery = wiring.load(PROCESS_DELIVERY_TASK)
    if not process_webhook_delivery.app.conf.task_always_eager:
        _batcher.add(delivery_pk)
        return
    try:  # no broker (the embedded default): processed here and now
        process_webhook_delivery.apply_async((delivery_pk,))
    except Exception:
        logger.exception("could not process webhook delivery %s; left pending", delivery_pk)


def deliveries_pending_ids(*, older_than: timedelta = timedelta(seconds=30)) -> list[int]:
    cutoff = timezone.now() - older_than
    return list(
        WebhookDelivery.objects.filter(
            status=WebhookDelivery.Status.PENDING, received_at__lt=cutoff
        )
        .filter(
            Q(processing_started_at=None)
            | Q(processing_started_at__lt=timezone.now() - CLAIM_LEASE)
        )
        .order_by("received_at")
        .values_list("pk", flat=True)[:1000]
    )


PRUNE_BATCH = 5000


def deliveries_prune_expired() -> int:
    """The retention policy: processed and ignored deliveries older than
    WEBHOOK_DELIVERY_RETENTION_DAYS go (0: none ever does). Returns rows deleted."""
    days = settings.WEBHOOK_DELIVERY_RETENTION_DAYS
    if days <= 0:
        return 0
    deleted = deliveries_prune(older_than=timedelta(days=days))
    logger.info("pruned %d webhook deliveries older than %d days", deleted, days)
    return deleted


def deliveries_prune(*, older_than: timedelta, batch: int = PRUNE_BATCH) -> int:
    """Delete processed and ignored deliveries received before `older_than` ago, `batch` rows
    per statement (short locks, small WAL bursts); failed and pending ones stay for a human or
    the sweep. Their effects (issues, comments, links) are not touched. Returns rows deleted."""
    cutoff = timezone.now() - older_than
    done = (WebhookDelivery.Status.PROCESSED, WebhookDelivery.Status.IGNORED)
    deleted = 0
    while True:
        ids = list(
            WebhookDelivery.objects.filter(received_at__lt=cutoff, status__in=done)
            .order_by()
            .values_list("pk", flat=True)[:batch]
        )
        if not ids:
            return deleted
        deleted += WebhookDelivery.objects.filter(pk__in=ids).delete()[0]


# --- processing ----------------------------------------------------------------------------


def _claim(delivery_id: int, *, locked: bool) -> bool:
    """Holding the delivery's session lock, a pending delivery is ours, whatever an earlier
    attempt left in processing_started_at (that attempt's connection, and lock, are gone);
    without session locks (SQLite) an earlier claim holds for CLAIM_LEASE."""
    now = timezone.now()
    pending = WebhookDelivery.objects.filter(pk=delivery_id, status=WebhookDelivery.Status.PENDING)
    if not locked:
        pending = pending.filter(
            Q(processing_started_at=None) | Q(processing_started_at__lt=now - CLAIM_LEASE)
        )
    return bool(pending.update(processing_started_at=now, attempts=F("attempts") + 1))


def delivery_process(*, delivery_id: int) -> str:
    """Process a stored delivery once. On Postgres the claim goes with a session lock held while
    it is processed (config/session_locks.py): a delivery whose worker or connection was lost
    midway is taken again by its retry at once, and one a live worker holds is never taken."""
    with session_locks.held("webhook-delivery", delivery_id) as lock:
        if lock is False or not _claim(delivery_id, locked=bool(lock)):
            return "already claimed or done"
        return _delivery_process(delivery_id)


def _delivery_process(delivery_id: int) -> str:
    delivery = WebhookDelivery.objects.get(pk=delivery_id)
    status, note = WebhookDelivery.Status.PROCESSED, ""
    try:
        with transaction.atomic():
            payload = json.loads(bytes(delivery.raw_body))
            handler = EVENT_HANDLERS.get(delivery.event)
            if handler is None:
                raise Ignored(f"event {delivery.event!r} is not used by this service")
            handler(payload)
            # in the handler's transaction: its writes and "processed" commit together, so a
            # connection lost in between leaves nothing half-done for the retry
            WebhookDelivery.objects.filter(pk=delivery_id).update(
                status=status, error=note, processed_at=timezone.now()
            )
        return status
    except Ignored as exc:
        status, note = WebhookDelivery.Status.IGNORED, str(exc)
    except (OperationalError, InterfaceError):
        # Transient (connection dropped, lock timeout): leave it pending for a retry.
        _unclaim(delivery_id)
        raise
    except Exception as exc:
        # The payload itself: a missing field, a wrong type, a number out of the database's
        # range (DataError), a constraint it breaks (IntegrityError). A retry would fail again.
        logger.exception("webhook delivery %s failed", delivery.delivery_id)
        status = WebhookDelivery.Status.FAILED
        note = f"could not process this {delivery.event} payload: {type(exc).__name__}: {exc}"
        note = note[:2000]
    WebhookDelivery.objects.filter(pk=delivery_id).update(
        status=status, error=note, processed_at=timezone.now()
    )
    return status


def _unclaim(delivery_id: int) -> None:
    try:
        WebhookDelivery.objects.filter(pk=delivery_id).update(processing_started_at=None)
    except DatabaseError:
        # the connection itself is what failed: once more on a new one (if that fails too,
        # the claim's lease runs out and the pending sweep takes the delivery)
        connection.close()
        WebhookDelivery.objects.filter(pk=delivery_id).update(processing_started_at=None)


# --- event handlers ------------------------------------------------------------------------


def _repository_of(payload: dict, *, former_name: str = "") -> Repository:
    """The delivery's repository, known by its GitHub id: one renamed on GitHub is ours under
    its new name (tracking.repository_of_github)."""
    data = payload.get("repository")
    if not isinstance(data, dict) or not data.get("full_name"):
        raise Ignored("delivery names no repository")
    _trusted_or_ignored(payload)
    repository = tracking.repository_of_github(data=data, former_name=former_name)
    if not repository.tracked:
        raise Ignored(f"{repository.full_name} is not tracked")
    return repository


def handle_ping(payload: dict) -> None:
    if isinstance(payload.get("repository"), dict):
        _repository_of(payload)


def handle_issues(payload: dict) -> None:
    repository = _repository_of(payload)
    issue, action = payload["issue"], payload.get("action")
    if action == "deleted":
        upsert.issue_mark_deleted(repository=repository, number=int(issue["number"]))
        return
    if action == "transferred":
        changes = payload.get("changes") or {}
        new_repo = (changes.get("new_repository") or {}).get("full_name", "")
        new_issue = changes.get("new_issue") or {}
        ingest.issues_upsert(repository=repository, items=[issue], from_webhook=True)
        upsert.issue_mark_transferred(
            repository=repository,
            number=int(issue["number"]),
            new_reference=f"{new_repo}#{new_issue.get('number', '')}",
        )
        target = Repository.objects.filter(full_name__iexact=new_repo, tracked=True).first()
        if target is not None and new_issue.get("number"):
            ingest.issues_upsert(repository=target, items=[new_issue], from_webhook=True)
        return
    ingest.issues_upsert(repository=repository, items=[issue], from_webhook=True)


def handle_issue_comment(payload: dict) -> None:
    repository = _repository_of(payload)
    issue, comment = payload["issue"], payload["comment"]
    ingest.issues_upsert(repository=repository, items=[issue], from_webhook=True)
    if payload.get("action") == "deleted":
        ingest.comment_mark_deleted(github_id=int(comment["id"]))
        return
    ingest.comments_upsert(
        repository=repository,
        items=[comment],
        issue_number=int(issue["number"]),
        from_webhook=True,
    )


# A pull request's changed files (what path ownership rules match) are read when these say its
# head or its state may have moved; `ready_for_review` sends a draft's owners their request.
READ_FILES_ACTIONS = frozenset({"opened", "synchronize", "reopened", "ready_for_review"})


def handle_pull_request(payload: dict) -> None:
    repository = _repository_of(payload)
    pull, action = payload["pull_request"], payload.get("action")
    ingest.pulls_upsert(repository=repository, items=[pull], from_webhook=True)
    # What GitHub holds beyond the delivery is read on the ingest queue, never here: the commit
    # messages of a merged PR (the release linker), the changed files of an open one.
    if action == "closed" and pull.get("merged") is True:
        task = READ_COMMITS_TASK
    elif action in READ_FILES_ACTIONS:
        task = READ_FILES_TASK
    else:
        return
    issue_id = (
        Issue.objects.filter(repository=repository, number=int(pull["number"]))
        .values_list("pk", flat=True)
        .first()
    )
    if issue_id is not None:
        transaction.on_commit(lambda: wiring.load(task).delay(issue_id), robust=True)


def handle_repository(payload: dict) -> None:
    """`renamed`: the repository (known by its id) takes its new name and keeps its history;
    the other actions (created, edited, archived, transferred, ...) are not used."""
    if payload.get("action") != "renamed":
        raise Ignored(f"repository {payload.get('action')!r} is not used by this service")
    was = ((payload.get("changes") or {}).get("repository") or {}).get("name") or {}
    repository = payload.get("repository") if isinstance(payload.get("repository"), dict) else {}
    owner = str(repository.get("full_name") or "").partition("/")[0]
    _repository_of(payload, former_name=f"{owner}/{was['from']}" if was.get("from") else "")


def handle_label(payload: dict) -> None:
    repository = _repository_of(payload)
    label = payload["label"]
    if payload.get("action") == "deleted":
        ingest.label_delete(repository=repository, label=label)
    else:
        ingest.labels_upsert(repository=repository, labels=[label])


def _trusted_or_ignored(payload: dict) -> None:
    """A delivery of the GitHub App (it names an `installation`) counts only for an account the
    operator allows (tracking.account_trusted): a public App can be installed by anyone, and an
    unknown account's repositories must not become tracked, nor its owners our maintainers. A
    repository's own webhook (no installation) was set up with the operator's secret."""
    installation = payload.get("installation")
    if not isinstance(installation, dict):
        return
    account = (installation.get("account") or {}).get("login") or (
        (payload.get("repository") or {}).get("owner") or {}
    ).get("login")
    if not tracking.account_trusted(str(account or "")):
        raise Ignored(
            f"the App's installation on {account or 'an unnamed account'} is not allowed: "
            "add the account to GITHUB_APP_ACCOUNTS"
        )


def _installation_id(payload: dict) -> int | None:
    found = (payload.get("installation") or {}).get("id")
    return found if isinstance(found, int) else None


def _installed(repositories, installation_id: int | None) -> list[str]:
    """The repositories an installation event names (GitHub's short repository objects): tracked,
    and known as the installation's (its rate budget)."""
    found = []
    for data in repositories or []:
        if isinstance(data, dict) and data.get("full_name"):
            repository = tracking.repository_of_github(data=data)
            tracking.repository_track(full_name=repository.full_name)
            Repository.objects.filter(pk=repository.pk).update(installation_id=installation_id)
            found.append(repository.full_name)
    return found


def _uninstalled(repositories) -> list[str]:
    """Stop syncing them (their issues and history stay) and forget their installation."""
    found = []
    for data in repositories or []:
        if not isinstance(data, dict) or not data.get("full_name"):
            continue
        app_auth.installation_forget(str(data["full_name"]))
        repository = (
            Repository.objects.filter(
                github_id=data.get("id") if isinstance(data.get("id"), int) else -1
            ).first()
            or Repository.objects.filter(full_name__iexact=data["full_name"]).first()
        )
        if repository is not None:
            tracking.repository_forget(repository=repository)
            Repository.objects.filter(pk=repository.pk).update(installation_id=None)
            found.append(repository.full_name)
    return found


def handle_installation(payload: dict) -> None:
    """The GitHub App installed (`created`, `unsuspend`: its repositories are tracked, with their
    sync schedules), uninstalled (`deleted`, `suspend`: syncing stops, the data stays) or given
    the permissions it asked for (`new_permissions_accepted`). Each drops the installation's
    token and what the App was known to lack, so both are asked for again."""
    action = payload.get("action")
    _trusted_or_ignored(payload)
    if action in ("created", "unsuspend"):
        _installed(payload.get("repositories"), _installation_id(payload))
    elif action in ("deleted", "suspend"):
        _uninstalled(payload.get("repositories"))
    elif action != "new_permissions_accepted":
        raise Ignored(f"installation {action!r} is not used by this service")
    app_auth.installation_changed(_installation_id(payload))


def handle_installation_repositories(payload: dict) -> None:
    """Repositories added to or removed from the App's installation."""
    _trusted_or_ignored(payload)
    if payload.get("action") == "added":
        _installed(payload.get("repositories_added"), _installation_id(payload))
    elif payload.get("action") == "removed":
        _uninstalled(payload.get("repositories_removed"))
    else:
        raise Ignored(f"installation_repositories {payload.get('action')!r} is not used")


EVENT_HANDLERS: dict[str, Callable[[dict], None]] = {
    "ping": handle_ping,
    "issues": handle_issues,
    "issue_comment": handle_issue_comment,
    "pull_request": handle_pull_request,
    "label": handle_label,
    "repository": handle_repository,
    "installation": handle_installation,
    "installation_repositories": handle_installation_repositories,
}
