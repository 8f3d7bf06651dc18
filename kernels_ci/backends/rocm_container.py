"""`rocm-container`: runs the reproducer in a ROCm container image on an AMD GPU host.

The command (docker or podman, same interface): one GPU (`--device /dev/kfd` and one
`/dev/dri/renderD*`), `--network none`, a read-only root with a tmpfs at /tmp, a non-root user,
CPU, memory and pids limits, no capabilities, no new privileges, the image pinned by digest, the
reproducer mounted read-only at /work. Python runs as `python3 /work/repro.py`; HIP C++ is built
with hipcc for the run's architecture first. The container CLI itself runs in the sandbox
(process group, wall clock, output bound); on timeout the container is killed by name.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import uuid

from django.conf import settings

from kernels_ci.backends.base import Execution, RunSpec, limits_for
from kernels_ci.sandbox import SandboxResult, sandbox_run
from kernels_ci.signatures import Observation, observe

NAME = "rocm-container"
DIGEST_RE = re.compile(r"^[\w.\-/:]+@sha256:[0-9a-f]{64}$")
ENGINE_FAILED = 125  # docker/podman: the engine could not create or start the container
NOT_EXECUTABLE, NOT_FOUND = 126, 127
# What the container CLI needs from the worker's environment (its daemon socket, podman's
# runtime dir); settings.KERNELS_CI_CONTAINER_ENV replaces the list.
CLI_ENVIRONMENT = [
    "DOCKER_HOST",
    "DOCKER_CONFIG",
    "DOCKER_CONTEXT",
    "CONTAINER_HOST",
    "XDG_RUNTIME_DIR",
]


class ImageNotPinned(ValueError):
    pass


def applies_to(language: str, uses_triton: bool) -> bool:
    return language in ("python", "hip")


def available() -> str:
    cli = settings.KERNELS_CI_CONTAINER_CLI
    if not shutil.which(cli.split()[0]):
        return f"container CLI {cli!r} is not on PATH"
    if not DIGEST_RE.match(settings.KERNELS_CI_ROCM_IMAGE or ""):
        return "KERNELS_CI_ROCM_IMAGE is not an image pinned by digest (NAME@sha256:...)"
    return ""


def archs() -> list[str]:
    return [settings.KERNELS_CI_RUNNER_ARCH]


def container_command(
    *,
    cli: list[str],
    image: str,
    name: str,
    workdir: str,
    language: str,
    arch: str,
    render_device: str = "/dev/dri/renderD128",
    cpus: str = "4",
    memory: str = "16g",
    pids: int = 512,
) -> list[str]:
    if not DIGEST_RE.match(image):
        raise ImageNotPinned(f"image {image!r} is not pinned by digest (NAME@sha256:<64 hex>)")
    if language == "hip":
        inner = [
            "bash",
            "-c",
            f"hipcc --offload-arch={arch} -O2 -o /tmp/repro /work/repro.hip && /tmp/repro",
        ]
    else:
        inner = ["python3", "/work/repro.py"]
    return [
        *cli,
        "run",
        "--rm",
        "--name",
        name,
        "--device",
        "/dev/kfd",
        "--device",
        render_device,
        "--group-add",
        "video",
        "--network",
        "none",
        "--read-only",
        "--tmpfs",
        "/tmp:rw,exec,size=2g",  # noqa: S108 - inside the container
        "--user",
        "1000:1000",
        "--cpus",
        str(cpus),
        "--memory",
        str(memory),
        "--pids-limit",
        str(pids),
        "--cap-drop",
        "ALL",
        "--security-opt",
        "no-new-privileges",
        "--env",
        "HOME=/tmp",
        "--env",
        "PYTHONDONTWRITEBYTECODE=1",
        "--volume",
        f"{workdir}:/work:ro",
        "--workdir",
        "/tmp",  # noqa: S108 - inside the container
        image,
        *inner,
    ]


def result_observation(result: SandboxResult) -> Observation:
    """Container exit codes: 125 engine, 126/127 command, 128+N signal N inside the container."""
    base = {"exit_code": result.returncode, "duration_s": result.duration_s}
    code = result.returncode
    last = next((x for x in reversed(result.stderr.splitlines()) if x.strip()), "")
    if not result.timed_out and code in (ENGINE_FAILED, NOT_EXECUTABLE, NOT_FOUND):
        what = (
            "container engine failed" if code == ENGINE_FAILED else "command not runnable in image"
        )
        return Observation(
            "infra", signature=f"infra: {what}", message=f"{what}: {last}"[:500], **base
        )
    if not result.timed_out and code is not None and code > 128:
        try:
            name = signal.Signals(code - 128).name
        except ValueError:
            name = f"signal {code - 128}"
        result.signal_name = name
    return observe(result)


def execute(spec: RunSpec) -> Execution:
    cli = settings.KERNELS_CI_CONTAINER_CLI.split()
    name = f"repro-{uuid.uuid4().hex[:12]}"
    filename = "repro.hip" if spec.language == "hip" else "repro.py"
    argv = container_command(
        cli=cli,
        image=settings.KERNELS_CI_ROCM_IMAGE,
        name=name,
        workdir="{dir}",
        language=spec.language,
        arch=spec.arch,
        render_device=settings.KERNELS_CI_RENDER_DEVICE,
        cpus=settings.KERNELS_CI_CONTAINER_CPUS,
        memory=settings.KERNELS_CI_CONTAINER_MEMORY,
        pids=settings.KERNELS_CI_CONTAINER_PIDS,
    )

    def kill_container() -> None:
        subprocess.run([*cli, "kill", name], capture_output=True, timeout=30, check=False)

    limits = limits_for(spec)
    limits.memory_bytes = max(limits.memory_bytes, 16 * 1024**3)  # the CLI, not the container
    passed = getattr(settings, "KERNELS_CI_CONTAINER_ENV", CLI_ENVIRONMENT)
    result = sandbox_run(
        argv,
        files={filename: spec.script},
        env={name: os.environ[name] for name in passed if name in os.environ},
        limits=limits,
        network_isolation=False,  # the container has --network none; the CLI needs its socket
        on_timeout=kill_container,
        readable_by_others=True,  # the container's user 1000 reads /work
    )
    result.isolation = "container --network none, read-only root, non-root, no capabilities"
    return Execution(observation=result_observation(result), result=result)
