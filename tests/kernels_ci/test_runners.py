"""Runners: registration, per-queue health (repro.cpu needs the sandbox and memory for as many
runs as the worker runs at once, repro.<gfx> needs rocm-container ready), stale heartbeats."""

import json
import os
import signal
import subprocess
import sys
import uuid
from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.utils import timezone

from config.celery import app
from kernels_ci.models import Runner
from kernels_ci.sandbox import Cgroup, Limits
from kernels_ci.sandbox_root import tmpfs_bytes
from kernels_ci.services import runners
from tests.integration.conftest import ROOT, _database_url_of_test_db, real_services
from tests.processes import wait_for

__all__ = ["real_services"]
MiB, GiB = 1024**2, 1024**3


def test_a_cpu_runner_registers_with_its_backends_and_an_unhealthy_one_says_why(
    db, settings, needs_kernels_extra
):
    runner = runners.runner_register(name="w1@cpu", queues=["repro.cpu"])
    assert runner.healthy and runner.arch == "cpu" and runner.reason == ""
    assert {"triton-interpreter", "triton-amd-compile"} <= set(runner.backends)
    assert "rocm-container" not in runner.backends
    settings.KERNELS_CI_MIN_FREE_DISK_BYTES = 10**18
    runner = runners.runner_heartbeat(name="w1@cpu")
    assert not runner.healthy and "MiB free" in runner.reason
    Runner.objects.filter(pk=runner.pk).update(
        healthy=True, last_heartbeat_at=timezone.now() - timedelta(hours=1)
    )
    assert runners.runners_mark_stale(after_s=60) == 1
    assert "no heartbeat" in Runner.objects.get(pk=runner.pk).reason


def test_a_cpu_runner_without_namespaces_is_unhealthy(db, settings):
    settings.KERNELS_CI_UNSHARE = "/nonexistent/unshare"
    runner = runners.runner_register(name="w2@cpu", queues=["repro.cpu"])
    assert not runner.healthy
    assert "repro.cpu: no sandbox for reproducers here" in runner.reason
    assert "not on PATH" in runner.reason


def test_a_gpu_queue_needs_rocm_container_even_where_a_triton_backend_runs(db, settings):
    settings.KERNELS_CI_RUNNER_ARCH = "gfx942"
    settings.KERNELS_CI_CONTAINER_CLI = "no-such-docker"
    settings.KERNELS_CI_ROCM_IMAGE = "rocm/pytorch:latest"
    settings.KERNELS_CI_KFD_DEVICE = "/nonexistent/kfd"
    runner = runners.runner_register(name="w3@gpu", queues=["repro.gfx942"])
    assert not runner.healthy
    for why in ("not on PATH", "not an image pinned by digest", "/nonexistent/kfd is missing"):
        assert why in runner.reason
    assert runner.reason.startswith("repro.gfx942: rocm-container cannot run here")


def test_a_gpu_runner_with_the_container_cli_image_and_devices_is_healthy(db, container):
    runner = runners.runner_register(name="w4@gpu", queues=["repro.gfx942"])
    assert runner.healthy, runner.reason
    assert "rocm-container" in runner.backends
    wrong_queue = runners.runner_health_check(queues=["repro.gfx90a"])
    assert "this runner's architecture is gfx942" in wrong_queue


def _mem_total() -> int:
    with open("/proc/meminfo") as meminfo:
        return next(int(line.split()[1]) * 1024 for line in meminfo if "MemTotal:" in line)


def _memory_for(settings, runs: int) -> None:
    """KERNELS_CI_MEMORY_BYTES such that `runs` runs at once just fit in this runner."""
    settings.KERNELS_CI_DISK_BYTES = 16 * MiB
    have, _ = runners.runner_memory()
    settings.KERNELS_CI_MEMORY_BYTES = have // runs - tmpfs_bytes(16 * MiB)


def test_the_runners_memory_is_memtotal_or_the_lower_memory_limit_of_the_workers_cgroup():
    have, where = runners.runner_memory()
    assert 0 < have <= _mem_total()
    group = Cgroup.create(Limits(memory_bytes=768 * MiB, nproc=64), f"rt-{uuid.uuid4().hex[:8]}")
    if group is None or "memory" not in group.dirs:
        pytest.skip("no memory cgroup can be made here")
    code = (
        "import django, json; django.setup()\n"
        "from kernels_ci.services.runners import runner_memory\n"
        "print(json.dumps(runner_memory()))"
    )
    try:  # a worker started inside a cgroup limited to 768 MiB
        inside = subprocess.run(
            [sys.executable, "-c", code],
            env=dict(os.environ, DJANGO_SETTINGS_MODULE="config.settings"),
            preexec_fn=group.attach,  # noqa: PLW1509
            capture_output=True,
            text=True,
            check=True,
        )
    finally:
        group.remove()
    limited, source = json.loads(inside.stdout.splitlines()[-1])
    assert limited == 768 * MiB and source.startswith(str(group.dirs["memory"]))


def test_a_cpu_runner_without_memory_for_its_concurrent_runs_is_unhealthy_and_says_why(
    db, settings, needs_kernels_extra
):
    _memory_for(settings, runs=2)
    runner = runners.runner_register(name="w5@cpu", queues=["repro.cpu"], concurrency=2)
    assert runner.healthy, runner.reason
    runner = runners.runner_heartbeat(name="w5@cpu", concurrency=3)
    assert not runner.healthy
    have, where = runners.runner_memory()
    per_run = settings.KERNELS_CI_MEMORY_BYTES + tmpfs_bytes(16 * MiB)
    assert runner.reason == (
        f"repro.cpu: 3 concurrent run(s) (the worker's concurrency) × "
        f"({settings.KERNELS_CI_MEMORY_BYTES / GiB:.2f} GiB KERNELS_CI_MEMORY_BYTES + "
        f"{tmpfs_bytes(16 * MiB) / GiB:.2f} GiB of tmpfs: KERNELS_CI_DISK_BYTES and /dev/shm) = "
        f"{3 * per_run / GiB:.2f} GiB, more than the {have / GiB:.2f} GiB this runner has "
        f"({where}): lower KERNELS_CI_MEMORY_BYTES, KERNELS_CI_DISK_BYTES or the worker's -c"
    )
    settings.KERNELS_CI_DISK_BYTES = have  # a private tmpfs as large as the memory: one run
    assert "GiB of tmpfs" in runners.runner_health_check(queues=["repro.cpu"], concurrency=1)
    assert "tmpfs" not in runners.runner_health_check(queues=["repro.gfx942"], concurrency=64)


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_worker_whose_concurrency_exceeds_the_memory_takes_no_work_and_one_within_it_does(
    real_services, settings, tmp_path, needs_kernels_extra
):
    _memory_for(settings, runs=2)
    env = dict(
        os.environ,
        DATABASE_URL=_database_url_of_test_db(),
        REDIS_URL=django_settings.REDIS_URL,
        SECRET_KEY="integration-secret",
        KERNELS_CI_MEMORY_BYTES=str(settings.KERNELS_CI_MEMORY_BYTES),
        KERNELS_CI_DISK_BYTES=str(settings.KERNELS_CI_DISK_BYTES),
        KERNELS_CI_HEARTBEAT_S="1",
    )
    workers = {}
    for concurrency in (3, 2):  # prefork -c 3 does not fit, -c 2 does
        name = f"mem{concurrency}-{uuid.uuid4().hex[:8]}@localhost"
        command = [sys.executable, "-m", "celery", "-A", "config", "worker", "-n", name]
        command += ["-Q", "repro.cpu", "-P", "prefork", "-c", str(concurrency), "-l", "INFO"]
        command += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
        with open(tmp_path / f"worker-{concurrency}.log", "wb") as out:
            workers[concurrency] = (
                name,
                subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=out),
            )
    try:
        names = {c: name for c, (name, _) in workers.items()}
        over = wait_for(
            lambda: Runner.objects.filter(name=names[3], consuming=False).first(), timeout=90
        )
        assert not over.healthy and over.reason.startswith("repro.cpu: 3 concurrent run(s)")
        within = wait_for(
            lambda: Runner.objects.filter(name=names[2], last_heartbeat_at__isnull=False).first(),
            timeout=90,
        )
        assert within.healthy and within.consuming, within.reason

        def consumed(name):
            replies = app.control.inspect(destination=[name], timeout=2).active_queues() or {}
            queues = replies.get(name)
            return None if queues is None else ([queue["name"] for queue in queues],)

        assert "repro.cpu" not in wait_for(lambda: consumed(names[3]), timeout=30)[0]
        assert "repro.cpu" in wait_for(lambda: consumed(names[2]), timeout=30)[0]
    finally:
        for _, process in workers.values():
            process.send_signal(signal.SIGTERM)
        for _, process in workers.values():
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
