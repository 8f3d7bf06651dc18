"""kernels_ci fixtures. Tests that really run Triton need the optional `kernels` extra, and
tests that run the sandbox need Linux namespaces (util-linux `unshare`): without them they skip
on a developer's machine and fail in CI (CI=true), never silently pass."""

import importlib.util
import os
import sys
from pathlib import Path

import pytest

from tests.kernels_ci.factories import IMAGE

KERNELS = Path(__file__).resolve().parents[2] / "kernels_ci" / "fixtures" / "kernels"
FAKE_CLI = Path(__file__).resolve().parents[1] / "fakes" / "fake_container_cli.py"


@pytest.fixture
def needs_kernels_extra(needs_namespaces):
    missing = [m for m in ("triton", "torch", "numpy") if importlib.util.find_spec(m) is None]
    if missing:
        _missing(f"needs the kernels extra (pip install -e '.[kernels]'); missing {missing}")


def _missing(message: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture
def needs_namespaces():
    from kernels_ci.sandbox import isolation_problem

    problem = isolation_problem()
    if problem:
        _missing(f"needs Linux namespaces for the repro sandbox: {problem}")


@pytest.fixture
def needs_lld(needs_kernels_extra):
    """ld.lld, which Triton releases before 3.5 need to compile for AMD targets (Debian's lld;
    .ci/run installs it)."""
    from kernels_ci.backends.triton_amd_compile import lld_path

    if not lld_path():
        _missing("needs ld.lld for Triton releases before 3.5 on AMD targets (apt-get install lld)")


@pytest.fixture
def kernel_script():
    return lambda name: (KERNELS / name).read_text()


@pytest.fixture
def container(settings, tmp_path):
    """An AMD GPU host as far as our code can tell: the stand-in CLI, a pinned image, devices."""
    settings.KERNELS_CI_CONTAINER_CLI = f"{sys.executable} {FAKE_CLI}"
    settings.KERNELS_CI_ROCM_IMAGE = IMAGE
    settings.KERNELS_CI_RUNNER_ARCH = "gfx942"
    settings.KERNELS_CI_CONTAINER_ENV = ["FAKE_CONTAINER_LOG", "FAKE_CONTAINER_STATE"]
    for name, setting in (
        ("kfd", "KERNELS_CI_KFD_DEVICE"),
        ("renderD128", "KERNELS_CI_RENDER_DEVICE"),
    ):
        (tmp_path / name).touch()
        setattr(settings, setting, str(tmp_path / name))
    log = tmp_path / "cli.jsonl"
    os.environ["FAKE_CONTAINER_LOG"] = str(log)
    os.environ["FAKE_CONTAINER_STATE"] = str(tmp_path / "state")
    yield log
    os.environ.pop("FAKE_CONTAINER_LOG", None)
    os.environ.pop("FAKE_CONTAINER_STATE", None)
