"""One sending beat at a time: django-celery-beat's DatabaseScheduler behind a lease in Redis.

django-celery-beat keeps the schedules in the database, but every beat process keeps its own
clock: two of them (a deploy that overlaps the old process, a standby on a second host) would
each send every due job. This scheduler sends only while it holds the lease
`rocm-triage:beat-leader` in Redis (REDIS_URL): taken with SET NX PX, renewed on every tick by a
compare-and-extend script (only the holder can extend or release it), released on a clean stop.
A beat that dies stops renewing, and after BEAT_LEASE_S a standby beat takes the lease.

Each send first writes the job's last_run_at to the database, and a beat that takes the lease
reads the whole schedule afresh, so the new leader goes on from the old one's last runs: each
job runs once per window, also across a failover. A leader that cannot reach Redis stops sending
until it holds the lease again.

Beat outlives an outage of the database: a tick that cannot read or write the schedule (Postgres
stopped, a connection cut) logs it, drops the broken connection, and ticks again after
BEAT_OUTAGE_RETRY_S, reading the schedule afresh once the database answers; an outage of Redis
only stands it by (above). The jobs due meanwhile are sent when it can read them again, once
(their last runs are the database's). A process supervisor restarts beat if it dies anyway
(docs/DEPLOYMENT.md).

Without REDIS_URL (the embedded deployment runs no beat) it behaves like DatabaseScheduler.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import uuid

import redis
from django.conf import settings
from django.db import DatabaseError, close_old_connections, connection
from django_celery_beat.schedulers import DatabaseScheduler

logger = logging.getLogger(__name__)

LEASE_KEY = "rocm-triage:beat-leader"
BEAT_OUTAGE_RETRY_S = 5.0
_EXTEND = """
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0
"""


class LeaderDatabaseScheduler(DatabaseScheduler):
    """DatabaseScheduler that sends only while it holds the beat lease."""

    def __init__(self, *args, **kwargs):
        self.lease_s = float(settings.BEAT_LEASE_S)
        self.identity = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self.leader = False
        self._standing_by_since_start = False
        self._database_was_away = False
        self._redis = (
            redis.Redis.from_url(settings.REDIS_URL, socket_timeout=5, socket_connect_timeout=5)
            if settings.REDIS_URL
            else None
        )
        super().__init__(*args, **kwargs)

    # --- the lease ----------------------------------------------------------------------------

    def _lead(self) -> bool:
        """Hold (or take) the lease; True while this beat may send."""
        if self._redis is None:
            return True
        lease_ms = int(self.lease_s * 1000)
        try:
            if self.leader:
                if self._redis.eval(_EXTEND, 1, LEASE_KEY, self.identity, lease_ms):
                    return True
                logger.warning("beat %s lost the lease: standing by", self.identity)
                self.leader = False
            if self._redis.set(LEASE_KEY, self.identity, nx=True, px=lease_ms):
                logger.info("beat %s holds the lease: it sends the scheduled jobs", self.identity)
                self.leader = True
                self._read_schedule_afresh()
                return True
        except redis.RedisError as exc:
            if self.leader:
                logger.warning(
                    "beat %s cannot renew its lease (%s): standing by", self.identity, exc
                )
            self.leader = False
            return False
        if not self._standing_by_since_start:
            self._standing_by_since_start = True
            holder = self._redis.get(LEASE_KEY)
            logger.info(
                "beat %s stands by: %s holds the lease",
                self.identity,
                holder.decode() if holder else "another beat",
            )
        return False

    def _read_schedule_afresh(self) -> None:
        """The previous leader's last runs are in the database: start from them."""
        self.sync()
        self._initial_read = True
        self._heap = None

    # --- the scheduler ------------------------------------------------------------------------

    def tick(self, *args, **kwargs):
        if not self._lead():
            return min(self.max_interval, self.lease_s / 3)
        try:
            interval = super().tick(*args, **kwargs)
        except DatabaseError as exc:
            return self._database_away(exc)
        if self._database_was_away:
            logger.warning("beat %s: the database answers again", self.identity)
            self._database_was_away = False
        # wake in time to renew the lease
        return min(interval, self.lease_s / 3)

    def _database_away(self, exc: Exception) -> float:
        """The schedule cannot be read or written: wait, with a fresh connection and a fresh
        read of the schedule next time, instead of dying (beat's loop ends on any error)."""
        if not self._database_was_away:
            logger.warning(
                "beat %s cannot reach the database (%s): trying again every %.0f s",
                self.identity,
                exc,
                BEAT_OUTAGE_RETRY_S,
            )
        self._database_was_away = True
        with contextlib.suppress(DatabaseError):
            connection.close()
        close_old_connections()
        self._initial_read = True  # the schedule as the database has it, once it answers
        self._heap = None
        return BEAT_OUTAGE_RETRY_S

    def reserve(self, entry):
        """Write last_run_at before the job is sent: a leader that dies right after a send never
        leaves its successor a stale last run to send again.

        DatabaseScheduler.reserve leaves the sent entry, with its old last run, in the schedule
        dict (only the heap gets the next one), and writes it at the next sync. When the heap is
        then rebuilt from that dict (another beat's start added jobs: the schedule changed) the
        job is due again and sent twice. Here the next entry replaces it in the dict, as celery's
        own Scheduler.reserve does, and is written at once.
        """
        new_entry = super().reserve(entry)
        self._schedule[new_entry.name] = new_entry
        new_entry.save()
        self._dirty.discard(new_entry.name)
        return new_entry

    def close(self):
        super().close()
        if self.leader and self._redis is not None:
            with contextlib.suppress(redis.RedisError):  # else the lease runs out by itself
                self._redis.eval(_RELEASE, 1, LEASE_KEY, self.identity)
            self.leader = False
