"""Verdicts compare a run's failure with the one its report quotes: a table of real-looking
reports and run outputs (written for these tests), through the real extraction and the real
observation of a sandbox result."""

import pytest

from kernels_ci.expectations import expected_error, matches
from kernels_ci.extraction import extract
from kernels_ci.outcomes import Expectation, classify
from kernels_ci.sandbox import SandboxResult
from kernels_ci.signatures import observe

SCRIPT = """```python
import torch
import triton
import triton.language as tl

@triton.jit
def kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(out_ptr + offs % 4, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)

x = torch.ones(1024, dtype=torch.float16, device="cuda")
out = torch.zeros(4, dtype=torch.float16, device="cuda")
kernel[(8,)](x, out, 1024, BLOCK=128)
print(out)
```
"""


def traceback(*lines: str) -> str:
    frames = (
        "Traceback (most recent call last):\n"
        '  File "/tmp/repro-5f2a/launch.py", line 31, in <module>\n'
        '  File "/tmp/repro-5f2a/repro.py", line 13, in <module>\n'
        '  File "/opt/venv/lib/python3.11/site-packages/triton/runtime/jit.py", line 330, in run\n'
    )
    return frames + "\n".join(lines) + "\n"


VERIFIER_REPORT = (
    (
        "Compiling this kernel for gfx942 fails with a verifier error on the atomic add:\n\n```\n"
        "loc(\"/home/me/atomic.py\":8:4): error: 'tt.atomic_rmw' op operand #1 must be ranked "
        "tensor of floating-point values, but got 'tensor<128xf16>'\n"
    )
    + """Traceback (most recent call last):
  File "/home/me/atomic.py", line 13, in <module>
triton.compiler.errors.CompilationError: at 8:4:
    tl.atomic_add(out_ptr + offs % 4, x, mask=offs < n)
    ^
'tt.atomic_rmw' op operand #1 must be ranked tensor of floating-point values
```
"""
)
BLOCK_POINTERS_REMOVED = traceback(
    '  File "/opt/venv/lib/python3.11/site-packages/triton/runtime/interpreter.py", line 1515, '
    "in __call__",
    "triton.runtime.errors.InterpreterError: NotImplementedError('Block pointers have been "
    "removed in favor of the tensor descriptor API')",
)
SAME_VERIFIER_ERROR = (
    "loc(\"/tmp/repro-77aa/repro.py\":8:4): error: 'tt.atomic_rmw' op operand #1 must be "
    "ranked tensor of floating-point values, but got 'tensor<128xf16>'\n"
    + traceback(
        "triton.compiler.errors.CompilationError: at 8:4:",
        "    tl.atomic_add(out_ptr + offs % 4, x, mask=offs < n)",
        "'tt.atomic_rmw' op operand #1 must be ranked tensor of floating-point values",
    )
)
OTHER_COMPILE_ERROR = (
    "loc(\"/tmp/repro-77aa/repro.py\":8:4): error: 'tt.dot' op operand #0 layout mismatch\n"
    + traceback(
        "triton.compiler.errors.CompilationError: at 8:4:",
        "'tt.dot' op operand #0 layout mismatch",
    )
)
HIP_INVALID_ARGUMENT_REPORT = """Launching the kernel on MI300X fails every time:

```
Traceback (most recent call last):
  File "bug.py", line 13, in <module>
    kernel[(8,)](x, out, 1024, BLOCK=128)
RuntimeError: Triton Error [HIP]:  Code: 1, Messsage: invalid argument at 0x7f3c2a001000
```
"""
HIP_INVALID_ARGUMENT_RUN = traceback(
    "RuntimeError: Triton Error [HIP]:  Code: 1, Messsage: invalid argument at 0x55d0beef0000"
)
WRONG_RESULT_REPORT = """The sums are wrong on gfx90a:

```
AssertionError: Tensor-likes are not close!

Mismatched elements: 12 / 1024 (1.2%)
Greatest absolute difference: 3.0 at index (17,)
```
"""
WRONG_RESULT_RUN = traceback(
    '  File "/opt/venv/lib/python3.11/site-packages/torch/testing/_comparison.py", line 1530, '
    "in assert_close",
    "AssertionError: Tensor-likes are not close!",
    "",
    "Mismatched elements: 30 / 1024 (2.9%)",
)
MEMORY_FAULT_REPORT = (
    "The kernel takes the GPU down:\n\n```\nMemory access fault by GPU node-2 (Agent handle: "
    "0x55a0a0) on address 0x7f0000. Reason: Page not present or supervisor privilege.\n"
    "Aborted (core dumped)\n```\n"
)
NO_SYMPTOM_REPORT = "I am not sure this kernel does what the docs say it should.\n"
REMOVED_MODULE = traceback("ModuleNotFoundError: No module named 'triton.ops'")
REMOVED_API = traceback("AttributeError: module 'triton.language.math' has no attribute 'rsqrt'")
THIRD_PARTY = traceback("ModuleNotFoundError: No module named 'transformers'")
NUMPY_TOO_NEW = traceback("TypeError: only 0-dimensional arrays can be converted to Python scalars")
LOOP_BOUND_REPORT = """A loop with a runtime bound crashes the interpreter:

```
TypeError: only 0-dimensional arrays can be converted to Python scalars
```
"""
INDEX_ERROR = traceback("IndexError: index 1024 is out of bounds for dimension 0 with size 1024")
ILLEGAL_ACCESS_REPORT = """It crashes:

```
RuntimeError: CUDA error: an illegal memory access was encountered
```
"""

# report body, what the run printed (stderr) and its exit, the verdict
TABLE = [
    ("reported verifier error, run hits removed block pointers", VERIFIER_REPORT,
     BLOCK_POINTERS_REMOVED, 1, "environment_mismatch"),
    ("nothing reported, run hits removed block pointers", NO_SYMPTOM_REPORT,
     BLOCK_POINTERS_REMOVED, 1, "environment_mismatch"),
    ("the same verifier error, other paths and lines", VERIFIER_REPORT, SAME_VERIFIER_ERROR, 1,
     "reproduced"),
    ("another compile error than the reported one", VERIFIER_REPORT, OTHER_COMPILE_ERROR, 1,
     "failed_differently"),
    ("the same HIP error, another address", HIP_INVALID_ARGUMENT_REPORT,
     HIP_INVALID_ARGUMENT_RUN, 1, "reproduced"),
    ("the same mismatch, other counts", WRONG_RESULT_REPORT, WRONG_RESULT_RUN, 1, "reproduced"),
    ("a wrong result reported, a removed module in the run", WRONG_RESULT_REPORT,
     REMOVED_MODULE, 1, "environment_mismatch"),
    ("a wrong result reported, a removed API in the run", WRONG_RESULT_REPORT, REMOVED_API, 1,
     "environment_mismatch"),
    ("a third-party module the runner lacks", WRONG_RESULT_REPORT, THIRD_PARTY, 1, "invalid"),
    ("a memory fault reported, the run passes", MEMORY_FAULT_REPORT, "", 0, "not_reproduced"),
    ("nothing reported, the run crashes", NO_SYMPTOM_REPORT, INDEX_ERROR, 1, "failed"),
    ("a wrong result reported, a release older than the runner's numpy", WRONG_RESULT_REPORT,
     NUMPY_TOO_NEW, 1, "environment_mismatch"),
    ("that numpy error is what the report quotes", LOOP_BOUND_REPORT, NUMPY_TOO_NEW, 1,
     "reproduced"),
    ("an illegal access reported, another crash in the run", ILLEGAL_ACCESS_REPORT, INDEX_ERROR,
     1, "failed_differently"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("report", "stderr", "code", "outcome"),
    [row[1:] for row in TABLE],
    ids=[row[0] for row in TABLE],
)
def test_the_verdict_compares_the_runs_failure_with_the_reported_one(report, stderr, code, outcome):
    found = extract(title="Kernel fails on MI300X", body=f"{report}\n{SCRIPT}")
    assert found.script and found.uses_triton
    expectation = Expectation(
        symptom=found.symptom,
        detail=found.symptom_detail,
        error=expected_error(report),
        reported_versions={"triton": "3.2.0"},
        versions={"triton": "3.9.0"},
    )
    observation = observe(SandboxResult(returncode=code, stderr=stderr))
    if code == 0:
        observation.launches = 1
    verdict = classify([observation] * 3, expectation=expectation)
    assert verdict.outcome == outcome, verdict.detail
    if outcome == "environment_mismatch":
        assert (
            "triton 3.9.0" in verdict.detail and "the reporter used triton 3.2.0" in verdict.detail
        )
    if outcome == "failed_differently":
        assert expectation.error.signature[:20] in verdict.detail
        assert observation.signature in verdict.detail


def test_a_quoted_error_is_normalized_like_a_runs_signature():
    quoted = expected_error(HIP_INVALID_ARGUMENT_REPORT)
    assert quoted.exc_type == "RuntimeError"
    assert "0x?" in quoted.message and "0x7f3c" not in quoted.message
    verifier = expected_error(VERIFIER_REPORT)
    assert verifier.exc_type == "CompilationError"
    assert any("'tt.atomic_rmw' op operand #N must be" in line for line in verifier.lines)
    assert expected_error("It is slow, that is all.") is None


def test_a_wrapped_interpreter_error_is_the_exception_the_kernel_raised():
    observation = observe(SandboxResult(returncode=1, stderr=BLOCK_POINTERS_REMOVED))
    assert observation.kind == "environment"
    assert observation.message.startswith("NotImplementedError: Block pointers have been removed")
    assert "removed" in observation.environment
    reported = expected_error(
        "On 3.9 it says\n```\nNotImplementedError: Block pointers have been removed\n```\n"
    )
    assert matches(reported, observation)  # a report about the removal itself reproduces


def test_a_version_a_maintainer_chose_is_not_called_the_reporters():
    expectation = Expectation(
        symptom="wrong_result",
        reported_versions={"triton": "3.8.0"},
        versions={"triton": "3.8.0"},
        chosen=("triton",),
    )
    observation = observe(SandboxResult(returncode=1, stderr=BLOCK_POINTERS_REMOVED))
    verdict = classify([observation], expectation=expectation)
    assert verdict.outcome == "environment_mismatch"
    assert "a maintainer asked for triton 3.8.0" in verdict.detail
    assert "the reporter used" not in verdict.detail
