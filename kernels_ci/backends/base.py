"""What every backend takes and returns."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from kernels_ci.rewrites import rewrite_for_cpu
from kernels_ci.sandbox import Limits, SandboxResult, SandboxUnavailable, sandbox_run
from kernels_ci.signatures import Observation, observe

LAUNCHERS = Path(__file__).resolve().parent / "launchers"
EXTRA_MISSING = (
    "the optional 'kernels' extra is missing (triton, numpy, a CPU torch): install it with "
    "pip install -e '.[kernels]'"
)


COMPILE_ERROR = "compile_error"
# the failures a backend may show: a reported symptom, a compile error being a crash's detail
OBSERVABLE = ("wrong_result", "crash", "hang", COMPILE_ERROR)
OBSERVED_AS = {
    "wrong_result": "a wrong result",
    "crash": "a crash",
    "hang": "a hang",
    COMPILE_ERROR: "a compile error",
}


@dataclass(frozen=True)
class Description:
    """What a backend is, for everything that plans, routes and reports runs: nothing outside a
    backend's own module branches on its name or on a target's spelling.

    - `targets`: what it can run or compile for ("cpu", "gfx942", "sm_90"); `targets_setting`
      names a setting holding them instead (GPU runners: settings.REPRO_ARCHITECTURES);
    - `vendor`: whose hardware those targets are ("cpu", "amd", "nvidia");
    - `queue`: the Celery queue of a run, `{target}` standing for its target;
    - `executes`: it runs the kernel (a pass means the kernel ran and did not fail), where a
      compiler only compiles it (it reproduces compile errors, and its pass says "compiles");
    - `runs_per_attempt`: executions of an attempt (0: KERNELS_CI_RUNS_PER_ATTEMPT); compiling
      is deterministic, one is enough;
    - `pins`: the packages it can run at a version other than the runner's own (a per-version
      environment: "triton"; container images per ROCm series: "rocm");
    - `needs`: what the runner must have for it, as people read it (for the runners page);
    - `suggested_for_triton_only`: a new case starts on it only when its script uses Triton;
    - `observes`: the failures it can show (OBSERVABLE's kinds; empty: every kind where it
      executes the kernel, compile errors only where it compiles). An attempt on a backend that
      cannot show the reported failure judges nothing (cannot_observe), never passes;
    - `compares`: it joins the cross-vendor comparison (`comparison_backends`): its verdict on a
      failure tells whether the failure is specific to AMD's stack (a compiler of another
      vendor's targets, a backend that executes without a GPU). Never by default;
    - `devices`: its device profile, the device nodes its runs need (globs: "/dev/kfd",
      "/dev/dri/renderD*"), bound into the sandbox's /dev, which otherwise holds null, zero,
      full, random and urandom only: no GPU is visible to a run unless its backend names it.
    """

    name: str
    summary: str
    languages: tuple[str, ...]
    vendor: str
    queue: str
    executes: bool
    needs_triton: bool = False
    targets: tuple[str, ...] = ()
    targets_setting: str = ""
    default_targets: tuple[str, ...] = ()
    runs_per_attempt: int = 0
    pins: tuple[str, ...] = ()
    needs: tuple[str, ...] = field(default_factory=tuple)
    suggested_for_triton_only: bool = False
    observes: tuple[str, ...] = ()
    compares: bool = False
    devices: tuple[str, ...] = ()

    def observable(self) -> tuple[str, ...]:
        if self.observes:
            return self.observes
        return OBSERVABLE if self.executes else (COMPILE_ERROR,)

    def can_observe(self, kind: str) -> bool:
        """Whether it can show a failure of this kind ("" : nothing particular is expected)."""
        return not kind or kind in self.observable()

    def target_list(self) -> list[str]:
        if self.targets_setting:
            return list(getattr(settings, self.targets_setting))
        return list(self.targets)

    def applies_to(self, language: str, uses_triton: bool) -> bool:
        return language in self.languages and (uses_triton or not self.needs_triton)

    def queue_for(self, target: str) -> str:
        return self.queue.format(target=target)

    def per_target_queues(self) -> bool:
        return "{target}" in self.queue


@dataclass
class RunSpec:
    script: str
    language: str
    arch: str
    timeout_s: float
    # a per-version environment (kernels_ci.environments): its directory goes first on the
    # reproducer's import path, bound read-only into the sandbox
    environment: str = ""
    image: str = ""  # the container image of the run's ROCm series (rocm-container)


@dataclass
class Execution:
    observation: Observation
    result: SandboxResult
    assembly: str = ""
    note: str = ""


def limits_for(spec: RunSpec) -> Limits:
    return Limits(
        timeout_s=spec.timeout_s,
        cpu_s=int(spec.timeout_s * 2) + 30,
        memory_bytes=settings.KERNELS_CI_MEMORY_BYTES,
        nproc=settings.KERNELS_CI_NPROC,
        output_bytes=settings.KERNELS_CI_OUTPUT_BYTES,
        disk_bytes=settings.KERNELS_CI_DISK_BYTES,
    )


def run_confined(argv: list[str], **options) -> SandboxResult | Execution:
    """sandbox_run in namespaces; an infra Execution when the sandbox refuses (nothing ran)."""
    try:
        return sandbox_run(argv, namespaces=True, **options)
    except SandboxUnavailable as exc:
        return refused(str(exc))


def launch_on_cpu(
    spec: RunSpec,
    *,
    name: str,
    args: tuple[str, ...],
    env: dict[str, str],
    collect: tuple[str, ...],
    keep_interpret: bool = True,
) -> Execution:
    """Run the reproducer, its GPU devices rewritten to cpu (kernels_ci.rewrites; a compiler
    passes `keep_interpret=False`), under launchers/`name` (with `args`) confined: its
    observation, the launches counted and the rewrites noted (or the infra Execution of a
    refused sandbox)."""
    script, rewrites = rewrite_for_cpu(spec.script, keep_interpret=keep_interpret)
    env, binds = environment_options(spec, env)
    result = run_confined(
        [sys.executable, "-s", "launch.py", *args, EXTRA_MISSING],
        files={"repro.py": script, "launch.py": launcher(name)},
        limits=limits_for(spec),
        env=env,
        python_guard=True,
        collect=collect,
        binds=binds,
    )
    if isinstance(result, Execution):
        return result
    observation = observe(result)
    observation.launches = launches_of(result)
    return Execution(observation=observation, result=result, note="; ".join(rewrites))


def refused(reason: str) -> Execution:
    result = SandboxResult(returncode=None, isolation=f"refused: {reason}"[:255])
    observation = Observation(
        "infra", signature="infra: sandbox unavailable", message=f"not run: {reason}"[:500]
    )
    return Execution(observation=observation, result=result)


def environment_options(spec: RunSpec, env: dict[str, str]) -> tuple[dict[str, str], tuple]:
    """The sandbox's environment and extra binds for the run's per-version environment: its
    directory first on the import path (before the runner's own packages), bound read-only."""
    if not spec.environment:
        return env, ()
    return {**env, "PYTHONPATH": spec.environment}, (spec.environment,)


def launches_of(result: SandboxResult) -> int | None:
    """The kernel launches a launcher counted (out/launches), None when it wrote nothing (the
    script ended the process before the launcher could)."""
    text = result.files.get("out/launches", "").strip()
    return int(text) if text.isdigit() else None


def launcher(name: str) -> str:
    return (LAUNCHERS / name).read_text(encoding="utf-8")
