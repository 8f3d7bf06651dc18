import pytest

from classifiers.extraction import environment_extract, issue_form_sections

ROCM_ISSUE_FORM = """### Problem Description

PyTorch training diverges after a few steps.

### Operating System

Ubuntu 22.04.5 LTS (Jammy Jellyfish)

### CPU

AMD EPYC 9654 96-Core Processor

### GPU

AMD Instinct MI300X

### ROCm Version

ROCm 6.4.1

### ROCm Component

rocBLAS

### Steps to Reproduce

python train.py

### (Optional for Linux users) Output of /opt/rocm/bin/rocminfo --support

_No response_
"""

ROCMINFO = """*******
Agent 2
*******
  Name:                    gfx90a
  Uuid:                    GPU-3c0b5a3e21a2f1c4
  Marketing Name:          AMD Instinct MI250X/MI250
  Vendor Name:             AMD
  Feature:                 KERNEL_DISPATCH
  ISA Info:
    ISA 1
      Name:                    amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-
"""

WINDOWS_FORM = """### Operating System

Windows 11 Pro 24H2

### GPU

Radeon RX 7900 XTX

### ROCm Version

6.2.4
"""


@pytest.mark.parametrize(
    ("title", "body", "expected"),
    [
        (
            "[Issue]: training diverges",
            ROCM_ISSUE_FORM,
            {
                "architectures": ["gfx942"],
                "gpus": ["AMD Instinct MI300X"],
                "rocm_version": "6.4.1",
                "os": "Ubuntu 22.04.5 LTS",
            },
        ),
        (
            "rocminfo attached",
            ROCMINFO,
            {"architectures": ["gfx90a"], "gpus": ["AMD Instinct MI250X"]},
        ),
        (
            "HIP fails on Windows",
            WINDOWS_FORM,
            {"architectures": ["gfx1100"], "rocm_version": "6.2.4", "os": "Windows 11 Pro 24H2"},
        ),
        (
            "PyTorch 2.10.0+rocm7.1 does not detect GPU",
            "Results on AMD Ryzen AI Max+ 395 (Strix Halo, Radeon 8060S) differ. Python 3.12.3",
            {
                "architectures": ["gfx1151"],
                "torch_version": "2.10.0+rocm7.1",
                "rocm_version": "7.1",
                "python_version": "3.12.3",
            },
        ),
        (
            "triton 3.2.0 miscompiles tl.dot on gfx950",
            "torch==2.6.0 and RHEL 9.4; works on MI210",
            {
                "architectures": ["gfx90a", "gfx950"],
                "triton_version": "3.2.0",
                "torch_version": "2.6.0",
                "os": "RHEL 9.4",
            },
        ),
        ("RX 9070 XT support?", "Is the RX 9070 XT supported?", {"architectures": ["gfx1201"]}),
        (
            "A question about docs",
            "Nothing about hardware here.",
            {"architectures": [], "gpus": [], "rocm_version": "", "os": ""},
        ),
    ],
)
def test_it_extracts_the_environment(title, body, expected):
    env = environment_extract(title, body).to_dict()
    for key, value in expected.items():
        if key == "architectures":
            assert sorted(env[key]) == sorted(value), env
        elif key == "gpus":
            assert env[key][: len(value)] == value, env
        else:
            assert env[key] == value, env


def test_the_issue_form_outranks_free_text_and_says_so():
    env = environment_extract("Fails on ROCm 5.7 too", ROCM_ISSUE_FORM)
    assert env.rocm_version == "6.4.1"
    assert env.sources["rocm_version"] == "issue form"
    assert env.architectures[0] == "gfx942"


def test_rocminfo_is_named_as_the_source():
    assert environment_extract("", ROCMINFO).sources["architectures"] == "rocminfo"


def test_sections_drop_no_response():
    sections = issue_form_sections(ROCM_ISSUE_FORM)
    assert sections["rocm component"] == "rocBLAS"
    assert not any("rocminfo" in k for k in sections)
