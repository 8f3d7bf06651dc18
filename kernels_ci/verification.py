"""Fix verification's states, from a case's finished runs (kernels_ci/services/verification.py
queues the attempts; the selectors and the GitHub comments read these states).

A case that reproduced on an architecture is verified fixed there after
KERNELS_CI_VERIFY_PASSES consecutive passing attempts (not reproduced); an attempt that failed
differently, failed with nothing to compare, failed because of the environment, could not run,
hit the infrastructure or ran where the failure cannot show neither counts nor breaks the
streak; a reproduced or flaky attempt resets it. Only attempts on the runner's own (current)
versions, and of one approved script, count.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings

from kernels_ci.models import ReproRun

FAILING = {ReproRun.Outcome.REPRODUCED, ReproRun.Outcome.FLAKY}
NEUTRAL = {
    ReproRun.Outcome.INFRA_ERROR,
    ReproRun.Outcome.INVALID,
    ReproRun.Outcome.ENVIRONMENT_MISMATCH,
    ReproRun.Outcome.FAILED_DIFFERENTLY,
    ReproRun.Outcome.FAILED,
    ReproRun.Outcome.CANNOT_OBSERVE,
}


@dataclass
class ArchVerification:
    arch: str
    backend: str
    state: str  # never_reproduced | reproduces | verifying | verified_fixed
    consecutive_passes: int
    required: int
    last_outcome: str
    last_run_at: datetime | None

    @property
    def verified(self) -> bool:
        return self.state == "verified_fixed"


def verification_of_runs(
    runs: list[ReproRun], *, script_sha256: str
) -> dict[tuple[str, str], ArchVerification]:
    """Per (arch, backend), from the finished runs of the script with this sha256."""
    required = settings.KERNELS_CI_VERIFY_PASSES
    grouped: dict[tuple[str, str], list[ReproRun]] = {}
    for run in runs:
        current = not run.versions and run.bisection_id is None
        if run.status == ReproRun.Status.DONE and run.script_sha256 == script_sha256 and current:
            grouped.setdefault((run.arch, run.backend), []).append(run)
    result: dict[tuple[str, str], ArchVerification] = {}
    for (arch, backend), arch_runs in grouped.items():
        arch_runs.sort(key=lambda r: (r.finished_at or r.created_at, r.attempt))
        ever, streak, last = False, 0, ""
        for run in arch_runs:
            if run.outcome in NEUTRAL:
                continue
            last = run.outcome
            if run.outcome in FAILING:
                ever, streak = True, 0
            elif ever:
                streak += 1
        if not ever:
            state = "never_reproduced"
        elif streak >= required:
            state = "verified_fixed"
        elif streak:
            state = "verifying"
        else:
            state = "reproduces"
        result[(arch, backend)] = ArchVerification(
            arch=arch,
            backend=backend,
            state=state,
            consecutive_passes=streak,
            required=required,
            last_outcome=last or (arch_runs[-1].outcome if arch_runs else ""),
            last_run_at=arch_runs[-1].finished_at if arch_runs else None,
        )
    return result
