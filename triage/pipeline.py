"""What runs after an issue, a pull request or a post changes.

Ingestion calls these hooks with the ids of the rows it changed; each step is a Celery task,
named by its dotted name in config/wiring.py (AFTER_ISSUES_CHANGED ...) so that triage never
imports the apps further down the chain (kernels_ci, releases): the whole chain is there.
Tasks are enqueued on commit, so a worker never sees a row that the transaction rolled back.
"""

from __future__ import annotations

import logging
import threading

from django.db import transaction

from config import wiring

logger = logging.getLogger(__name__)


def broker_connect_ahead() -> threading.Thread | None:
    """Open the connection the sends below use, on a thread of its own, while the caller goes on
    (a sync: with its first requests to GitHub). The first send of a process otherwise waits
    for it: importing the broker's transport and connecting took about 0.4 s, as long as
    writing 1,000 issues. With tasks in-process there is nothing to open (None). A broker that
    cannot be reached is left for the first send to report."""
    from config.celery import app

    if app.conf.task_always_eager:
        return None
    thread = threading.Thread(
        target=_connect, args=(app,), name="broker-connect-ahead", daemon=True
    )
    thread.start()
    return thread


def _connect(app) -> None:
    try:
        with app.producer_or_acquire() as producer:
            producer.connection.ensure_connection(max_retries=1)
    except Exception as exc:  # noqa: BLE001 - the first send reports it, with its own retries
        logger.debug("broker not connected ahead of the first send: %s", exc)


def _enqueue(task_names: list[str], ids: list[int]) -> None:
    if not ids:
        return
    # Import each task by its dotted name (never a silent send of an unknown name): with tasks
    # in-process (no REDIS_URL) they run here; with a broker each goes to its queue.
    tasks = [wiring.load(name) for name in task_names]
    ids = list(ids)
    transaction.on_commit(lambda: _send(tasks, ids))


def _send(tasks: list, ids: list[int]) -> None:
    """Send one change's steps through one producer, taken from the pool once for all of them.
    No step's result is kept: nothing reads it, and the sender would otherwise subscribe to
    each step's result channel (Redis) on every page of a backfill."""
    if not tasks:
        return
    app = tasks[0].app
    if app.conf.task_always_eager:
        for task in tasks:
            task.apply_async(kwargs={"ids": ids})
        return
    with app.producer_or_acquire() as producer:
        for task in tasks:
            task.apply_async(kwargs={"ids": ids}, producer=producer, ignore_result=True)


def issues_changed(ids: list[int]) -> None:
    _enqueue(wiring.AFTER_ISSUES_CHANGED, ids)


def comments_changed(issue_ids: list[int]) -> None:
    _enqueue(wiring.AFTER_COMMENTS_CHANGED, issue_ids)


def posts_changed(ids: list[int]) -> None:
    _enqueue(wiring.AFTER_POSTS_CHANGED, ids)


def issues_classified(ids: list[int]) -> None:
    _enqueue(wiring.AFTER_ISSUES_CLASSIFIED, ids)


def pull_files_read(ids: list[int]) -> None:
    """Pull requests whose changed files were read at a new head (or again: idempotent)."""
    _enqueue(wiring.AFTER_PULL_FILES_READ, ids)
