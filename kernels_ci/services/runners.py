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

logger = logging.getLogger(__name__)


def rocm_version() -> str:
    if settings.KERNELS_CI_ROCM_VERSION:
        return settings.KERNELS_CI_ROCM_VERSION
    info = Path("/opt/rocm/.info/version")
    return info.read_text().strip() if info.exists() else ""


def runner_health_check() -> str:
    """'' when the runner can take work; otherwise why not."""
    problems = []
    free = shutil.disk_usage(tempfile.gettempdir()).free
    if free < settings.KERNELS_CI_MIN_FREE_DISK_BYTES:
        problems.append(f"only {free // 1024**2} MiB free in {tempfile.gettempdir()}")
    available = backends_available()
    if not any(reason == "" for reason in available.values()):
        problems.append(
            "no backend can run here: "
            + "; ".join(f"{name}: {reason}" for name, reason in available.items())
        )
    arch = settings.KERNELS_CI_RUNNER_ARCH
    if arch != "cpu" and not Path("/dev/kfd").exists() and available.get("rocm-container") == "":
        problems.append("/dev/kfd is missing: no AMD GPU driver on this host")
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
    reason = runner_health_check()
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
