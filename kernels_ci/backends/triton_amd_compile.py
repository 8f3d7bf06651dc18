"""`triton-amd-compile`: compiles the reproducer's Triton kernels ahead of time for one AMD
target (gfx90a, gfx942, gfx950, gfx1151, ...) through Triton's HIP backend, with no GPU.

Each launch `kernel[grid](...)` in the script becomes a compilation for the target (arguments on
the CPU give the signature); the generated amdgcn assembly is kept on the run. A compiler error
(front end, MLIR passes, LLVM, the assembler) is reproduced per architecture. Releases of Triton
before 3.5 link the code object with ROCm's ld.lld: KERNELS_CI_HIP_LLD_PATH (found on PATH as
ld.lld-NN (16 or newer) or ld.lld when unset, at each run: Debian's lld-16 does) stands in for
/opt/rocm/llvm/bin/ld.lld. The linker found is this backend's `toolchain()`: a release's check
kernel is run again when it changes, so installing lld takes back a release refused without it.
"""

from __future__ import annotations

import os
import shutil

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


# the newest versioned linker first: a plain ld.lld may be an older LLVM's (Debian's `lld` is
# lld-14, which cannot link what Triton 3.3's LLVM emits for gfx942; lld-16 can)
LLD_NAMES = [*(f"ld.lld-{n}" for n in range(20, 15, -1)), "ld.lld"]
NO_LLD = (
    "no ld.lld here: Triton releases before 3.5 need it to compile for AMD targets (install "
    "Debian's lld-16, or set KERNELS_CI_HIP_LLD_PATH)"
)


def lld_path() -> str:
    """The linker for releases before 3.5: the setting, else one on PATH now ("" if none)."""
    if settings.KERNELS_CI_HIP_LLD_PATH:
        return settings.KERNELS_CI_HIP_LLD_PATH
    return next((found for name in LLD_NAMES if (found := shutil.which(name))), "")


def toolchain() -> tuple[str, str]:
    """(what this backend uses outside a Triton release, advice when it lacks something)."""
    path = lld_path()
    if not path or not os.path.exists(path):
        return "ld.lld=none", NO_LLD
    stat = os.stat(path)
    return f"ld.lld={os.path.realpath(path)}@{stat.st_size}:{int(stat.st_mtime)}", ""


def execute(spec: RunSpec) -> Execution:
    lld = lld_path()
    env = {"TRITON_HIP_LLD_PATH": lld} if lld else {}
    return compile_execute(spec, description=DESCRIPTION, vendor="hip", env=env)
