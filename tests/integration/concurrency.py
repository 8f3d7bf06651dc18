"""Two transactions at once, on Postgres: run one on a thread and wait until it waits for ours."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from django.db import connection


def _waiting_on_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
            "AND datname = current_database()"
        )
        return cursor.fetchone()[0]


def start_and_meet(work: Callable[[], None], seconds: float = 10) -> threading.Thread:
    """Start `work` on a thread with its own connection (closed when it ends) and return once
    it waits on a lock (this test's open transaction); fails if it ended instead."""

    def run():
        try:
            work()
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + seconds
    while not _waiting_on_a_lock() and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert thread.is_alive(), "the other transaction must meet this one's open transaction"
    return thread
