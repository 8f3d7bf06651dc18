"""Two `celery beat` processes against one database and broker (a deploy that overlaps the old
process, or a standby on a second host): each scheduled job is sent once per window. One beat
holds the lease (config/beat_scheduler.py) and sends; the other stands by. When the leader is
killed with SIGKILL the standby takes over after the lease runs out and goes on from the last
runs the leader wrote; no window is sent twice, and the worker runs each send once."""

from __future__ import annotations

import re
import time
from datetime import datetime

import pytest
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from tests.processes import wait_for
from tests.reliability.conftest import record

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

JOB = "reliability: two beats probe"
EVERY_S = 2
SENT = re.compile(
    r"\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}): INFO/MainProcess\] "
    + re.escape(f"Scheduler: Sending due task {JOB} ")
)


def sends(beat) -> list[datetime]:
    return [
        datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f")
        for stamp in SENT.findall(beat.log_tail(2_000_000))
    ]


def test_two_beats_send_each_window_once_also_when_the_leader_is_killed(cluster):
    every, _ = IntervalSchedule.objects.get_or_create(
        every=EVERY_S, period=IntervalSchedule.SECONDS
    )
    PeriodicTask.objects.create(
        name=JOB,
        task="triage.tasks.process_pending_webhook_deliveries",
        interval=every,
        queue="ingest",
    )
    worker = cluster.worker("ingest")
    first, second = cluster.beat(), cluster.beat()
    cluster.start(worker, first, second)

    wait_for(lambda: len(sends(first)) + len(sends(second)) >= 6, timeout=60)
    leader, standby = (first, second) if sends(first) else (second, first)
    assert sends(standby) == [] and "stands by" in standby.log_tail(200000)

    leader.kill()
    killed = time.time()
    wait_for(lambda: len(sends(standby)) >= 4, timeout=60, message="the standby never sent")
    takeover = min(sends(standby)).timestamp() - killed
    time.sleep(1)  # let the worker take the last send

    times = sorted(sends(leader) + sends(standby))
    gaps = [(b - a).total_seconds() for a, b in zip(times, times[1:], strict=False)]
    # one send per window: never two sends of the job within one interval of each other
    assert min(gaps) >= EVERY_S * 0.75, gaps
    job = PeriodicTask.objects.get(name=JOB)
    assert job.total_run_count >= len(times) - 1  # written before each send (the last may lag)
    succeeded = re.compile(r"Task triage\.tasks\.process_pending_webhook_deliveries\[[^]]+\] succ")
    wait_for(
        lambda: len(succeeded.findall(worker.log_tail(2_000_000))) >= len(times),
        timeout=30,
        message="the worker did not run every send",
    )
    log = worker.log_tail(2_000_000)
    received = log.count("Received task: triage.tasks.process_pending_webhook_deliveries[")
    assert received <= len(times) + 1  # + the every-minute sweep beat installs itself
    record(
        "two beats",
        sends=len(times),
        min_gap_s=round(min(gaps), 2),
        interval_s=EVERY_S,
        leader_killed_to_first_standby_send_s=round(takeover, 1),
        lease_s=3,
    )
