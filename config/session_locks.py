"""Postgres session advisory locks: "someone alive is working on this row".

A conditional update (`filter(status=QUEUED).update(status=RUNNING)`) makes sure two workers
never start the same work, but when the worker that won dies (SIGKILL, the OOM killer, a lost
machine) its claim stays behind, and the redelivered task cannot tell a dead claimer from a busy
one. A session advisory lock can: the worker holds it on its database connection for as long as
it works, and Postgres releases it the moment that connection ends, also when the process dies
without a word. A redelivered task that gets the lock knows the claimer is gone and takes over;
one that does not get it knows the claimer is still at work and leaves it be.

`held(scope, key)` is a context manager that yields True (this process holds the lock), False
(another session holds it) or None (the database has no advisory locks: SQLite, where the
embedded deployment runs everything in one process and the conditional updates suffice).

Session locks need a session: behind PgBouncer, use session pooling (not transaction pooling).
"""

from __future__ import annotations

import contextlib
import hashlib

from django.db import DatabaseError, connection


def _lock_id(scope: str, key: int | str) -> int:
    """A signed 64-bit key for pg_advisory_lock, from the scope ("repro-run") and the row key."""
    digest = hashlib.blake2b(f"{scope}:{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


@contextlib.contextmanager
def held(scope: str, key: int | str):
    if connection.vendor != "postgresql":
        yield None
        return
    lock_id = _lock_id(scope, key)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [lock_id])
        acquired = bool(cursor.fetchone()[0])
    try:
        yield acquired
    finally:
        if acquired:
            # When the connection itself failed, the server has released the lock with it.
            with contextlib.suppress(DatabaseError), connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [lock_id])
