"""What a report gives of the facts triage needs (needs-info's reading), on texts we wrote."""

from __future__ import annotations

import pytest

from classifiers.completeness import report_completeness

GPU_ENV = {
    "architectures": ["gfx942"],
    "rocm_version": "6.2.0",
    "os": "Ubuntu 22.04",
    "sources": {"architectures": {"source": "issue form"}},
}


def missing(body, environment=None, comments=()):
    return report_completeness(
        body=body, environment=environment or {}, reporter_comments=comments
    ).missing


@pytest.mark.parametrize(
    "body",
    [
        "Run it:\n\n```\npython3 bench.py --size 4096\n```",
        "I run `python3 -m vllm.entrypoints.api_server --model x` and it dies.",
        "$ ./build/bin/ckProfiler gemm 1 0 1 2 0 1",
        "PS C:\\Users\\me\\proj> hipcc -o t t.cpp\nthen it crashes",
        "Fails in tests/test_ops.py::test_matmul_fp8 since yesterday.",
        "### Steps to Reproduce\n1. install the wheel\n2. import torch and allocate 40 GB",
        "Steps:\n1. Start the server\n2. Send two requests at once",
    ],
)
def test_steps_are_found_however_they_are_written(body):
    assert "steps" not in missing(body, GPU_ENV)


@pytest.mark.parametrize(
    "body",
    [
        "```\nTraceback (most recent call last):\nRuntimeError: HIP error\n```",
        "### Steps to Reproduce\nreproducer attached",
        "### Steps to Reproduce\nRun my workflow and it fails.",
        "Errors:\n1. a segfault\n2. a hang",
        "```diff\n--- a/src/gemm.cpp\n+++ b/src/gemm.cpp\n@@ -1 +1 @@\n-x = 1\n+x = 2\n```",
        "```\nROCk module is loaded\n```",
    ],
)
def test_logs_patches_and_vague_steps_are_not_steps(body):
    assert "steps" in missing(body, GPU_ENV)


def test_rocminfo_is_needed_only_while_the_gpu_is_unknown_and_found_by_its_markers():
    assert missing("It crashes.", {}) == ["gpu", "rocm_version", "os", "steps", "rocminfo"]
    assert "rocminfo" not in missing("It crashes.", GPU_ENV)
    report = "> HSA Agents\n> Agent 2\n>   Marketing Name:          AMD Instinct MI300X"
    assert "rocminfo" not in missing(report, {})


def test_a_form_answer_that_names_no_os_is_not_an_os():
    environment = {**GPU_ENV, "os": "Linux"}
    assert "os" in missing("```\npython3 a.py\n```", environment)


@pytest.mark.parametrize(
    ("body", "fact"),
    [
        ("rocminfo crashes.\n\nGPU: Sapphire Pulse 5700 XT 8GB", "gpu"),
        ("03:00.0 VGA compatible controller: Advanced Micro Devices [AMD/ATI] Device 7550", "gpu"),
        ("It runs on the Ryzen AI 9 HX 370's graphics.", "gpu"),
        ("### System Info\n\nAMD 210, ROCm 6, our server", "gpu"),
        ("Loading find-db ~/.config/miopen/gfx90a_104.HIP.3_1_0.ufdb.txt", "gpu"),
        ("Installed with the distribution's packages: rocBLAS 7.1.0, hip 6.4.", "rocm_version"),
        ("Driver: Adrenalin 25.3.1 with the HIP SDK", "rocm_version"),
        ("Fedora 41 workstation, stock kernel", "os"),
    ],
)
def test_a_fact_the_report_names_in_a_form_the_extraction_cannot_read_is_never_asked(body, fact):
    read = report_completeness(body=body, environment={})
    assert fact not in read.missing and fact in read.unclear
