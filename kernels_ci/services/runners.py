"""Runners: Celery workers that consume repro queues, their capabilities, heartbeat and health."""

from __future__ import annotations

import contextlib
import logging
import shutil
import tempfile
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from kernels_ci.backends import backends_available, descriptions
from kernels_ci.environments import installed_versions, runner_rocm_version, series
from kernels_ci.models import Runner
from kernels_ci.sandbox import isolation_problem
from kernels_ci.sandbox_root import tmpfs_bytes

logger = logging.getLogger(__name__)


def rocm_version() -> str:
    return runner_rocm_version()


CPU_QUEUE = "repro.cpu"
GiB = 1024**3
CGROUP_ROOT = Path("/sys/fs/cgroup")
NO_LIMIT = 2**62  # cgroup v1 writes "no limit" as a page-rounded 2**63 - 1


def runner_memory() -> tuple[int, str]:
    """The memory this worker's runs can have: the machine's MemTotal, or a cgroup memory limit
    of the worker (v1 memory.limit_in_bytes, v2 memory.max, on its cgroup or one above it;
    KERNELS_CI_CGROUP's, where the runs' cgroups are made) when that is lower."""
    with open("/proc/meminfo") as meminfo:
        total = next(
            int(line.split()[1]) * 1024 for line in meminfo if line.startswith("MemTotal:")
        )
    found, where = total, "MemTotal in /proc/meminfo"
    for path in _memory_limit_files():
        try:
            value = path.read_text().strip()
        except OSError:
            continue
        if value.isdigit() and int(value) < min(found, NO_LIMIT):
            found, where = int(value), str(path)
    return found, where


def _memory_limit_files() -> list[Path]:
    groups = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if controllers == "":  # cgroup v2, mounted at /sys/fs/cgroup or .../unified
                groups += [(root / path.lstrip("/"), "memory.max") for root in _v2_roots()]
            elif "memory" in controllers.split(","):
                groups.append((CGROUP_ROOT / "memory" / path.lstrip("/"), "memory.limit_in_bytes"))
    if settings.KERNELS_CI_CGROUP not in ("", "off"):
        groups.append((Path(settings.KERNELS_CI_CGROUP), "memory.max"))
    files = []
    for group, name in groups:
        files += [d / name for d in (group, *group.parents) if d.is_relative_to(CGROUP_ROOT)]
    return files


def _v2_roots() -> list[Path]:
    return [
        p for p in (CGROUP_ROOT, CGROUP_ROOT / "unified") if (p / "cgroup.controllers").exists()
    ]


def memory_problem(*, concurrency: int) -> str:
    """Why `concurrency` runs at once may not fit in this runner's memory ('' when they do):
    each may use KERNELS_CI_MEMORY_BYTES, and its tmpfs (the private directory of
    KERNELS_CI_DISK_BYTES, /dev/shm) holds its pages in memory too."""
    memory, disk = settings.KERNELS_CI_MEMORY_BYTES, tmpfs_bytes(settings.KERNELS_CI_DISK_BYTES)
    needed = concurrency * (memory + disk)
    have, where = runner_memory()
    if needed <= have:
        return ""
    return (
        f"{CPU_QUEUE}: {concurrency} concurrent run(s) (the worker's concurrency) × "
        f"({memory / GiB:.2f} GiB KERNELS_CI_MEMORY_BYTES + {disk / GiB:.2f} GiB of tmpfs: "
        f"KERNELS_CI_DISK_BYTES and /dev/shm) = {needed / GiB:.2f} GiB, more than the "
        f"{have / GiB:.2f} GiB this runner has ({where}): lower KERNELS_CI_MEMORY_BYTES, "
        "KERNELS_CI_DISK_BYTES or the worker's -c"
    )


def backends_of_queue(queue: str) -> list[str]:
    """The backends whose runs go to `queue` (their descriptions say where)."""
    found = []
    for description in descriptions():
        if description.per_target_queues():
            targets = description.target_list()
            if any(description.queue_for(t) == queue for t in targets):
                found.append(description.name)
        elif description.queue == queue:
            found.append(description.name)
    return found


def runner_health_check(*, queues: list[str], concurrency: int = 1) -> str:
    """'' when the runner can take the work of its queues; otherwise why not.

    Each repro queue needs a backend of that queue that runs here (each backend's own health
    check: the kernels extra, the sandbox, a container CLI and a GPU ...). A queue shared by
    targets (repro.cpu) also needs the sandbox and memory for `concurrency` runs at once (the
    worker's -c); a queue per target (repro.gfx942) a runner of that architecture.
    """
    problems = []
    free = shutil.disk_usage(tempfile.gettempdir()).free
    if free < settings.KERNELS_CI_MIN_FREE_DISK_BYTES:
        problems.append(f"only {free // 1024**2} MiB free in {tempfile.gettempdir()}")
    available = backends_available()
    arch = settings.KERNELS_CI_RUNNER_ARCH
    for queue in queues:
        if not queue.startswith("repro."):
            continue
        names = backends_of_queue(queue)
        if queue == CPU_QUEUE:
            sandbox = isolation_problem()
            if sandbox:
                problems.append(f"{CPU_QUEUE}: no sandbox for reproducers here: {sandbox}")
                continue
            memory = memory_problem(concurrency=concurrency)
            if memory:
                problems.append(memory)
        elif queue.removeprefix("repro.") != arch:
            problems.append(
                f"{queue}: this runner's architecture is {arch} (KERNELS_CI_RUNNER_ARCH)"
            )
        if not names:
            problems.append(f"{queue}: no backend sends its runs there")
        elif not any(available[name] == "" for name in names):
            problems.append(
                f"{queue}: {names[0]} cannot run here: {available[names[0]]}"
                if len(names) == 1
                else f"{queue}: no backend of this queue can run here: "
                + "; ".join(f"{name}: {available[name]}" for name in names)
            )
    return "; ".join(problems)


def runner_register(*, name: str, queues: list[str], concurrency: int = 1) -> Runner:
    available = backends_available()
    runner, _ = Runner.objects.update_or_create(
        name=name,
        defaults={
            "arch": settings.KERNELS_CI_RUNNER_ARCH,
            "rocm_version": rocm_version(),
            "backends": [backend for backend, reason in available.items() if not reason],
            "queues": queues,
            "versions": {
                **installed_versions(),
                **({"rocm": series(rocm_version())} if series(rocm_version()) else {}),
            },
            "registered_at": timezone.now(),
            "last_heartbeat_at": timezone.now(),
            "consuming": True,
        },
    )
    return runner_heartbeat(name=name, concurrency=concurrency)


def runner_heartbeat(*, name: str, concurrency: int = 1) -> Runner:
    """Record a heartbeat and the health check's verdict; the caller stops or resumes consuming."""
    queues = Runner.objects.filter(name=name).values_list("queues", flat=True).first() or []
    reason = runner_health_check(queues=queues, concurrency=concurrency)
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
