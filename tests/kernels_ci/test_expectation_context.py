"""The failure a report expects is the one it quotes for its own reproducer: not the error of a
modified copy it also posts, and any of several errors it quotes for the script counts, the
verdict naming which. Reports written for these tests, through the real extraction."""

from kernels_ci.expectations import ExpectedError
from kernels_ci.extraction import extract
from kernels_ci.outcomes import Expectation, classify
from kernels_ci.sandbox import SandboxResult
from kernels_ci.signatures import observe

SCRIPT = """```python
import torch
import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, x * factor, mask=offs < n)


x = torch.ones(100, device="cuda")
out = torch.empty_like(x)
scale[(1,)](x, out, 100, None, BLOCK=128)
```
"""

TYPE_ERROR = """```
Traceback (most recent call last):
  File "/home/me/scale.py", line 16, in <module>
    scale[(1,)](x, out, 100, None, BLOCK=128)
TypeError: unsupported operand type(s) for *: 'tensor' and 'NoneType'
```
"""

VARIANT = """If I change `factor` to a `tl.constexpr` and pass a float, it fails to compile instead:

```python
@triton.jit
def scale(x_ptr, out_ptr, n, factor: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * factor)
```

```
triton.compiler.errors.CompilationError: at 3:53:
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * factor)
                                                     ^
Unsupported constexpr type
```
"""


def run_failing_with(stderr: str):
    return observe(SandboxResult(returncode=1, stderr=stderr))


def test_the_error_of_a_modified_second_snippet_is_not_the_reproducers():
    body = (
        f"Passing None as a scalar crashes, with triton 3.1.0:\n\n{SCRIPT}\n{TYPE_ERROR}\n{VARIANT}"
    )
    found = extract(title="TypeError when a scalar argument is None", body=body)
    assert "scale[(1,)](x, out, 100, None" in found.script
    expected = ExpectedError.from_dict(found.expected_error)
    assert expected.exc_type == "TypeError" and expected.others == []
    assert found.symptom_detail != "compile_error"
    assert found.suggested_backend() == "triton-interpreter"  # not the AMD compiler
    seen = run_failing_with(
        'Traceback (most recent call last):\n  File "/tmp/r/repro.py", line 16, in <module>\n'
        "TypeError: unsupported operand type(s) for *: 'tensor' and 'NoneType'\n"
    )
    verdict = classify([seen], expectation=Expectation(symptom=found.symptom, error=expected))
    assert verdict.outcome == "reproduced", verdict.detail


def test_any_error_quoted_for_the_script_counts_and_the_verdict_says_which():
    body = (
        f"{SCRIPT}\nOn my MI300X the launch fails with\n\n```\n"
        "RuntimeError: Triton Error [HIP]:  Code: 1, Messsage: invalid argument\n```\n\n"
        f"and with `TRITON_INTERPRET=1` it is\n\n{TYPE_ERROR}"
    )
    found = extract(title="scale kernel fails on MI300X and in the interpreter", body=body)
    expected = ExpectedError.from_dict(found.expected_error)
    quoted = [e.exc_type for e in expected.quoted_errors()]
    assert sorted(quoted) == ["RuntimeError", "TypeError"]
    expectation = Expectation(symptom="crash", error=expected)
    interpreter = run_failing_with(
        "TypeError: unsupported operand type(s) for *: 'tensor' and 'NoneType'\n"
    )
    verdict = classify([interpreter], expectation=expectation)
    assert verdict.outcome == "reproduced"
    assert "it is the quoted TypeError: unsupported operand type(s)" in verdict.detail
    other = run_failing_with("ValueError: Mask must have boolean scalar type\n")
    assert classify([other], expectation=expectation).outcome == "failed_differently"
