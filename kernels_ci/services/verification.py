"""Fix verification: a case that reproduced on an architecture is verified fixed there after
KERNELS_CI_VERIFY_PASSES consecutive passing attempts: not reproduced, which means the kernel ran
and the reported failure did not appear. An attempt that failed differently, failed with nothing
to compare, failed because of the environment, could not run or hit the infrastructure neither
counts nor breaks the streak; a reproduced or flaky attempt resets it. Only attempts on the
runner's own (current) versions count: an attempt pinned to the reporter's release or a
bisection step says nothing about whether the current release is fixed.

Per (arch, backend) and per script: only the runs of one approved script (its sha256) count, so
passes of an edited, re-approved script never turn the old script's failures into "fixed".
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings

from kernels_ci.models import ReproCase, ReproRun
from triage.models import Issue

logger = logging.getLogger(__name__)

FAILING = {ReproRun.Outcome.REPRODUCED, ReproRun.Outcome.FLAKY}
NEUTRAL = {
    ReproRun.Outcome.INFRA_ERROR,
    ReproRun.Outcome.INVALID,
    ReproRun.Outcome.ENVIRONMENT_MISMATCH,
    ReproRun.Outcome.FAILED_DIFFERENTLY,
    ReproRun.Outcome.FAILED,
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


def _pending(case: ReproCase, arch: str, backend: str) -> bool:
    return ReproRun.objects.filter(
        case=case,
        arch=arch,
        backend=backend,
        status__in=[ReproRun.Status.QUEUED, ReproRun.Status.RUNNING],
    ).exists()


def verification_request(
    *, issue_ids: list[int], purpose: str = "verify", reason: str = ""
) -> list[ReproRun]:
    """Re-run each case where its approved script reproduced (a fix was linked, an RC was tagged,
    nightly); `reason` shows on the queued runs."""
    from kernels_ci.services.runs import RunRequestError, runs_queue

    queued = []
    cases = ReproCase.objects.filter(issue_id__in=issue_ids).prefetch_related("runs")
    for case in cases:
        if not case.is_approved:
            logger.info("case %s is not approved for its current script: no verification", case.pk)
            continue
        states = verification_of_runs(list(case.runs.all()), script_sha256=case.approved_sha256)
        for item in states.values():
            if item.state in ("never_reproduced", "verified_fixed") and purpose != "nightly":
                continue
            if item.state == "never_reproduced" or _pending(case, item.arch, item.backend):
                continue
            try:
                runs = runs_queue(
                    case=case, archs=[item.arch], backend=item.backend, purpose=purpose
                )
            except RunRequestError as exc:
                logger.warning("case %s: cannot verify on %s: %s", case.pk, item.arch, exc)
                continue
            if reason:
                ReproRun.objects.filter(pk__in=[r.pk for r in runs]).update(
                    detail=f"queued: {reason}"[:500]
                )
            queued += runs
    return queued


def verification_continue(*, run: ReproRun, dispatch: bool = True) -> list[ReproRun]:
    """After a passing verification attempt, the next one, until the streak is long enough."""
    if run.purpose not in (ReproRun.Purpose.VERIFY, ReproRun.Purpose.NIGHTLY):
        return []
    if run.outcome != ReproRun.Outcome.NOT_REPRODUCED:
        return []
    states = verification_of_runs(list(run.case.runs.all()), script_sha256=run.script_sha256)
    state = states.get((run.arch, run.backend))
    if state is None or state.state != "verifying" or _pending(run.case, run.arch, run.backend):
        return []
    from kernels_ci.services.runs import RunRequestError, runs_queue

    try:
        return runs_queue(
            case=run.case,
            archs=[run.arch],
            backend=run.backend,
            purpose=ReproRun.Purpose.VERIFY,
            dispatch=dispatch,
        )
    except RunRequestError:
        return []


def verification_nightly() -> list[ReproRun]:
    """Open issues whose case reproduced somewhere: catch silent fixes and regressions."""
    issue_ids = (
        ReproCase.objects.filter(
            issue__state=Issue.State.OPEN,
            issue__deleted_at__isnull=True,
            runs__outcome__in=list(FAILING),
        )
        .values_list("issue_id", flat=True)
        .distinct()
    )
    return verification_request(issue_ids=list(issue_ids), purpose=ReproRun.Purpose.NIGHTLY)
