"""The batcher a web process sends its webhook deliveries' tasks through: one call per window."""

from __future__ import annotations

import json
import os
import threading

import pytest

from tests.processes import wait_for
from triage.services.batching import Batcher


class Sent:
    """What the batcher handed to its send callable, batch by batch (the broker's side)."""

    def __init__(self, fail_first: int = 0):
        self.batches: list[list] = []
        self.fail_first = fail_first
        self.lock = threading.Lock()

    def __call__(self, batch: list) -> None:
        with self.lock:
            if self.fail_first:
                self.fail_first -= 1
                raise ConnectionError("broker down")
            self.batches.append(list(batch))

    def items(self) -> list:
        with self.lock:
            return [item for batch in self.batches for item in batch]


def test_items_added_within_a_window_go_out_together_in_order():
    sent = Sent()
    batcher = Batcher(sent, window_s=0.3, max_items=100, name="test")
    for item in range(5):
        batcher.add(item)
    wait_for(lambda: sent.items() == [0, 1, 2, 3, 4], timeout=5, message="nothing sent")
    assert sent.batches == [[0, 1, 2, 3, 4]]
    assert batcher.pending() == 0

    batcher.add(5)  # a later item starts a new window
    wait_for(lambda: len(sent.batches) == 2, timeout=5, message="the second batch was not sent")
    assert sent.batches[1] == [5]


def test_a_full_batch_goes_at_once_without_waiting_for_the_window():
    sent = Sent()
    batcher = Batcher(sent, window_s=60, max_items=3, name="test")
    for item in "abcdefg":
        batcher.add(item)
    wait_for(lambda: len(sent.batches) == 2, timeout=5, message="full batches were held back")
    assert sent.batches == [["a", "b", "c"], ["d", "e", "f"]]
    assert batcher.pending() == 1  # "g" waits for its window (or more company)
    batcher.flush()
    assert sent.batches[-1] == ["g"] and batcher.pending() == 0


def test_a_failed_send_is_logged_and_the_next_batch_still_goes(caplog):
    sent = Sent(fail_first=1)
    batcher = Batcher(sent, window_s=0.05, max_items=10, name="webhook-enqueue")
    batcher.add(1)
    wait_for(lambda: sent.fail_first == 0, timeout=5, message="the first send was not tried")
    batcher.add(2)
    wait_for(lambda: sent.items() == [2], timeout=5, message="the thread stopped after a failure")
    assert "webhook-enqueue: could not send a batch of 1; left to the sweep" in caplog.text


def test_concurrent_adders_lose_and_double_nothing():
    sent = Sent()
    batcher = Batcher(sent, window_s=0.01, max_items=7, name="test")

    def add(start: int) -> None:
        for item in range(start, start + 500):
            batcher.add(item)

    threads = [threading.Thread(target=add, args=(n * 1000,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    expected = sorted(n * 1000 + i for n in range(4) for i in range(500))
    wait_for(lambda: len(sent.items()) == 2000, timeout=10, message="items were lost")
    assert sorted(sent.items()) == expected
    assert max(len(batch) for batch in sent.batches) <= 7


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_sends_its_own_items_and_never_its_parents():
    sent = Sent()
    batcher = Batcher(sent, window_s=60, max_items=100, name="test")
    batcher.add("parent's")  # waits in the parent (long window)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: as a gunicorn or Celery worker forked from a process that added
        try:
            pending_at_fork = batcher.pending()
            batcher.add("child's")
            batcher.flush()  # `sent` here is the child's copy: what the child sent
            os.write(write_end, json.dumps([pending_at_fork, sent.batches]).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    _, status = os.waitpid(pid, 0)
    with os.fdopen(read_end) as pipe:
        pending_at_fork, child_sent = json.loads(pipe.read())
    assert status == 0
    assert pending_at_fork == 0
    assert child_sent == [["child's"]]
    assert batcher.pending() == 1  # the parent still holds (and will send) its own
    batcher.flush()
    assert sent.batches == [["parent's"]]


def test_it_refuses_a_window_or_size_that_would_never_send():
    with pytest.raises(ValueError):
        Batcher(Sent(), window_s=0, max_items=10, name="test")
    with pytest.raises(ValueError):
        Batcher(Sent(), window_s=1, max_items=0, name="test")
