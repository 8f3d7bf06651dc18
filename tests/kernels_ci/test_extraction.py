"""Extraction of reproducer, symptom and environment from realistic issue bodies."""

import pytest

from kernels_ci.extraction import extract

ROCM_FORM = """### Problem Description

Running my Triton softmax kernel on an MI300X gives a segfault after a few iterations:

```
Memory access fault by GPU node-2 (Agent handle: 0x55d5c1f0) on address 0x7f2a00000000.
Aborted (core dumped)
```

### Operating System

Ubuntu 22.04.4 LTS (Jammy Jellyfish)

### CPU

AMD EPYC 9654 96-Core Processor

### GPU

AMD Instinct MI300X

### ROCm Version

ROCm 6.2.0

### ROCm Component

HIP

### Steps to Reproduce

```python
import torch
import triton
import triton.language as tl

@triton.jit
def softmax(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=-float("inf"))
    tl.store(out_ptr + offs, tl.exp(x - tl.max(x, 0)), mask=offs < n)

x = torch.randn(1000, device="cuda")
out = torch.empty_like(x)
softmax[(1,)](x, out, 1000, BLOCK=1024)
```

### (Optional for Linux users) Output of /opt/rocm/bin/rocminfo --support

  Name:                    gfx942

### Additional Information

PyTorch version: 2.4.0+rocm6.1, pytorch-triton-rocm==3.0.0
"""

DETAILS = """The result of this kernel differs from the torch reference (max abs diff 0.5).

<details>
<summary>Reproducer</summary>

~~~python
import torch
import triton
import triton.language as tl

@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 1.0, mask=offs < n)

x = torch.zeros(8, device="cuda")
k[(1,)](x, 8, BLOCK=8)
assert torch.allclose(x, torch.ones(8, device="cuda"))
~~~

</details>

On gfx90a with ROCm 6.1.
"""

TWO_BLOCKS = """This HIP kernel hangs on my RX 7900 XTX, the program never returns.

Build with:

```sh
hipcc --offload-arch=gfx1100 -o spin spin.cpp && ./spin
```

Minimal repro:

```cpp
#include <hip/hip_runtime.h>
__global__ void spin(int *flag) { while (atomicAdd(flag, 0) == 0) {} }
int main() {
  int *flag; hipMalloc(&flag, sizeof(int)); hipMemset(flag, 0, sizeof(int));
  hipLaunchKernelGGL(spin, dim3(1), dim3(64), 0, 0, flag);
  hipDeviceSynchronize();
}
```
"""


def test_it_reads_the_rocm_issue_form():
    found = extract(title="Triton softmax segfaults", body=ROCM_FORM)
    assert found.language == "python" and found.uses_triton
    assert found.script.startswith("import torch") and "softmax[(1,)]" in found.script
    assert found.symptom == "crash"
    assert "Memory access fault" in found.symptom_message or "core dumped" in found.symptom_message
    assert found.environment["gpu_archs"] == ["gfx942"]
    assert found.environment["rocm_version"] == "6.2.0"
    assert found.environment["torch_version"] == "2.4.0+rocm6.1"
    assert found.environment["triton_version"] == "3.0.0"
    assert found.missing_facts == []
    assert found.suggested_backend() == "triton-interpreter"


def test_it_finds_a_reproducer_inside_details_and_lists_missing_facts():
    found = extract(title="wrong output from store with mask", body=DETAILS)
    assert "@triton.jit" in found.script and "<details>" not in found.script
    assert found.symptom == "wrong_result"
    assert found.environment["gpu_archs"] == ["gfx90a"]
    assert found.environment["rocm_version"] == "6.1"
    assert set(found.missing_facts) == {"torch_version", "triton_version"}
    assert "introduced as a reproducer" in found.choice_reason


def test_it_chooses_the_hip_kernel_over_the_build_command():
    found = extract(title="kernel hang", body=TWO_BLOCKS)
    assert found.block_count == 2
    assert found.language == "hip" and "hipLaunchKernelGGL" in found.script
    assert found.symptom == "hang"
    assert found.environment["gpu_archs"] == ["gfx1100"]
    assert "rocm_version" in found.missing_facts
    assert found.suggested_backend() == "rocm-container"


def test_it_prefers_the_triton_kernel_among_two_python_blocks():
    body = (
        "Setup:\n```python\nimport torch\nprint(torch.__version__)\n```\n\n"
        "Reproducer:\n```python\nimport torch\nimport triton\nimport triton.language as tl\n"
        "@triton.jit\ndef k(x):\n    pass\nk[(1,)](1)\n```\n"
        "Fails to compile with CompilationError on gfx950."
    )
    found = extract(title="compile error", body=body)
    assert "@triton.jit" in found.script
    assert (found.symptom, found.symptom_detail) == ("crash", "compile_error")
    assert found.suggested_backend() == "triton-amd-compile"
    assert "preferred over 1 other candidate" in found.choice_reason


def test_it_finds_nothing_to_run_in_prose_and_logs():
    found = extract(title="docs typo", body="See ```\nTraceback (most recent call last):\n```")
    assert found.script == "" and found.language == ""
    assert found.suggested_backend() == ""


def test_the_case_runs_on_the_reporters_gpu_not_on_the_targets_it_was_built_for():
    body = (
        "On my Radeon 7900XTX (ROCm 6.3.1) the kernel hangs.\n\n"
        "```sh\nexport PYTORCH_ROCM_ARCH='gfx90a;gfx942;gfx1100'\npip install -e .\n```\n\n"
        "```python\nimport torch\nimport triton\n\n@triton.jit\ndef k(x):\n    pass\n"
        "k[(1,)](torch.zeros(1, device='cuda'))\n```\n\ntorch==2.6.0+rocm6.2, triton 3.2.0\n"
    )
    found = extract(title="hang in a triton kernel", body=body)
    assert found.archs == ["gfx1100"]
    assert found.environment["build_targets"] == ["gfx90a", "gfx942", "gfx1100"]
    assert found.environment["rocm_version"] == "6.3.1"
    assert (found.environment["torch_version"], found.environment["triton_version"]) == (
        "2.6.0+rocm6.2",
        "3.2.0",
    )
    assert found.missing_facts == []


# --- reproducers without imports (issue 17) ------------------------------------------------------

KERNEL_AND_LAUNCH = """```python
@triton.jit
def scale(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n) * 2, mask=offsets < n)

x = torch.ones(100, device="cuda")
scale[(1,)](x, 100, BLOCK=128)
assert torch.all(x == 2)
```
"""
KERNEL_ONLY = """The kernel below miscompiles on gfx942:

```python
@triton.jit
def scale(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets) * 2)
```
"""


def test_a_complete_kernel_without_imports_gets_the_standard_ones_in_its_approved_script(make):
    from kernels_ci.models import script_sha256
    from kernels_ci.services.cases import case_refresh

    found = extract(title="scale doubles nothing", body=KERNEL_AND_LAUNCH)
    assert found.imports_added and found.uses_triton and found.language == "python"
    assert found.script.startswith("import torch\nimport triton\nimport triton.language as tl\n")
    assert "the standard ones (torch, triton, tl) were added" in found.choice_reason
    assert found.suggested_backend() == "triton-interpreter"
    case = case_refresh(issue=make.issue(title="scale", body=KERNEL_AND_LAUNCH))
    assert case.imports_added and case.sha256 == script_sha256(found.script)


def test_a_kernel_that_is_never_launched_needs_a_complete_reproducer(make):
    from kernels_ci.services.cases import case_refresh

    found = extract(title="miscompile", body=KERNEL_ONLY)
    assert found.script == "" and found.incomplete.startswith("needs a complete reproducer")
    issue = make.issue(title="miscompile", body=KERNEL_ONLY)
    case = case_refresh(issue=issue)
    assert case is not None and not case.has_script
    assert "never launches it" in case.choice_reason


# --- versions as reporters write them (issue 36) --------------------------------------------

KERNEL_BODY = """The kernel below gives wrong sums on MI300X.

```python
import torch
import triton
import triton.language as tl

@triton.jit
def add(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)

x = torch.ones(100, device="cuda")
out = torch.empty_like(x)
add[(1,)](x, out, 100, BLOCK=128)
assert torch.equal(out, x + 1)
```

"""


@pytest.mark.parametrize(
    ("written", "triton", "torch"),
    [
        ("Triton version is 2.2.0. Torch is the one from the ROCm wheel.", "2.2.0", ""),
        ("Versions: Triton: `3.3.1`, PyTorch: `2.7.1+rocm6.3`", "3.3.1", "2.7.1+rocm6.3"),
        (
            "```\n$ pip show torch triton\nName: torch\nVersion: 2.5.1+rocm6.2\nSummary: "
            "Tensors\n---\nName: pytorch-triton-rocm\nVersion: 3.1.0\n```",
            "3.1.0",
            "2.5.1+rocm6.2",
        ),
        ("requirements.txt:\n```\nnumpy<2\ntriton==3.1.0\ntorch==2.5.1\n```", "3.1.0", "2.5.1"),
        ("I run torch 2.5.1+rocm6.2 with triton 3.1.0", "3.1.0", "2.5.1+rocm6.2"),
    ],
)
def test_it_reads_the_versions_as_reporters_write_them(written, triton, torch):
    found = extract(title="wrong sums from a Triton kernel", body=KERNEL_BODY + written)
    assert found.environment["triton_version"] == triton
    assert found.environment["torch_version"] == torch
