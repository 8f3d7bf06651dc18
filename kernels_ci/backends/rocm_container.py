"""`rocm-container`: runs the reproducer in a ROCm container image on an AMD GPU host.

The command (docker or podman, same interface): one GPU (`--device /dev/kfd` and one
`/dev/dri/renderD*`), `--network none`, a read-only root with a tmpfs at /tmp, a non-root user,
CPU, memory and pids limits, no capabilities, no new privileges, the image pinned by digest (the
runner's own, or the one of the ROCm series an attempt asks for: KERNELS_CI_ROCM_IMAGES), the
reproducer mounted read-only at /work. Python runs as `python3 /work/repro.py`; HIP C++ is built
with hipcc for the run's architecture first. The container CLI itself runs in the sandbox without
namespaces (it needs the engine's socket; the container is the confinement): its own session,
wall clock, output bound, scrubbed environment; on timeout the container is killed by name.

Before the reproducer starts, the container's shell prints `REPRO-STARTED-<nonce>` (a per-run
nonce the reproducer never sees: the shell `exec`s it). Without that line an exit of 125, 126 or
127 is the engine's or the image's failure (infra); with it, any exit status is the reproducer's
own, so a script cannot fake an infra error by exiting 127. For HIP the line follows a successful
hipcc: a failure before it is a compile error.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from config import linear_re
from kernels_ci.backends.base import Description, Execution, RunSpec, limits_for, refused
from kernels_ci.sandbox import SandboxResult, SandboxUnavailable, sandbox_run
from kernels_ci.signatures import Observation, compile_error_signature, observe

NAME = "rocm-container"
DIGEST_RE = linear_re.compile(r"^[\w.\-/:]+@sha256:[0-9a-f]{64}$")
ENGINE_FAILED = 125  # docker/podman: the engine could not create or start the container
NOT_EXECUTABLE, NOT_FOUND = 126, 127
STARTED = "REPRO-STARTED"
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


DESCRIPTION = Description(
    name=NAME,
    summary="runs the reproducer in a pinned ROCm container on a GPU of the run's architecture",
    languages=("python", "hip"),
    vendor="amd",
    queue="repro.{target}",
    executes=True,
    targets_setting="REPRO_ARCHITECTURES",
    pins=("rocm",),
    needs=(
        "an AMD GPU of the queue's architecture (/dev/kfd, a render node)",
        "a container CLI (docker or podman)",
        "KERNELS_CI_ROCM_IMAGE pinned by digest",
    ),
)


def available() -> str:
    """'' on an AMD GPU host that can run the pinned image; otherwise every reason why not."""
    problems = []
    cli = settings.KERNELS_CI_CONTAINER_CLI
    if not shutil.which(cli.split()[0]):
        problems.append(f"container CLI {cli!r} is not on PATH")
    if not DIGEST_RE.match(settings.KERNELS_CI_ROCM_IMAGE or ""):
        problems.append("KERNELS_CI_ROCM_IMAGE is not an image pinned by digest (NAME@sha256:...)")
    for device in (settings.KERNELS_CI_KFD_DEVICE, settings.KERNELS_CI_RENDER_DEVICE):
        if not Path(device).exists():
            problems.append(f"{device} is missing: no AMD GPU driver on this host")
    return "; ".join(problems)


@dataclass(frozen=True)
class Resources:
    """The GPU a container is given and what it may use of the host."""

    kfd_device: str = "/dev/kfd"
    render_device: str = "/dev/dri/renderD128"
    cpus: str = "4"
    memory: str = "16g"
    pids: int = 512

    @classmethod
    def from_settings(cls) -> Resources:
        return cls(
            settings.KERNELS_CI_KFD_DEVICE,
            settings.KERNELS_CI_RENDER_DEVICE,
            settings.KERNELS_CI_CONTAINER_CPUS,
            settings.KERNELS_CI_CONTAINER_MEMORY,
            settings.KERNELS_CI_CONTAINER_PIDS,
        )


def container_command(
    *,
    cli: list[str],
    image: str,
    name: str,
    workdir: str,
    language: str,
    arch: str,
    nonce: str,
    resources: Resources = Resources(),
) -> list[str]:
    if not DIGEST_RE.match(image):
        raise ImageNotPinned(f"image {image!r} is not pinned by digest (NAME@sha256:<64 hex>)")
    if not linear_re.fullmatch(r"gfx[0-9a-f]+", arch) or not linear_re.fullmatch(
        r"[0-9a-f]+", nonce
    ):
        raise ValueError(f"bad arch {arch!r} or nonce")
    started = f"echo {STARTED}-{nonce} >&2"
    if language == "hip":
        build = f"hipcc --offload-arch={arch} -O2 -o /tmp/repro /work/repro.hip"
        inner = ["bash", "-c", f"{build} && {started} && exec /tmp/repro"]
    else:
        inner = ["sh", "-c", f"{started} && exec python3 /work/repro.py"]
    return [
        *cli,
        "run",
        "--rm",
        "--name",
        name,
        "--device",
        resources.kfd_device,
        "--device",
        resources.render_device,
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
        str(resources.cpus),
        "--memory",
        str(resources.memory),
        "--pids-limit",
        str(resources.pids),
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


def _strip_started(result: SandboxResult, nonce: str) -> bool:
    """Remove the started line from the output; whether the reproducer started."""
    line = f"{STARTED}-{nonce}"
    lines = result.stderr.split("\n")
    kept = [x for x in lines if x.strip() != line]
    result.stderr = "\n".join(kept)
    return len(kept) != len(lines)


def result_observation(result: SandboxResult, *, nonce: str, language: str) -> Observation:
    """Container exit codes: 125 engine, 126/127 command, 128+N signal N inside the container;
    only before the started line (see the module's docstring)."""
    base = {"exit_code": result.returncode, "duration_s": result.duration_s}
    code = result.returncode
    started = _strip_started(result, nonce)
    last = next((x for x in reversed(result.stderr.splitlines()) if x.strip()), "")
    if not started:
        if code == ENGINE_FAILED:
            what = "container engine failed"
        elif code in (NOT_EXECUTABLE, NOT_FOUND):
            what = "command not runnable in image"
        elif language == "hip" and result.timed_out:
            return observe(result)  # hipcc itself hung
        elif language == "hip" and code:
            signature = compile_error_signature(result.output) or f"hipcc exit {code}"
            return Observation("compile_error", signature=signature, message=last[:500], **base)
        elif result.timed_out:
            what = "the container did not start the reproducer in time"
        else:
            what = "the container did not start the reproducer"
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
    nonce = secrets.token_hex(8)
    filename = "repro.hip" if spec.language == "hip" else "repro.py"
    argv = container_command(
        cli=cli,
        image=spec.image or settings.KERNELS_CI_ROCM_IMAGE,
        name=name,
        workdir="{dir}",
        language=spec.language,
        arch=spec.arch,
        nonce=nonce,
        resources=Resources.from_settings(),
    )

    def kill_container() -> None:
        subprocess.run([*cli, "kill", name], capture_output=True, timeout=30, check=False)

    limits = limits_for(spec)
    limits.memory_bytes = max(limits.memory_bytes, 16 * 1024**3)  # the CLI, not the container
    passed = getattr(settings, "KERNELS_CI_CONTAINER_ENV", CLI_ENVIRONMENT)
    try:
        result = sandbox_run(
            argv,
            files={filename: spec.script},
            env={name: os.environ[name] for name in passed if name in os.environ},
            limits=limits,
            namespaces=False,  # the container has --network none; the CLI needs its socket
            on_timeout=kill_container,
            readable_by_others=True,  # the container's user 1000 reads /work
        )
    except (OSError, SandboxUnavailable) as exc:
        return refused(f"cannot start the container CLI: {exc}")
    result.isolation = (
        "container --network none, read-only root, non-root, no capabilities, pids/memory/cpu"
        " limits, image pinned by digest"
    )
    observation = result_observation(result, nonce=nonce, language=spec.language)
    return Execution(observation=observation, result=result)
