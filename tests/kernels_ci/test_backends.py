"""The Triton backends really run (interpreter on the CPU, HIP compiler ahead of time)."""

import sys

from kernels_ci.backends import backend_get
from kernels_ci.backends.base import RunSpec
from kernels_ci.sandbox import Limits, sandbox_run
from kernels_ci.signatures import observe

PLANTED_COMPILE_ERROR = """
import torch
import triton
import triton.language as tl


@triton.jit
def bad(x_ptr):
    offs = tl.arange(0, 100)  # not a power of two
    tl.store(x_ptr + offs, 1.0)


x = torch.zeros(128, device="cuda")
bad[(1,)](x)
"""


def run(backend, script, *, arch="cpu", timeout_s=30.0):
    return backend_get(backend).execute(
        RunSpec(script=script, language="python", arch=arch, timeout_s=timeout_s)
    )


def test_the_interpreter_reproduces_a_planted_wrong_result(needs_kernels_extra, kernel_script):
    execution = run("triton-interpreter", kernel_script("wrong_mask.py"))
    assert execution.observation.kind == "wrong_result"
    assert execution.observation.signature.startswith("AssertionError: Tensor-likes are not close!")
    assert "rewritten to cpu" in execution.note


def test_the_interpreter_passes_a_correct_kernel(needs_kernels_extra, kernel_script):
    execution = run("triton-interpreter", kernel_script("correct_mask.py"))
    assert execution.observation.kind == "pass", execution.result.output
    assert execution.result.stdout.strip() == "ok"


def test_the_interpreter_reports_a_hang_as_a_timeout(needs_kernels_extra, kernel_script):
    execution = run("triton-interpreter", kernel_script("spin_wait.py"), timeout_s=4)
    assert execution.observation.kind == "hang"
    assert execution.observation.signature == "timeout"
    assert execution.result.timed_out and execution.result.duration_s < 10


def test_the_compiler_builds_a_kernel_for_gfx942_and_keeps_its_assembly(
    needs_kernels_extra, kernel_script
):
    execution = run("triton-amd-compile", kernel_script("correct_mask.py"), arch="gfx942")
    assert execution.observation.kind == "pass", execution.result.output
    assert "; ===== add_kernel for gfx942 =====" in execution.assembly
    assert ".amdgcn_target" in execution.assembly and "gfx942" in execution.assembly
    assert "s_endpgm" in execution.assembly


def test_the_compiler_reproduces_a_planted_compile_error(needs_kernels_extra):
    execution = run("triton-amd-compile", PLANTED_COMPILE_ERROR, arch="gfx942")
    assert execution.observation.kind == "compile_error"
    assert execution.observation.signature.startswith("CompilationError: ")
    assert "power of" in execution.observation.signature


def test_the_compiler_calls_a_script_that_launches_no_kernel_invalid(needs_kernels_extra):
    script = "import torch\nimport triton\nprint('no kernel here')\n"
    execution = run("triton-amd-compile", script, arch="gfx942")
    assert execution.observation.kind == "invalid"
    assert "launched no @triton.jit kernel" in execution.observation.signature


def test_the_python_guard_also_blocks_sockets(needs_namespaces):
    script = (
        "import socket\n"
        "s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)\n"
        "s.connect(('127.0.0.1', 9))\n"
    )
    result = sandbox_run(
        [sys.executable, "repro.py"],
        files={"repro.py": script},
        limits=Limits(timeout_s=20),
        python_guard=True,
    )
    observation = observe(result)
    assert observation.kind == "invalid"
    assert "network access is disabled" in result.stderr
    assert "sockets blocked" in result.isolation and "empty network namespace" in result.isolation


def test_the_sandbox_kills_the_whole_process_group_and_bounds_output(needs_namespaces):
    result = sandbox_run(
        ["bash", "-c", "(sleep 30 &); yes | head -c 200000; sleep 30"],
        files={},
        limits=Limits(timeout_s=1, output_bytes=1000),
    )
    assert result.timed_out
    assert result.truncated and len(result.stdout) < 1200
    assert "bytes truncated" in result.stdout
