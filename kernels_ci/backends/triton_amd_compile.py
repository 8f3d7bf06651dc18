"""`triton-amd-compile`: compiles the reproducer's Triton kernels ahead of time for one AMD
target (gfx90a, gfx942, gfx950, gfx1151, ...) through Triton's HIP backend, with no GPU.

Each launch `kernel[grid](...)` in the script becomes a compilation for the target (arguments on
the CPU give the signature); the generated amdgcn assembly is kept on the run. A compiler error
(front end, MLIR passes, LLVM, the assembler) is reproduced per architecture. Releases of Triton
before 3.5 link the code object with ROCm's ld.lld: KERNELS_CI_HIP_LLD_PATH (found on PATH as
ld.lld or ld.lld-NN when unset; Debian's lld-16 does) stands in for /opt/rocm/llvm/bin/ld.lld.
"""

from __future__ import annotations

from django.conf import settings

from kernels_ci.backends.aot import (
    KERNEL_HEADER,
    NO_KERNEL,
    compile_execute,
    compiler_available,
    compiler_description,
)
from kernels_ci.backends.base import Execution, RunSpec

NAME = "triton-amd-compile"
TARGETS = ("gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1151")
DESCRIPTION = compiler_description(
    name=NAME,
    summary="compiles the reproducer's Triton kernels ahead of time for an AMD target, no GPU",
    vendor="amd",
    targets=TARGETS,
    default_targets=("gfx942",),
    needs=(
        "the kernels extra with Triton's AMD (HIP) backend",
        "the sandbox (namespaces)",
        "ld.lld for Triton releases before 3.5 (KERNELS_CI_HIP_LLD_PATH)",
    ),
)
__all__ = ["KERNEL_HEADER", "NO_KERNEL", "DESCRIPTION", "available", "execute"]


def available() -> str:
    return compiler_available("amd", "this triton has no AMD (HIP) backend")


def execute(spec: RunSpec) -> Execution:
    lld = settings.KERNELS_CI_HIP_LLD_PATH
    env = {"TRITON_HIP_LLD_PATH": lld} if lld else {}
    return compile_execute(spec, description=DESCRIPTION, vendor="hip", env=env)
