"""Attempts on the reporter's Triton release and on the current one, and the bisection between
them: real releases from the package index, installed into per-version environments, run in the
sandbox through run_repro, as a runner does."""

import json
import os
from io import StringIO

import pytest
from django.core.management import call_command

from kernels_ci import environments
from kernels_ci.bisection import max_steps
from kernels_ci.models import Bisection, ReproCase, ReproRun
from kernels_ci.services.cases import case_refresh
from tests.kernels_ci.factories import KERNELS, fp8_compile_report

CURRENT = environments.installed_versions().get("triton", "")


@pytest.fixture
def env_cache(settings):
    """One cache for the session's runs: the releases are built once (about 10 s each) and kept
    between test runs, as on a runner."""
    settings.KERNELS_CI_ENV_DIR = f"/var/tmp/kernels-ci-test-envs-{os.getuid()}"  # noqa: S108
    settings.KERNELS_CI_ENV_CACHE_BYTES = 8 * 1024**3


def report(kernel: str, prose: str, versions: str) -> str:
    return (
        f"{prose}\n\n```python\n{(KERNELS / kernel).read_text()}```\n\n"
        f"Environment: {versions}, torch 2.5.1+rocm6.2, MI300X (gfx942), ROCm 6.2\n"
    )


def run_repro(reference: str, *options: str) -> list[dict]:
    out = StringIO()
    call_command("run_repro", reference, "--approve", "--runs", "1", "--json", *options, stdout=out)
    return json.loads(out.getvalue())


def test_a_fixed_wrong_result_reproduces_on_the_reporters_release_and_is_bisected(
    make, env_cache, needs_kernels_extra
):
    prose = (
        "The remainder of negative floats has the wrong sign in the interpreter:\n\n```\n"
        "AssertionError: Tensor-likes are not close!\n\n"
        "Mismatched elements: 497 / 1000 (49.7%)\n```"
    )
    issue = make.issue(
        repository=make.repository("triton-lang/triton"),
        number=4101,
        title="x % y of negative floats differs from torch.fmod",
        body=report("fmod_sign.py", prose, "triton 3.2.0"),
    )
    case = case_refresh(issue=issue)
    assert case.environment["triton_version"] == "3.2.0" and case.backend == "triton-interpreter"

    rows = run_repro("triton-lang/triton#4101")

    first = {(r["pinned"], r["purpose"]): r for r in rows if r["purpose"] == "repro"}
    assert first[(False, "repro")]["outcome"] == "not_reproduced"
    assert first[(False, "repro")]["versions"]["triton"] == CURRENT
    assert first[(True, "repro")]["outcome"] == "reproduced"
    assert first[(True, "repro")]["versions"]["triton"] == "3.2.0"
    bisection = Bisection.objects.get(case=case)
    assert bisection.status == Bisection.Status.DONE and bisection.direction == "fixed"
    assert bisection.steps <= max_steps(bisection.releases)
    runs = {r.ran_versions["triton"]: r.outcome for r in ReproRun.objects.filter(case=case)}
    index = bisection.releases.index(bisection.first_version)
    before = bisection.releases[index - 1]
    assert runs[bisection.first_version] == "not_reproduced" and runs[before] == "reproduced"
    assert bisection.result == (
        f"fixed in triton {bisection.first_version}: reproduced on {before}, "
        f"passes on {bisection.first_version}"
    )
    # verification counts only attempts on the current release
    from kernels_ci.selectors import verification_by_target

    assert verification_by_target(issue.id)[("cpu", "triton-interpreter")].state == (
        "never_reproduced"
    )


def test_an_api_the_current_release_removed_is_an_environment_mismatch_not_a_result(
    make, env_cache, needs_kernels_extra
):
    prose = "Copying a tile through block pointers gives zeros:\n\n```\nAssertionError\n```"
    issue = make.issue(
        repository=make.repository("triton-lang/triton"),
        number=4102,
        body=report("block_pointer_copy.py", prose, "triton==3.2.0"),
    )
    case_refresh(issue=issue)
    rows = run_repro("triton-lang/triton#4102")
    by_pin = {r["pinned"]: r for r in rows}
    current = by_pin[False]
    assert current["outcome"] == "environment_mismatch"
    assert "Block pointers have been removed" in current["signature"]
    assert "the reporter used triton 3.2.0" in current["detail"]
    assert by_pin[True]["outcome"] == "not_reproduced"  # 3.2.0 ran the kernel, and it copied
    assert not Bisection.objects.exists()  # a mismatch says nothing of the bug: no bisection


def test_a_release_whose_interpreter_cannot_judge_is_an_infra_error_with_the_reason(
    make, env_cache, needs_kernels_extra
):
    issue = make.issue(
        repository=make.repository("triton-lang/triton"),
        number=4103,
        body=report("fmod_sign.py", "Wrong sign.\n\n```\nAssertionError\n```", "triton 3.2.0"),
    )
    case = case_refresh(issue=issue)
    rows = run_repro("triton-lang/triton#4103", "--triton", "3.1.0", "--no-follow-ups")
    pinned = next(r for r in rows if r["pinned"])
    assert pinned["outcome"] == "infra_error"
    assert "triton-3.1.0 cannot judge a reproducer on triton-interpreter" in pinned["detail"]
    assert "a vector add for cpu" in pinned["detail"]
    assert "wrong_result" in pinned["detail"]  # its own check kernel computed a wrong sum
    assert ReproCase.objects.get(pk=case.pk).pinned_versions == {"triton": "3.1.0"}


LADDER = {f"6.{n}": f"rocm/pytorch@sha256:{str(n) * 64}" for n in (1, 2, 3, 4)}
NAN_REPORT = """`torch.sum` of a half tensor gives NaN on MI300X since I upgraded the driver:

```python
import os
import torch

# stands for what differs between the ROCm images: the library fixed in 6.3
series = tuple(int(part) for part in os.environ["ROCM_VERSION"].split(".")[:2])
values = torch.ones(4096, dtype=torch.float16)
total = torch.tensor(float("nan")) if series < (6, 3) else values.float().sum()
torch.testing.assert_close(total, torch.tensor(4096.0))
```

```
AssertionError: Tensor-likes are not close!
```

ROCm 6.2.1, torch 2.5.1+rocm6.2, Ubuntu 22.04
"""


def test_a_gpu_runner_runs_the_reporters_rocm_and_bisects_over_its_images(
    make, settings, container
):
    """The same ladder on a GPU runner: one image pinned by digest per ROCm series; the
    container CLI stand-in gives each image its ROCM_VERSION, as an image's ENV does."""
    settings.KERNELS_CI_ROCM_VERSION = "6.4.0"
    settings.KERNELS_CI_ROCM_IMAGE = LADDER["6.4"]
    settings.KERNELS_CI_ROCM_IMAGES = {k: v for k, v in LADDER.items() if k != "6.4"}
    images = {image: {"ROCM_VERSION": f"{series}.0"} for series, image in LADDER.items()}
    os.environ["FAKE_CONTAINER_IMAGES"] = json.dumps(images)
    settings.KERNELS_CI_CONTAINER_ENV = [
        *settings.KERNELS_CI_CONTAINER_ENV,
        "FAKE_CONTAINER_IMAGES",
    ]
    try:
        issue = make.issue(repository=make.repository("ROCm/ROCm"), number=6001, body=NAN_REPORT)
        case = case_refresh(issue=issue)
        assert case.backend == "rocm-container" and case.environment["rocm_version"] == "6.2.1"
        rows = run_repro("ROCm/ROCm#6001", "--arch", "gfx942")
    finally:
        os.environ.pop("FAKE_CONTAINER_IMAGES", None)
    by_series = {r["versions"]["rocm"]: r["outcome"] for r in rows}
    assert by_series["6.4"] == "not_reproduced" and by_series["6.2"] == "reproduced"
    bisection = Bisection.objects.get(case=case)
    assert (bisection.package, bisection.releases) == ("rocm", ["6.2", "6.3", "6.4"])
    assert bisection.result == "fixed in rocm 6.3: reproduced on 6.2, passes on 6.3"
    used = [json.loads(line)["image"] for line in container.read_text().splitlines()]
    assert set(used) == {LADDER["6.2"], LADDER["6.3"], LADDER["6.4"]}


def test_a_series_the_runner_has_no_image_of_is_an_infra_error_with_the_reason(
    make, settings, container
):
    settings.KERNELS_CI_ROCM_VERSION = "6.4.0"
    settings.KERNELS_CI_ROCM_IMAGES = {"6.3": LADDER["6.3"]}
    issue = make.issue(repository=make.repository("ROCm/ROCm"), number=6002, body=NAN_REPORT)
    case_refresh(issue=issue)
    rows = run_repro("ROCm/ROCm#6002", "--arch", "gfx942", "--no-follow-ups")
    pinned = next(r for r in rows if r["pinned"])
    assert pinned["outcome"] == "infra_error"
    assert "no image for ROCm 6.2 (KERNELS_CI_ROCM_IMAGES has 6.3)" in pinned["detail"]


def test_an_amd_compile_on_a_release_before_3_5_links_with_the_runners_lld(
    make, env_cache, needs_lld
):
    """Triton 3.2.0 links its gfx942 code object with ld.lld: with the runner's linker found,
    the release's check kernel compiles and the attempt judges the script (no infra error)."""
    body = fp8_compile_report("triton==3.2.0")
    issue = make.issue(repository=make.repository("triton-lang/triton"), number=5121, body=body)
    case = case_refresh(issue=issue)
    assert case.backend == "triton-amd-compile" and case.environment["triton_version"] == "3.2.0"
    rows = run_repro("triton-lang/triton#5121", "--no-follow-ups")
    pinned = next(r for r in rows if r["pinned"] and r["backend"] == "triton-amd-compile")
    assert pinned["versions"]["triton"] == "3.2.0"
    assert pinned["outcome"] in ("reproduced", "not_reproduced", "failed_differently"), pinned
