"""Reproducers that attack their runner, run by a real `celery worker` on repro.cpu: one that
forks without end, one that eats memory, one that writes until the disk is full and one that
never returns. The sandbox's limits stop each, the outcome of each run says which limit, the
worker's process and the runner's health survive all four, and the next, ordinary reproducer
runs on the same worker as if nothing had happened."""

from __future__ import annotations

import time

import pytest

from kernels_ci.models import ReproCase, ReproRun, Runner
from kernels_ci.services.cases import case_approve, case_refresh
from kernels_ci.services.runs import runs_queue
from tests.kernels_ci.conftest import needs_namespaces  # noqa: F401  (a fixture)
from tests.kernels_ci.factories import KERNELS, issue_body
from tests.processes import wait_for
from tests.reliability.conftest import record

pytestmark = [
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("needs_namespaces"),
]

RUN = "kernels_ci.tasks.run_execute"
# the extraction takes a Triton/torch reproducer; none of these needs to import either
PREAMBLE = "if False:\n    import torch\n"
ATTACKS = {
    "fork bomb": (
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    ),
    "memory hog": "hog = []\nwhile True:\n    hog.append(bytearray(64 * 1024**2))\n",
    "disk filler": (
        "n = 0\nwhile True:\n    open(f'part{n}', 'wb').write(b'x' * (16 * 1024**2))\n    n += 1\n"
    ),
    "never returns": "import time\nwhile True:\n    time.sleep(0.2)\n",
}
LIMITS = {
    "KERNELS_CI_NPROC": 64,
    "KERNELS_CI_MEMORY_BYTES": 2 * 1024**3,  # triton itself maps about 1.2 GiB
    "KERNELS_CI_DISK_BYTES": 96 * 1024**2,
    "KERNELS_CI_MIN_FREE_DISK": 64 * 1024**2,
}


def _queued_run(make, script: str, timeout_s: int = 4) -> ReproRun:
    case = case_refresh(issue=make.issue(body=issue_body(script=PREAMBLE + script)))
    ReproCase.objects.filter(pk=case.pk).update(timeout_s=timeout_s, symptom="wrong result")
    case.refresh_from_db()
    case = case_approve(case=case, login="maintainer")
    (run,) = runs_queue(case=case, backend="triton-interpreter", runs=1, dispatch=False)
    return run


def _send(cluster, run: ReproRun) -> None:
    limits = {"soft_time_limit": run.soft_time_limit_s, "time_limit": run.time_limit_s}
    cluster.send(RUN, queue=run.queue, options=limits, run_id=run.pk)


def _done(run: ReproRun, timeout: float = 90) -> ReproRun:
    return wait_for(
        lambda: ReproRun.objects.filter(pk=run.pk, status=ReproRun.Status.DONE).first(),
        timeout=timeout,
        message=f"run {run.pk} did not finish",
    )


def test_reproducers_that_fork_eat_memory_fill_the_disk_or_hang_are_stopped_and_say_why(
    cluster, make
):
    worker = cluster.worker("repro.cpu", **LIMITS)
    cluster.start(worker)
    runner = wait_for(
        lambda: (
            Runner.objects.filter(name=worker.hostname, last_heartbeat_at__isnull=False)
            .exclude(healthy=False)
            .first()
        ),
        message="the worker did not register as a healthy runner",
    )
    pid = worker.process.pid

    # the memory hog gets time to reach its limit (pages are zeroed at a few hundred MB/s here)
    runs = {
        name: _queued_run(make, script, timeout_s=30 if name == "memory hog" else 4)
        for name, script in ATTACKS.items()
    }
    started = time.monotonic()
    for run in runs.values():
        _send(cluster, run)
    done = {name: _done(run) for name, run in runs.items()}
    elapsed = time.monotonic() - started

    fork, memory, disk, hang = (done[name] for name in ATTACKS)
    assert fork.signature == "sandbox limit: processes", fork.detail
    assert fork.outcome == ReproRun.Outcome.INVALID and "processes limit" in fork.detail
    assert "memory limit" in memory.log and "MemoryError" in memory.log, memory.log
    assert memory.executions[0]["duration_s"] < 30  # stopped by the limit, not the timeout
    assert disk.signature == "sandbox limit: disk" and "disk limit" in disk.detail
    assert hang.signature == "timeout" and "hang 1" in hang.detail and "hang [timeout]" in hang.log
    for run in done.values():
        assert run.runner_name == worker.hostname
        assert run.outcome != ReproRun.Outcome.INFRA_ERROR, (run.outcome, run.detail)

    # the worker and the runner came through: same process, healthy, still consuming
    assert worker.alive() and worker.process.pid == pid
    runner.refresh_from_db()
    wait_for(
        lambda: Runner.objects.filter(
            pk=runner.pk, last_heartbeat_at__gt=fork.finished_at
        ).exists(),
        message="no heartbeat after the attacks",
    )
    runner.refresh_from_db()
    assert runner.healthy and runner.consuming and not runner.reason

    # an ordinary reproducer: a kernel that launches and computes the right thing (a pass counts
    # only when a kernel ran)
    ordinary = _queued_run(make, (KERNELS / "correct_mask.py").read_text(), timeout_s=60)
    _send(cluster, ordinary)
    ordinary = _done(ordinary)
    assert ordinary.runner_name == worker.hostname
    assert ordinary.outcome == ReproRun.Outcome.NOT_REPRODUCED, (ordinary.outcome, ordinary.log)
    record(
        "hostile reproducers through a worker",
        **{name: f"{run.outcome} / {run.signature}" for name, run in done.items()},
        four_runs_s=round(elapsed, 1),
        runner_healthy_after=runner.healthy,
    )
