"""`triton-nvidia-compile`: compiles the reproducer's Triton kernels ahead of time for an NVIDIA
target (sm_80, sm_90) through Triton's CUDA backend, with no GPU: to PTX, then to a cubin by the
ptxas that Triton's wheel carries.

It is not ours to fix: it tells whether a compile error or a code generation problem reported
against AMD's backend is AMD's alone (it compiles for sm_90) or Triton's in general (it fails
there too), and so who must fix it.
"""

from __future__ import annotations

import importlib.util

from kernels_ci.backends.aot import compile_execute
from kernels_ci.backends.base import EXTRA_MISSING, Description, Execution, RunSpec
from kernels_ci.sandbox import isolation_problem

NAME = "triton-nvidia-compile"
TARGETS = ("sm_80", "sm_90")
DESCRIPTION = Description(
    name=NAME,
    summary="compiles the reproducer's Triton kernels ahead of time for an NVIDIA target, no GPU",
    languages=("python",),
    needs_triton=True,
    vendor="nvidia",
    queue="repro.cpu",
    executes=False,
    targets=TARGETS,
    default_targets=("sm_90",),
    runs_per_attempt=1,
    pins=("triton",),
    needs=("the kernels extra with Triton's CUDA backend (its bundled ptxas)", "the sandbox"),
)


def available() -> str:
    if importlib.util.find_spec("triton") is None or importlib.util.find_spec("torch") is None:
        return EXTRA_MISSING
    if importlib.util.find_spec("triton.backends.nvidia") is None:
        return "this triton has no NVIDIA (CUDA) backend"
    return isolation_problem()


def execute(spec: RunSpec) -> Execution:
    if spec.arch not in TARGETS:
        raise ValueError(f"{NAME} targets {', '.join(TARGETS)}, not {spec.arch!r}")
    return compile_execute(spec, vendor="cuda", env={})
