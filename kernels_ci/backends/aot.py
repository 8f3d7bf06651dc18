"""What the ahead-of-time compilers share: Triton compiles each kernel the reproducer launches
for one target of one vendor, with no GPU (launchers/compile_aot.py), in the sandbox.

A pass means every launched kernel compiled; a script that launched none is an invalid
reproducer for a compiler. The generated assembly (amdgcn, PTX) is kept on the run.
"""

from __future__ import annotations

import sys

from kernels_ci.backends.base import (
    EXTRA_MISSING,
    Execution,
    RunSpec,
    environment_options,
    launcher,
    launches_of,
    limits_for,
    rewrite_devices_to_cpu,
    run_confined,
)
from kernels_ci.signatures import Observation, observe

KERNEL_HEADER = "; ===== "
NO_KERNEL = "the script launched no @triton.jit kernel"


def compile_execute(spec: RunSpec, *, vendor: str, env: dict[str, str]) -> Execution:
    """One compilation of the script's launches for spec.arch by Triton's `vendor` backend
    ("hip" or "cuda")."""
    script, rewrites = rewrite_devices_to_cpu(spec.script)
    env, binds = environment_options(spec, {"TRITON_HOME": "{dir}", **env})
    result = run_confined(
        [sys.executable, "-s", "launch.py", vendor, spec.arch, EXTRA_MISSING],
        files={"repro.py": script, "launch.py": launcher("compile_aot.py")},
        limits=limits_for(spec),
        env=env,
        python_guard=True,
        collect=("out/kernels.asm", "out/launches"),
        binds=binds,
    )
    if isinstance(result, Execution):
        return result
    observation = observe(result)
    observation.launches = launches_of(result)
    assembly = result.files.get("out/kernels.asm", "")
    if observation.kind == "pass" and KERNEL_HEADER not in assembly:
        observation = Observation(
            "invalid",
            signature=NO_KERNEL,
            exit_code=result.returncode,
            duration_s=result.duration_s,
            message=NO_KERNEL,
            launches=0,
        )
    note = f"{rewrites} GPU device reference(s) rewritten to cpu" if rewrites else ""
    return Execution(observation=observation, result=result, assembly=assembly, note=note)
