"""Runners: Celery workers that consume repro queues, their capabilities, heartbeat and health."""

from __future__ import annotations

import logging
import shutil
import tempfile
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from kernels_ci.backends import backends_available
from kernels_ci.models import Runner
from kernels_ci.sandbox import isolation_problem
from kernels_ci.services.runs import CPU_BACKENDS

logger = logging.getLogger(__name__)


def rocm_version() -> str:
    if settings.KERNELS_CI_ROCM_VERSION:
        return settings.KERNELS_CI_ROCM_VERSION
    info = Path("/opt/rocm/.info/version")
    return info.read_text().strip() if info.exists() else ""


CPU_QUEUE = "repro.cpu"


def runner_health_check(*, queues: list[str]) -> str:
    """'' when the runner can take the work of its queues; otherwise why not.

    repro.cpu needs the sandbox (namespaces) and a Triton backend that runs here; repro.<gfx>
    needs rocm-container ready (container CLI, image pinned by digest, /dev/kfd and the render
    node) on a runner of that architecture.
    """
    problems = []
    free = shutil.disk_usage(tempfile.gettempdir()).free
    if free < settings.KERNELS_CI_MIN_FREE_DISK_BYTES:
        problems.append(f"only {free // 1024**2} MiB free in {tempfile.gettempdir()}")
    available = backends_available()
    if CPU_QUEUE in queues:
        sandbox = isolation_problem()
        if sandbox:
            problems.append(f"{CPU_QUEUE}: no sandbox for reproducers here: {sandbox}")
        elif not any(available[name] == "" for name in CPU_BACKENDS):
            problems.append(
                f"{CPU_QUEUE}: no CPU backend can run here: "
                + "; ".join(f"{name}: {available[name]}" for name in sorted(CPU_BACKENDS))
            )
    arch = settings.KERNELS_CI_RUNNER_ARCH
    for queue in queues:
        if queue == CPU_QUEUE or not queue.startswith("repro."):
            continue
        wanted = queue.removeprefix("repro.")
        if wanted != arch:
            problems.append(
                f"{queue}: this runner's architecture is {arch} (KERNELS_CI_RUNNER_ARCH)"
            )
        if available["rocm-container"]:
            problems.append(
                f"{queue}: rocm-container cannot run here: {available['rocm-container']}"
            )
    return "; ".join(problems)


def runner_register(*, name: str, queues: list[str]) -> Runner:
    available = backends_available()
    runner, _ = Runner.objects.update_or_create(
        name=name,
        defaults={
            "arch": settings.KERNELS_CI_RUNNER_ARCH,
            "rocm_version": rocm_version(),
            "backends": [backend for backend, reason in available.items() if not reason],
            "queues": queues,
            "registered_at": timezone.now(),
            "last_heartbeat_at": timezone.now(),
            "consuming": True,
        },
    )
    return runner_heartbeat(name=name)


def runner_heartbeat(*, name: str) -> Runner:
    """Record a heartbeat and the health check's verdict; the caller stops or resumes consuming."""
    queues = Runner.objects.filter(name=name).values_list("queues", flat=True).first() or []
    reason = runner_health_check(queues=queues)
    Runner.objects.filter(name=name).update(
        last_heartbeat_at=timezone.now(), healthy=not reason, reason=reason
    )
    if reason:
        logger.warning("runner %s is unhealthy: %s", name, reason)
    return Runner.objects.get(name=name)


def runner_set_consuming(*, name: str, consuming: bool) -> None:
    Runner.objects.filter(name=name).update(consuming=consuming)


def runners_mark_stale(*, after_s: int | None = None) -> int:
    after_s = after_s or settings.KERNELS_CI_HEARTBEAT_S * 4
    cutoff = timezone.now() - timedelta(seconds=after_s)
    stale = Runner.objects.filter(healthy=True, last_heartbeat_at__lt=cutoff)
    return stale.update(healthy=False, reason=f"no heartbeat for more than {after_s} s")
