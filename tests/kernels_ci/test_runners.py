"""Runners: registration, per-queue health (repro.cpu needs the sandbox, repro.<gfx> needs
rocm-container ready), stale heartbeats."""

from datetime import timedelta

from django.utils import timezone

from kernels_ci.models import Runner
from kernels_ci.services import runners


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
