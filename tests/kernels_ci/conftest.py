"""kernels_ci fixtures. Tests that really run Triton need the optional `kernels` extra: without
it they skip on a developer's machine and fail in CI (CI=true), never silently pass."""

import importlib.util
import os
from pathlib import Path

import pytest

KERNELS = Path(__file__).resolve().parents[2] / "kernels_ci" / "fixtures" / "kernels"


@pytest.fixture
def needs_kernels_extra():
    missing = [m for m in ("triton", "torch", "numpy") if importlib.util.find_spec(m) is None]
    if missing:
        message = f"needs the kernels extra (pip install -e '.[kernels]'); missing {missing}"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


@pytest.fixture
def kernel_script():
    return lambda name: (KERNELS / name).read_text()
