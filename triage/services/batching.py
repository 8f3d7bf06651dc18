"""Coalesce sends from a web process: what requests add goes out in one call per short window.

The webhook view stores a delivery and answers; sending one broker message per delivery from the
request costs more than the store itself (Celery builds, serialises and publishes each). A
`Batcher` collects what the requests of one process add and a thread of that process sends it
as one call: at most `window_s` after the first item, at once when `max_items` are waiting. The
request never waits on the broker. What a process holds when it exits normally is sent by an
atexit hook; what a killed process held is not, so the callers use it only for work whose own
record is already committed and that a sweep finds again (webhook deliveries left pending).
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
from collections.abc import Callable

logger = logging.getLogger(__name__)


class Batcher:
    def __init__(
        self, send: Callable[[list], None], *, window_s: float, max_items: int, name: str
    ) -> None:
        if window_s <= 0 or max_items < 1:
            raise ValueError("window_s must be positive and max_items at least 1")
        self.name = name
        self._send = send
        self._window_s = window_s
        self._max_items = max_items
        self._reset()
        # A forked child (gunicorn's and Celery's workers are) has no sending thread and must
        # not send, nor wait on a lock held by, its parent's: it starts afresh.
        os.register_at_fork(after_in_child=self._reset)
        atexit.register(self.flush)

    def _reset(self) -> None:
        self._changed = threading.Condition()
        self._items: list = []
        self._thread: threading.Thread | None = None

    def add(self, item) -> None:
        with self._changed:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name=f"batcher-{self.name}", daemon=True
                )
                self._thread.start()
            self._items.append(item)
            if len(self._items) == 1 or len(self._items) >= self._max_items:
                self._changed.notify()

    def pending(self) -> int:
        with self._changed:
            return len(self._items)

    def flush(self) -> None:
        """Send what is waiting now, in this thread (at exit)."""
        with self._changed:
            batch, self._items = self._items, []
        self._send_batch(batch)

    def _run(self) -> None:
        changed = self._changed
        while True:
            with changed:
                while not self._items:
                    changed.wait()
                # the first item waits at most one window for others to join it
                deadline = time.monotonic() + self._window_s
                while len(self._items) < self._max_items:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        break
                    changed.wait(remaining)
                batch = self._items[: self._max_items]
                del self._items[: self._max_items]
            self._send_batch(batch)

    def _send_batch(self, batch: list) -> None:
        if not batch:
            return
        try:
            self._send(batch)
        except Exception:
            logger.exception(
                "%s: could not send a batch of %d; left to the sweep", self.name, len(batch)
            )
