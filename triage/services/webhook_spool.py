"""The webhook spool: verified deliveries the database could not take, kept on the local disk
until it can.

GitHub does not redeliver by itself a delivery it got a 5xx for. So when the store fails because
the database is down or unreachable (OperationalError or InterfaceError after the store's own
retries), `delivery_accept` keeps the verified delivery here and the view answers 202 "spooled".
One file per delivery id: written under tmp/, fsynced, linked into ready/ (never over a file
already there, so a redelivery of a spooled id is spooled once) and the directory fsynced, all
before the answer. The spool is bounded (WEBHOOK_SPOOL_MAX_BYTES): past it the view answers 503,
which GitHub records as a failure that the redelivery job (triage/sources/github/redelivery.py)
asks for again.

`spool_drain` moves the files into the database through the ordinary store, unique by delivery
id (a spooled delivery stored meanwhile, by a redelivery, is a duplicate, not a second delivery),
and deletes each file only after its row committed. The web process drains its own spool, as the
Celery workers may not share the web hosts' disks: a thread of the process (`Drainer`), woken
when the process spools, when a store succeeds while files wait and by /healthz, drains every
WEBHOOK_SPOOL_DRAIN_INTERVAL_S until the spool is empty; `manage.py webhook_spool_drain` drains
at once. The processes of a host share one directory: a drain takes a file under an exclusive
flock (the kernel releases it when the process dies) and checks that the name still points to
the file it locked, so two drains never store one file at the same time. A file that cannot be
read back (truncated, corrupt) is moved to quarantine/ with an error in the log, never dropped
silently and never stopping the drain.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.db import InterfaceError, OperationalError, connections

from config import linear_re
from triage.sources.github import webhooks

logger = logging.getLogger(__name__)

MAGIC = b"rocm-triage webhook spool 1\n"
SUFFIX = ".delivery"
STALE_TMP_S = 3600  # a write that never completed (its process died) was never answered 2xx


class SpoolFull(Exception):
    """The spool holds WEBHOOK_SPOOL_MAX_BYTES already."""


class SpoolUnavailable(Exception):
    """The spool could not be written (disk full, permissions)."""


class CorruptSpoolFile(Exception):
    pass


@dataclass(frozen=True)
class SpooledDelivery:
    delivery_id: str
    event: str
    body: bytes
    hook_id: str = ""
    hook_target_type: str = ""
    hook_target_id: str = ""
    received_at: datetime = field(default_factory=lambda: datetime.now(UTC))


@dataclass
class SpoolStats:
    deliveries: int = 0
    bytes: int = 0
    quarantined: int = 0


@dataclass
class DrainReport:
    stored: int = 0
    duplicates: int = 0
    quarantined: int = 0
    remaining: int = 0
    database_error: str = ""  # why the drain stopped early: the database is still unavailable

    def summary(self) -> str:
        text = (
            f"stored {self.stored}, duplicates {self.duplicates}, "
            f"quarantined {self.quarantined}, left {self.remaining}"
        )
        if self.database_error:
            text += f" (database unavailable: {self.database_error})"
        return text


# --- accepting -------------------------------------------------------------------------------


def delivery_accept(*, delivery: SpooledDelivery, payload: dict) -> str:
    """Store a verified delivery, or spool it when the database cannot take it. Returns
    "accepted", "duplicate" or "spooled"; raises SpoolFull or SpoolUnavailable."""
    try:
        _, created = _store(delivery, payload)
    except (OperationalError, InterfaceError) as exc:
        logger.warning(
            "storing delivery %s failed (%s: %s); spooled",
            delivery.delivery_id,
            type(exc).__name__,
            str(exc).strip().splitlines()[0] if str(exc).strip() else "",
        )
        spool_put(delivery=delivery)
        drainer.kick()
        return "spooled"
    drainer.kick_if_waiting()
    return "accepted" if created else "duplicate"


def _store(delivery: SpooledDelivery, payload: dict):
    return webhooks.delivery_receive(
        delivery_id=delivery.delivery_id,
        event=delivery.event,
        body=delivery.body,
        payload=payload,
        hook_id=delivery.hook_id,
        hook_target_type=delivery.hook_target_type,
        hook_target_id=delivery.hook_target_id,
        received_at=delivery.received_at,
    )


# --- the files -------------------------------------------------------------------------------


def _directory(name: str) -> Path:
    path = Path(settings.WEBHOOK_SPOOL_DIR) / name
    path.mkdir(parents=True, exist_ok=True)
    return path


def file_name(delivery_id: str) -> str:
    """A file name for a delivery id that any id maps to alone: the id's safe characters (for a
    person reading the directory) and a hash of the whole id (GitHub's ids are UUIDs)."""
    raw = delivery_id.encode("utf-8", "surrogatepass")
    readable = linear_re.sub(r"[^A-Za-z0-9_-]", "_", delivery_id)[:64]
    return f"{readable}.{hashlib.sha256(raw).hexdigest()[:16]}{SUFFIX}"


def _encode(delivery: SpooledDelivery) -> bytes:
    header = {
        "delivery_id": delivery.delivery_id,
        "event": delivery.event,
        "hook_id": delivery.hook_id,
        "hook_target_type": delivery.hook_target_type,
        "hook_target_id": delivery.hook_target_id,
        "received_at": delivery.received_at.isoformat(),
        "body_bytes": len(delivery.body),
        "body_sha256": hashlib.sha256(delivery.body).hexdigest(),
    }
    return MAGIC + json.dumps(header).encode() + b"\n" + delivery.body


def _decode(data: bytes) -> SpooledDelivery:
    if not data.startswith(MAGIC):
        raise CorruptSpoolFile("not a spooled delivery (no spool header)")
    line, newline, body = data[len(MAGIC) :].partition(b"\n")
    try:
        header = json.loads(line)
        size, digest = int(header["body_bytes"]), header["body_sha256"]
        delivery = SpooledDelivery(
            delivery_id=str(header["delivery_id"]),
            event=str(header["event"]),
            body=body,
            hook_id=str(header.get("hook_id", "")),
            hook_target_type=str(header.get("hook_target_type", "")),
            hook_target_id=str(header.get("hook_target_id", "")),
            received_at=datetime.fromisoformat(header["received_at"]),
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise CorruptSpoolFile(f"unreadable header: {exc}") from exc
    if not newline or len(body) != size:
        raise CorruptSpoolFile(f"truncated: body of {len(body)} bytes, {size} written")
    if hashlib.sha256(body).hexdigest() != digest:
        raise CorruptSpoolFile("the body does not match its checksum")
    return delivery


def _fsync_directory(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _link_new(source: Path, target: Path) -> bool:
    """Give `source` the name `target` unless a file has it already; True if it was free."""
    try:
        os.link(source, target)
    except FileExistsError:
        return False
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EMLINK):
            raise
        if target.exists():  # a file system without hard links: a rename, after a look
            return False
        os.rename(source, target)
        return True
    return True


def spool_put(*, delivery: SpooledDelivery) -> bool:
    """Keep a delivery durably (fsynced file and directory); False if it was spooled already."""
    try:
        ready, temporaries = _directory("ready"), _directory("tmp")
        held = spool_stats().bytes
    except OSError as exc:  # no spool directory to write in (permissions, read-only disk)
        logger.error("webhook spool %s unusable: %s", settings.WEBHOOK_SPOOL_DIR, exc)
        raise SpoolUnavailable(str(exc)) from exc
    target = ready / file_name(delivery.delivery_id)
    if target.exists():
        return False
    data = _encode(delivery)
    if held + len(data) > settings.WEBHOOK_SPOOL_MAX_BYTES:
        logger.error(
            "webhook spool full (%d bytes held, WEBHOOK_SPOOL_MAX_BYTES %d): delivery %s refused "
            "with 503; the redelivery job asks GitHub for it again",
            held,
            settings.WEBHOOK_SPOOL_MAX_BYTES,
            delivery.delivery_id,
        )
        raise SpoolFull(f"the spool holds {held} bytes")
    temporary = temporaries / f"{target.name}.{uuid.uuid4().hex}"
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        created = _link_new(temporary, target)
        if temporary.exists():
            temporary.unlink()
        _fsync_directory(ready)
    except OSError as exc:
        logger.error("webhook spool: cannot write %s: %s", target, exc)
        temporary.unlink(missing_ok=True)
        raise SpoolUnavailable(str(exc)) from exc
    return created


def spool_stats() -> SpoolStats:
    stats = SpoolStats()
    for name, counted in (("ready", True), ("quarantine", False)):
        with os.scandir(_directory(name)) as entries:
            for entry in entries:
                if counted:
                    try:
                        stats.bytes += entry.stat().st_size
                    except FileNotFoundError:  # drained meanwhile
                        continue
                    stats.deliveries += 1
                else:
                    stats.quarantined += 1
    return stats


def spool_waiting() -> bool:
    with os.scandir(_directory("ready")) as entries:
        return any(entry.name.endswith(SUFFIX) for entry in entries)


class Claim:
    """A spooled file this process holds (an exclusive flock) until done() or release()."""

    def __init__(self, path: Path, fd: int, delivery: SpooledDelivery):
        self.path, self.fd, self.delivery = path, fd, delivery

    def done(self) -> None:
        """The delivery is in the database: the file goes."""
        if self.fd is not None and _names_file(self.path, self.fd):
            self.path.unlink()
        self.release()

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # and with it the lock
            self.fd = None


def _names_file(path: Path, fd: int) -> bool:
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def _read(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _ready_oldest_first() -> list[Path]:
    found = []
    with os.scandir(_directory("ready")) as entries:
        for entry in entries:
            if entry.name.endswith(SUFFIX):
                try:
                    found.append((entry.stat().st_mtime, entry.name))
                except FileNotFoundError:
                    continue
    ready = _directory("ready")
    return [ready / name for _, name in sorted(found)]


def spool_claims() -> Iterator[Claim]:
    """The spooled deliveries no other drain holds, oldest first, each claimed while it is
    handled; one that cannot be read back is quarantined on the way."""
    for path in _ready_oldest_first():
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            continue  # drained by another process
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue  # another drain holds it
        if not _names_file(path, fd):  # drained and gone between our open and our lock
            os.close(fd)
            continue
        try:
            delivery = _decode(_read(fd))
        except (CorruptSpoolFile, OSError) as exc:
            spool_quarantine(path=path, reason=str(exc))
            os.close(fd)
            continue
        claim = Claim(path, fd, delivery)
        try:
            yield claim
        finally:
            claim.release()


def spool_quarantine(*, path: Path, reason: str) -> Path:
    """Move a spooled file a drain cannot store aside, for a person, and say so in the log."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    target = _directory("quarantine") / f"{path.name}.{stamp}.{uuid.uuid4().hex[:6]}"
    os.rename(path, target)
    logger.error(
        "webhook spool: %s cannot be stored (%s); moved to %s. Its delivery was answered 202, so "
        "GitHub counts it delivered: redeliver it from the hook's Recent Deliveries (its id "
        "begins the file name) within 3 days",
        path.name,
        reason,
        target,
    )
    return target


def _sweep_stale_temporaries() -> None:
    cutoff = time.time() - STALE_TMP_S
    with os.scandir(_directory("tmp")) as entries:
        for entry in entries:
            try:
                if entry.stat().st_mtime < cutoff:
                    os.unlink(entry.path)
            except FileNotFoundError:
                continue


# --- draining ---------------------------------------------------------------------------------


def spool_drain() -> DrainReport:
    """Store every spooled delivery no other drain holds, each exactly once by delivery id; stop
    at the first sign that the database is still unavailable."""
    report = DrainReport()
    _sweep_stale_temporaries()
    for claim in spool_claims():
        delivery = claim.delivery
        try:
            _, created = _store(delivery, json.loads(delivery.body))
        except (OperationalError, InterfaceError) as exc:
            report.database_error = f"{type(exc).__name__}: {str(exc).strip()[:200]}"
            break  # the file stays for the next drain
        except Exception as exc:  # what the database refuses in this one delivery
            logger.exception("webhook spool: storing %s failed", delivery.delivery_id)
            spool_quarantine(path=claim.path, reason=f"{type(exc).__name__}: {exc}")
            report.quarantined += 1
            continue
        claim.done()
        if created:
            report.stored += 1
        else:
            report.duplicates += 1
    report.remaining = spool_stats().deliveries
    if report.stored or report.duplicates:
        logger.info("webhook spool drained: %s", report.summary())
    return report


class Drainer:
    """A thread of this process that drains the spool, every `interval_s()` while files remain,
    and ends once it is empty. A forked child (gunicorn's workers) starts without one."""

    CHECK_EVERY_S = 5.0  # kick_if_waiting looks at the directory at most this often

    def __init__(self, drain: Callable[[], DrainReport], *, interval_s: Callable[[], float]):
        self._drain, self._interval_s = drain, interval_s
        self._reset()
        os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._kicked = False
        self._last_look = 0.0

    def kick(self) -> None:
        """Drain soon (0 s interval: never in a thread, only by the command)."""
        if self._interval_s() <= 0:
            return
        with self._lock:
            self._kicked = True
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="webhook-spool-drain", daemon=True
                )
                self._thread.start()

    def kick_if_waiting(self) -> None:
        now = time.monotonic()
        if now - self._last_look < self.CHECK_EVERY_S:
            return
        self._last_look = now
        try:
            waiting = spool_waiting()
        except OSError:
            return
        if waiting:
            self.kick()

    def _run(self) -> None:
        while True:
            with self._lock:
                self._kicked = False
            try:
                left = self._drain().remaining
            except Exception:
                logger.exception("webhook spool: drain failed; tried again")
                left = 1
            finally:
                connections.close_all()  # this thread's own
            with self._lock:
                if not left and not self._kicked:
                    self._thread = None
                    return
            time.sleep(self._interval_s())


drainer = Drainer(spool_drain, interval_s=lambda: settings.WEBHOOK_SPOOL_DRAIN_INTERVAL_S)
