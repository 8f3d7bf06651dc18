"""What runs after an issue, a pull request or a post changes.

Ingestion calls these hooks with the ids of the rows it changed; each step is a Celery task,
named by its dotted name in config/wiring.py (AFTER_ISSUES_CHANGED ...) so that triage never
imports the apps further down the chain (kernels_ci, releases): the whole chain is there.
Tasks are enqueued on commit, so a worker never sees a row that the transaction rolled back.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.db import transaction

from config import wiring
from config.celery import app

logger = logging.getLogger(__name__)


def broker_connect_ahead() -> threading.Thread | None:
    """Open the connection the sends below use, on a thread of its own, while the caller goes on
    (a sync: with its first requests to GitHub). The first send of a process otherwise waits
    for it: importing the broker's transport and connecting took about 0.4 s, as long as
    writing 1,000 issues. With tasks in-process there is nothing to open (None). A broker that
    cannot be reached is left for the first send to report."""
    if runs_in_process():
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


# The hooks: each names its list of steps in config/wiring.py.
HOOKS = {
    "issues_changed": "AFTER_ISSUES_CHANGED",
    "comments_changed": "AFTER_COMMENTS_CHANGED",
    "posts_changed": "AFTER_POSTS_CHANGED",
    "issues_classified": "AFTER_ISSUES_CLASSIFIED",
    "pull_files_read": "AFTER_PULL_FILES_READ",
    "environment_read": "AFTER_ENVIRONMENT_READ",
}

# Ids by hook ({"issues_changed": [1, 2]}), as `gathered` collects them.
Gathered = dict[str, list[int]]

# Where a caller gathers the hooks' ids instead of sending them on commit (`gathered`).
_gathering: ContextVar[Gathered | None] = ContextVar("pipeline_gathering", default=None)


def _tasks(hook: str) -> list:
    # Import each task by its dotted name (never a silent send of an unknown name): with tasks
    # in-process (no REDIS_URL) they run here; with a broker each goes to its queue.
    return [wiring.load(name) for name in getattr(wiring, HOOKS[hook])]


def _enqueue(hook: str, ids: list[int]) -> None:
    if not ids:
        return
    gathering = _gathering.get()
    if gathering is not None:
        gathering.setdefault(hook, []).extend(ids)
        return
    tasks, ids = _tasks(hook), list(ids)
    transaction.on_commit(lambda: _send(tasks, ids))


@contextmanager
def gathered() -> Iterator[Gathered]:
    """Within it, the hooks below gather their ids ({hook: [ids]}) instead of sending them when
    the transaction commits; the caller keeps them and sends them on (`gathered_send`). A sync
    holds those of a transaction's pages in its state row, committed with them, and sends them
    after the commit, one send a step: a send a step and a page cost a backfill much of its
    time."""
    gathering: Gathered = {}
    token = _gathering.set(gathering)
    try:
        yield gathering
    finally:
        _gathering.reset(token)


def gathered_merge(held: Gathered, more: Gathered) -> Gathered:
    """The ids of both, by hook, each id once."""
    merged = {hook: list(ids) for hook, ids in held.items()}
    for hook, ids in more.items():
        merged[hook] = list(dict.fromkeys([*merged.get(hook, []), *ids]))
    return merged


def gathered_without(held: Gathered, sent: Gathered) -> Gathered:
    """The ids of `held` not in `sent`, by hook (hooks left with none are dropped)."""
    left = {}
    for hook, ids in held.items():
        gone = set(sent.get(hook, ()))
        if rest := [pk for pk in ids if pk not in gone]:
            left[hook] = rest
    return left


def runs_in_process() -> bool:
    """Whether the steps run in this process when sent (no broker: the embedded default)."""
    return bool(app.conf.task_always_eager)


def gathered_send(held: Gathered) -> None:
    """Send gathered ids on, as the hooks would have: each hook's steps once, with all its ids.
    A hook this version does not know (held by an older one) is logged and left out."""
    for hook, ids in held.items():
        if hook not in HOOKS:
            logger.warning("held pipeline ids of an unknown hook %r left out", hook)
            continue
        if ids:
            _send(_tasks(hook), [int(pk) for pk in ids])


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
    _enqueue("issues_changed", ids)


def comments_changed(issue_ids: list[int]) -> None:
    _enqueue("comments_changed", issue_ids)


def posts_changed(ids: list[int]) -> None:
    _enqueue("posts_changed", ids)


def issues_classified(ids: list[int]) -> None:
    _enqueue("issues_classified", ids)


def pull_files_read(ids: list[int]) -> None:
    """Pull requests whose changed files were read at a new head (or again: idempotent)."""
    _enqueue("pull_files_read", ids)


def environment_read(ids: list[int]) -> None:
    """Issues whose environment was read again with their comments (classify_environment)."""
    _enqueue("environment_read", ids)
