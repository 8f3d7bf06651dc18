"""`triton-interpreter`: runs a Triton reproducer on the CPU with TRITON_INTERPRET=1.

GPU device names in the script (device="cuda", .cuda()) become "cpu", line for line; the run log
says how many. Needs the optional `kernels` extra (triton, numpy, a CPU torch).
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

NAME = "triton-interpreter"
DESCRIPTION = Description(
    name=NAME,
    summary="runs the reproducer's kernels in Triton's interpreter on the CPU",
    languages=("python",),
    vendor="cpu",
    queue="repro.cpu",
    executes=True,
    targets=("cpu",),
    default_targets=("cpu",),
    pins=("triton",),
    needs=("the kernels extra (triton, numpy, a CPU torch)", "the sandbox (namespaces)"),
    suggested_for_triton_only=True,
    # it runs the kernel as Python on the CPU: no GPU target's compiler ever sees it
    observes=("wrong_result", "crash", "hang"),
    compares=True,  # does the kernel fail without any GPU's compiler
)


def available() -> str:
    missing = [m for m in ("triton", "torch", "numpy") if importlib.util.find_spec(m) is None]
    if missing:
        return f"{EXTRA_MISSING} (missing: {', '.join(missing)})"
    return isolation_problem()


def execute(spec: RunSpec) -> Execution:
    execution = launch_on_cpu(
        spec,
        name="interpret.py",
        args=(),
        env={"TRITON_INTERPRET": "1", "TRITON_HOME": "{dir}", "TRITON_DEFAULT_FP_FUSION": "1"},
        collect=("out/launches",),
    )
    observation = execution.observation
    if observation.kind == "pass" and observation.launches is None:
        observation.launches = 0  # the script ended the process before the launcher could count
    return execution
