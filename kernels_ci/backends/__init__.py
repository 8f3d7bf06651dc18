"""Backends that run a reproducer, one module each; a registry maps names to modules.

Each module has DESCRIPTION (kernels_ci.backends.base.Description: its targets, their vendor,
its queue, whether it executes the kernel or only compiles it, the packages it can pin to a
reporter's version, what it needs), `available() -> str` (empty when it can run on this
machine, else why not: its health check) and `execute(spec) -> Execution`, one execution of the
script inside the sandbox. Everything else (runs, runners, the `/repro` parser, readiness) asks
these descriptions; adding a backend is a module and a line in config/wiring.py's
REPRO_BACKENDS.
"""

from __future__ import annotations

from importlib import import_module

from config import wiring
from kernels_ci.backends.base import COMPILE_ERROR, OBSERVED_AS, Description


def registry() -> dict[str, str]:
    """{name: module}: config/wiring.py's REPRO_BACKENDS as it is now (a test may replace it)."""
    return wiring.REPRO_BACKENDS


class UnknownBackend(ValueError):
    pass


def backend_get(name: str):
    if name not in registry():
        raise UnknownBackend(f"unknown backend {name!r}: use one of {', '.join(registry())}")
    return import_module(registry()[name])


def describe(name: str) -> Description:
    return backend_get(name).DESCRIPTION


def descriptions() -> list[Description]:
    return [describe(name) for name in registry()]


def backends_available() -> dict[str, str]:
    """Backend name -> why it is unavailable here ('' when it runs)."""
    return {name: backend_get(name).available() for name in registry()}


def known_targets() -> set[str]:
    """Every target some backend can run or compile for (`/repro gfx942 sm_90 cpu`)."""
    return {target for d in descriptions() for target in d.target_list()}


def target_vendor(target: str) -> str:
    """Whose hardware a target is ("amd", "nvidia", "cpu"), by the backends that list it; ""
    for a target no backend knows."""
    return next((d.vendor for d in descriptions() if target in d.target_list()), "")


def suggested_backend(language: str, uses_triton: bool, detail: str = "") -> str:
    """The backend a new case starts on: for a compile error the first compiler of AMD targets
    that applies, else the first backend that executes the kernel on this stack; "" if none."""
    applicable = [d for d in descriptions() if d.applies_to(language, uses_triton)]
    if detail == COMPILE_ERROR:
        compilers = [d for d in applicable if not d.executes and d.vendor == "amd"]
        if compilers:
            return compilers[0].name
    runners = [
        d for d in applicable if d.executes and (uses_triton or not d.suggested_for_triton_only)
    ]
    return runners[0].name if runners else ""


def comparison_backends(language: str, uses_triton: bool, kind: str = "") -> list[Description]:
    """The backends that tell whether a failure is specific to AMD's backend: those that say
    they compare (a compiler of another vendor's targets, a backend that executes without a
    GPU), of those that can show a failure of the expected `kind` (a compile error: not the
    interpreter)."""
    return [
        d
        for d in descriptions()
        if d.compares and d.applies_to(language, uses_triton) and d.can_observe(kind)
    ]


def unobservable_hint(name: str, kind: str, language: str, uses_triton: bool) -> str:
    """Why an attempt on backend `name` judges nothing of a `kind` failure, and where it shows."""
    description = describe(name)
    able = [
        d.name
        for d in descriptions()
        if d.applies_to(language, uses_triton) and d.can_observe(kind) and d.name != name
    ]
    where = f": run it on {' or '.join(able)}" if able else ""
    who = name if description.executes else "a compile-only backend"
    return f"{who} ({description.summary}) cannot show {OBSERVED_AS.get(kind, kind)}{where}"
