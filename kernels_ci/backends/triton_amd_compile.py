"""`triton-amd-compile`: compiles the reproducer's Triton kernels ahead of time for one AMD
target (gfx90a, gfx942, gfx950, gfx1151, ...) through Triton's HIP backend, with no GPU.

Each launch `kernel[grid](...)` in the script becomes a compilation for the target (arguments on
the CPU give the signature); the generated amdgcn assembly is kept on the run. A compiler error
(front end, MLIR passes, LLVM, the assembler) is reproduced per architecture.
"""

from __future__ import annotations

import importlib.util
import sys

from kernels_ci.backends.base import (
    EXTRA_MISSING,
    Execution,
    RunSpec,
    launcher,
    limits_for,
    rewrite_devices_to_cpu,
    run_confined,
)
from kernels_ci.sandbox import isolation_problem
from kernels_ci.signatures import Observation, observe

NAME = "triton-amd-compile"
TARGETS = ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1151"]
KERNEL_HEADER = "; ===== "
NO_KERNEL = "the script launched no @triton.jit kernel"


def applies_to(language: str, uses_triton: bool) -> bool:
    return language == "python" and uses_triton


def available() -> str:
    if importlib.util.find_spec("triton") is None or importlib.util.find_spec("torch") is None:
        return EXTRA_MISSING
    if importlib.util.find_spec("triton.backends.amd") is None:
        return "this triton has no AMD (HIP) backend"
    return isolation_problem()


def archs() -> list[str]:
    return list(TARGETS)


def execute(spec: RunSpec) -> Execution:
    if spec.arch not in TARGETS:
        raise ValueError(f"{NAME} targets {', '.join(TARGETS)}, not {spec.arch!r}")
    script, rewrites = rewrite_devices_to_cpu(spec.script)
    result = run_confined(
        [sys.executable, "-s", "launch.py", spec.arch, EXTRA_MISSING],
        files={"repro.py": script, "launch.py": launcher("compile_amd.py")},
        limits=limits_for(spec),
        env={"TRITON_HOME": "{dir}", "TRITON_DEFAULT_FP_FUSION": "1"},
        python_guard=True,
        collect=("out/kernels.amdgcn",),
    )
    if isinstance(result, Execution):
        return result
    observation = observe(result)
    assembly = result.files.get("out/kernels.amdgcn", "")
    if observation.kind == "pass" and KERNEL_HEADER not in assembly:
        observation = Observation(
            "invalid",
            signature=NO_KERNEL,
            exit_code=result.returncode,
            duration_s=result.duration_s,
            message=NO_KERNEL,
        )
    note = f"{rewrites} GPU device reference(s) rewritten to cpu" if rewrites else ""
    return Execution(observation=observation, result=result, assembly=assembly, note=note)
