"""benchmarks/org_backfill.py: its organization and its stand-in for Celery's queue."""

from __future__ import annotations

from benchmarks.org_backfill import Queue, org_sizes


def test_the_organization_has_a_few_large_repositories_and_a_long_tail_summing_to_the_total():
    sizes = org_sizes(50, 100_000)
    assert sum(sizes) == 100_000 and len(sizes) == 50
    assert min(sizes) >= 20
    assert sizes == sorted(sizes, reverse=True)
    assert sizes[0] > 10 * sizes[len(sizes) // 2], "Zipf-like: the largest dwarfs the median"


def test_the_queue_runs_what_is_due_first_come_first_served_and_holds_countdowns():
    queue = Queue()
    queue.push(10.0, 1, False, 10.0)
    queue.push(10.0, 2, False, 10.0)
    queue.push(11.0, 1, True, 10.0)  # a slice's continuation: behind what was already due
    assert queue.pop_due(9.0) is None
    assert [queue.pop_due(12.0)[2] for _ in range(3)] == [1, 2, 1]
    assert queue.next_due() is None
