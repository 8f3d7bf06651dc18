"""Backends that run a reproducer, one module each; a registry maps names to modules.

Each module has NAME, `applies_to(language, uses_triton) -> bool`, `available() -> str` (empty
when it can run on this machine, else why not), `archs() -> list[str]` (what it can target), and
`execute(spec) -> Execution`, one execution of the script inside the sandbox.
"""

from __future__ import annotations

from importlib import import_module

REGISTRY = {
    "triton-interpreter": "kernels_ci.backends.triton_interpreter",
    "triton-amd-compile": "kernels_ci.backends.triton_amd_compile",
    "rocm-container": "kernels_ci.backends.rocm_container",
}


class UnknownBackend(ValueError):
    pass


def backend_get(name: str):
    if name not in REGISTRY:
        raise UnknownBackend(f"unknown backend {name!r}: use one of {', '.join(REGISTRY)}")
    return import_module(REGISTRY[name])


def backends_available() -> dict[str, str]:
    """Backend name -> why it is unavailable here ('' when it runs)."""
    return {name: backend_get(name).available() for name in REGISTRY}
