"""`triton-interpreter`: runs a Triton reproducer on the CPU with TRITON_INTERPRET=1.

GPU device names in the script (device="cuda", .cuda()) become "cpu", line for line; the run log
says how many. Needs the optional `kernels` extra (triton, numpy, a CPU torch).
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
from kernels_ci.signatures import observe

NAME = "triton-interpreter"


def applies_to(language: str, uses_triton: bool) -> bool:
    return language == "python"


def available() -> str:
    missing = [m for m in ("triton", "torch", "numpy") if importlib.util.find_spec(m) is None]
    if missing:
        return f"{EXTRA_MISSING} (missing: {', '.join(missing)})"
    return isolation_problem()


def archs() -> list[str]:
    return ["cpu"]


def execute(spec: RunSpec) -> Execution:
    script, rewrites = rewrite_devices_to_cpu(spec.script)
    result = run_confined(
        [sys.executable, "-s", "launch.py", EXTRA_MISSING],
        files={"repro.py": script, "launch.py": launcher("interpret.py")},
        limits=limits_for(spec),
        env={"TRITON_INTERPRET": "1", "TRITON_HOME": "{dir}", "TRITON_DEFAULT_FP_FUSION": "1"},
        python_guard=True,
    )
    if isinstance(result, Execution):
        return result
    note = f"{rewrites} GPU device reference(s) rewritten to cpu" if rewrites else ""
    return Execution(observation=observe(result), result=result, note=note)
