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

from kernels_ci.models import ReproCase, ReproRun
from kernels_ci.services.runs import RunRequestError, runs_queue
from kernels_ci.verification import FAILING, verification_of_runs
from triage.models import Issue

logger = logging.getLogger(__name__)


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
