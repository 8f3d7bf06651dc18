"""Celery tasks of kernels_ci: thin, they take ids and call one service."""

from __future__ import annotations

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from kernels_ci.models import ReproRun
from kernels_ci.services import cases, runners, runs, verification

# One attempt is N executions of at most KERNELS_CI_RUN_TIMEOUT_S each, plus start-up.
ATTEMPT_SOFT_LIMIT_S = settings.KERNELS_CI_RUNS_PER_ATTEMPT * (
    settings.KERNELS_CI_RUN_TIMEOUT_S + 30
)
ATTEMPT_HARD_LIMIT_S = int(ATTEMPT_SOFT_LIMIT_S * 1.2)


@shared_task(name="kernels_ci.tasks.cases_refresh", acks_late=True)
def cases_refresh(ids: list[int]) -> dict:
    report = cases.cases_refresh(issue_ids=ids)
    return {"cases": report.cases, "approved": report.approved, "runs": report.queued_runs}


@shared_task(
    bind=True,
    name="kernels_ci.tasks.run_execute",
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=ATTEMPT_SOFT_LIMIT_S,
    time_limit=ATTEMPT_HARD_LIMIT_S,
)
def run_execute(self, run_id: int) -> str:
    try:
        run = runs.run_execute(run_id=run_id, runner_name=self.request.hostname or "")
    except SoftTimeLimitExceeded:
        run = ReproRun.objects.get(id=run_id)
        runs.run_finish(
            run=run,
            outcome=ReproRun.Outcome.INFRA_ERROR,
            detail=f"the attempt exceeded its soft time limit ({ATTEMPT_SOFT_LIMIT_S} s)",
        )
        return "soft time limit"
    return run.outcome or run.status if run is not None else "already claimed"


@shared_task(name="kernels_ci.tasks.runners_check", acks_late=True)
def runners_check() -> dict:
    return {
        "stale_runners": runners.runners_mark_stale(),
        "lost_runs": runs.runs_mark_lost(older_than_s=ATTEMPT_HARD_LIMIT_S + 300),
    }


@shared_task(name="kernels_ci.tasks.verification_nightly", acks_late=True)
def verification_nightly() -> int:
    return len(verification.verification_nightly())


@shared_task(name="kernels_ci.tasks.verification_request", acks_late=True)
def verification_request(ids: list[int]) -> int:
    """For releases: a fix was linked to these issues, or a release candidate was tagged."""
    return len(verification.verification_request(issue_ids=ids))
