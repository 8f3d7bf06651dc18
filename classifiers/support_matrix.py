"""ROCm's support matrix as data: which gfx targets each release supports, per platform.

The bundled table (classifiers/data/rocm_support_matrix.json) holds the GPU / LLVM target rows of
ROCm's published compatibility matrix, with their source; settings.ROCM_SUPPORT_MATRIX (same
shape: {"linux": {"6.4.0": [...]}, "windows": {...}}) adds or replaces releases. A release the
table does not hold is unknown: `supports` answers None, and no rule judges it.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from django.conf import settings

DATA_FILE = Path(__file__).resolve().parent / "data" / "rocm_support_matrix.json"
PLATFORMS = ("linux", "windows")


@cache
def _bundled() -> dict:
    return json.loads(DATA_FILE.read_text())


def matrix() -> dict[str, dict[str, list[str]]]:
    """{platform: {release "X.Y.Z": [gfx targets]}}, the settings' releases over the bundled."""
    bundled = _bundled()
    extra = getattr(settings, "ROCM_SUPPORT_MATRIX", {}) or {}
    return {p: {**bundled.get(p, {}), **extra.get(p, {})} for p in PLATFORMS}


def sources() -> dict[str, str]:
    return dict(_bundled().get("sources", {}))


def platform_of(os_name: str) -> str:
    return "windows" if "windows" in (os_name or "").lower() else "linux"


def _release(version: str) -> str:
    """ "6.2" -> "6.2.0", "6.2.4" stays; "" for what is not X.Y[.Z]."""
    parts = (version or "").strip().split(".")
    if len(parts) < 2 or not all(p.isdigit() for p in parts[:3]):
        return ""
    return ".".join((parts + ["0"])[:3])


def supported_targets(version: str, os_name: str = "") -> list[str] | None:
    """The targets the release supports on the report's platform; None when unknown."""
    found = matrix()[platform_of(os_name)].get(_release(version))
    return list(found) if found is not None else None


def supports(target: str, version: str, os_name: str = "") -> bool | None:
    """Does ROCm `version` support `target` on the OS named? None: the table does not know."""
    targets = supported_targets(version, os_name)
    return None if targets is None else target in targets
