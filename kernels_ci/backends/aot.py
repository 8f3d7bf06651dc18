"""What the ahead-of-time compilers share: Triton compiles each kernel the reproducer launches
for one target of one vendor, with no GPU (launchers/compile_aot.py), in the sandbox.

A pass means every launched kernel compiled; a script that launched none is an invalid
reproducer for a compiler. The generated assembly (amdgcn, PTX) is kept on the run.
"""

from __future__ import annotations

import importlib.util

from kernels_ci.backends.base import (
    EXTRA_MISSING,
    Description,
    Execution,
    RunSpec,
    launch_on_cpu,
)
from kernels_ci.sandbox import isolation_problem
from kernels_ci.signatures import Observation

KERNEL_HEADER = "; ===== "
NO_KERNEL = "the script launched no @triton.jit kernel"


def compiler_description(
    *,
    name: str,
    summary: str,
    vendor: str,
    targets: tuple[str, ...],
    default_targets: tuple[str, ...],
    needs: tuple[str, ...],
    compares: bool = False,
) -> Description:
    """A compiler's description: Python reproducers that use Triton, compiled once an attempt on
    the CPU queue at the Triton version a run pins."""
    return Description(
        name=name,
        summary=summary,
        languages=("python",),
        needs_triton=True,
        vendor=vendor,
        queue="repro.cpu",
        executes=False,
        targets=targets,
        default_targets=default_targets,
        runs_per_attempt=1,
        pins=("triton",),
        needs=needs,
        compares=compares,
    )


def compiler_available(backend: str, missing: str) -> str:
    """Why Triton's `backend` (triton.backends.amd, .nvidia) cannot compile here ("" when it
    can); `missing` says that this triton lacks it."""
    if importlib.util.find_spec("triton") is None or importlib.util.find_spec("torch") is None:
        return EXTRA_MISSING
    if importlib.util.find_spec(f"triton.backends.{backend}") is None:
        return missing
    return isolation_problem()


def compile_execute(
    spec: RunSpec, *, description: Description, vendor: str, env: dict[str, str]
) -> Execution:
    """One compilation of the script's launches for spec.arch, one of the description's targets,
    by Triton's `vendor` backend ("hip" or "cuda")."""
    if spec.arch not in description.targets:
        targets = ", ".join(description.targets)
        raise ValueError(f"{description.name} targets {targets}, not {spec.arch!r}")
    execution = launch_on_cpu(
        spec,
        name="compile_aot.py",
        args=(vendor, spec.arch),
        env={"TRITON_HOME": "{dir}", **env},
        collect=("out/kernels.asm", "out/launches"),
        keep_interpret=False,  # a script that turns the interpreter on would not be compiled
    )
    result = execution.result
    execution.assembly = result.files.get("out/kernels.asm", "")
    if execution.observation.kind == "pass" and KERNEL_HEADER not in execution.assembly:
        execution.observation = Observation(
            "invalid",
            signature=NO_KERNEL,
            exit_code=result.returncode,
            duration_s=result.duration_s,
            message=NO_KERNEL,
            launches=0,
        )
    return execution
