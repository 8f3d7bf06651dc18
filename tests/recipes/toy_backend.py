"""The recipe's repro backend (docs/ARCHITECTURE.md, "Add a repro backend"), as written there."""

from kernels_ci.backends.base import Description, Execution, RunSpec, limits_for, run_confined
from kernels_ci.sandbox import isolation_problem
from kernels_ci.signatures import observe

NAME = "triton-nvidia-gpu"
DESCRIPTION = Description(
    name=NAME,
    summary="runs the reproducer's Triton kernels on an NVIDIA GPU",
    languages=("python",),
    needs_triton=True,
    vendor="nvidia",
    queue="repro.{target}",
    executes=True,
    targets=("sm_90",),
    pins=("triton",),
    needs=("an NVIDIA GPU and driver", "the sandbox"),
    compares=True,  # its verdict says whether a failure is AMD's alone
    devices=("/dev/nvidia*", "/dev/nvidiactl", "/dev/nvidia-uvm"),  # its device profile
)


def available() -> str:
    return isolation_problem()  # plus: is a GPU visible?


def execute(spec: RunSpec) -> Execution:
    result = run_confined(
        ["python3", "repro.py"],
        files={"repro.py": spec.script},
        limits=limits_for(spec),
        devices=DESCRIPTION.devices,
    )
    if isinstance(result, Execution):  # the sandbox refused: an infra outcome
        return result
    return Execution(observation=observe(result), result=result)
