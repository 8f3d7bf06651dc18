"""`triton-nvidia-compile`: compiles the reproducer's Triton kernels ahead of time for an NVIDIA
target (sm_80, sm_90) through Triton's CUDA backend, with no GPU: to PTX, then to a cubin by the
ptxas that Triton's wheel carries.

It is not ours to fix: it tells whether a compile error or a code generation problem reported
against AMD's backend is AMD's alone (it compiles for sm_90) or Triton's in general (it fails
there too), and so who must fix it.
"""

from __future__ import annotations

from kernels_ci.backends.aot import compile_execute, compiler_available, compiler_description
from kernels_ci.backends.base import Execution, RunSpec

NAME = "triton-nvidia-compile"
TARGETS = ("sm_80", "sm_90")
DESCRIPTION = compiler_description(
    name=NAME,
    summary="compiles the reproducer's Triton kernels ahead of time for an NVIDIA target, no GPU",
    vendor="nvidia",
    targets=TARGETS,
    default_targets=("sm_90",),
    needs=("the kernels extra with Triton's CUDA backend (its bundled ptxas)", "the sandbox"),
    compares=True,  # does the kernel compile for another vendor's GPU
)


def available() -> str:
    return compiler_available("nvidia", "this triton has no NVIDIA (CUDA) backend")


def execute(spec: RunSpec) -> Execution:
    return compile_execute(spec, description=DESCRIPTION, vendor="cuda", env={})
