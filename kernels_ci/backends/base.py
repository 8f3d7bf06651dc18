"""What every backend takes and returns."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from config import linear_re
from kernels_ci.sandbox import Limits, SandboxResult, SandboxUnavailable, sandbox_run
from kernels_ci.signatures import Observation

LAUNCHERS = Path(__file__).resolve().parent / "launchers"
EXTRA_MISSING = (
    "the optional 'kernels' extra is missing (triton, numpy, a CPU torch): install it with "
    "pip install -e '.[kernels]'"
)
# A device string in either quotes ('cuda:0' or "hip"): RE2 has no backreference to say "the
# same quote", so each quote is an alternative of its own.
_DEVICE = r"""(?:'(?:cuda|hip)(?::\d+)?'|"(?:cuda|hip)(?::\d+)?")"""
DEVICE_REWRITES = [
    (linear_re.compile(rf"device\s*=\s*{_DEVICE}"), 'device="cpu"'),
    (linear_re.compile(rf"torch\.device\(\s*{_DEVICE}\s*\)"), 'torch.device("cpu")'),
    (linear_re.compile(rf"\.to\(\s*{_DEVICE}\s*\)"), '.to("cpu")'),
    (linear_re.compile(r"\.cuda\(\s*\)"), ".cpu()"),
]


@dataclass
class RunSpec:
    script: str
    language: str
    arch: str
    timeout_s: float


@dataclass
class Execution:
    observation: Observation
    result: SandboxResult
    assembly: str = ""
    note: str = ""


def limits_for(spec: RunSpec) -> Limits:
    return Limits(
        timeout_s=spec.timeout_s,
        cpu_s=int(spec.timeout_s * 2) + 30,
        memory_bytes=settings.KERNELS_CI_MEMORY_BYTES,
        nproc=settings.KERNELS_CI_NPROC,
        output_bytes=settings.KERNELS_CI_OUTPUT_BYTES,
        disk_bytes=settings.KERNELS_CI_DISK_BYTES,
    )


def run_confined(argv: list[str], **options) -> SandboxResult | Execution:
    """sandbox_run in namespaces; an infra Execution when the sandbox refuses (nothing ran)."""
    try:
        return sandbox_run(argv, namespaces=True, **options)
    except SandboxUnavailable as exc:
        return refused(str(exc))


def refused(reason: str) -> Execution:
    result = SandboxResult(returncode=None, isolation=f"refused: {reason}"[:255])
    observation = Observation(
        "infra", signature="infra: sandbox unavailable", message=f"not run: {reason}"[:500]
    )
    return Execution(observation=observation, result=result)


def rewrite_devices_to_cpu(script: str) -> tuple[str, int]:
    """GPU device names to `cpu`, line for line (tracebacks keep their line numbers)."""
    total = 0
    for pattern, replacement in DEVICE_REWRITES:
        script, count = pattern.subn(replacement, script)
        total += count
    return script, total


def launcher(name: str) -> str:
    return (LAUNCHERS / name).read_text(encoding="utf-8")
