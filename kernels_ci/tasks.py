"""Celery tasks of kernels_ci: thin, they take ids and call one service.

run_execute goes to the queue its run names (repro.cpu, repro.<gfx>), with the soft and hard time
limits of that attempt (services.runs._dispatch). cases_refresh (reading reproducers out of
issues: per-issue work) goes to `classify`, beside the models, never on the `ingest` queue that
processes webhook deliveries. Everything else here coordinates and is routed to `ingest`
(settings.CELERY_TASK_ROUTES), never behind long runs on a repro queue.
"""

from __future__ import annotations

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from config.task_retries import RETRY_ON_OUTAGE
from kernels_ci.models import ReproRun
from kernels_ci.services import cases, comments, runners, runs, verification
from triage.sources.github.client import RateLimited, TransientGitHubError


@shared_task(**RETRY_ON_OUTAGE, name="kernels_ci.tasks.cases_refresh", acks_late=True)
def cases_refresh(ids: list[int]) -> dict:
    report = cases.cases_refresh(issue_ids=ids)
    return {"cases": report.cases, "approved": report.approved, "runs": report.queued_runs}


@shared_task(
    bind=True, name="kernels_ci.tasks.run_execute", acks_late=True, reject_on_worker_lost=True
)
def run_execute(self, run_id: int) -> str:
    try:
        run = runs.run_execute(run_id=run_id, runner_name=self.request.hostname or "")
    except SoftTimeLimitExceeded:
        run = ReproRun.objects.get(id=run_id)
        runs.run_finish(
            run=run,
            outcome=ReproRun.Outcome.INFRA_ERROR,
            detail=f"the attempt exceeded its soft time limit ({run.soft_time_limit_s} s)",
        )
        return "soft time limit"
    return run.outcome or run.status if run is not None else "already claimed"


@shared_task(bind=True, name="kernels_ci.tasks.run_comment", acks_late=True, max_retries=5)
def run_comment(self, run_id: int) -> str:
    try:
        return comments.run_comment_post(run_id=run_id)
    except RateLimited as exc:
        raise self.retry(exc=exc, countdown=exc.seconds_to_wait()) from exc
    except TransientGitHubError as exc:
        raise self.retry(exc=exc, countdown=60 * (self.request.retries + 1)) from exc


@shared_task(name="kernels_ci.tasks.runners_check", acks_late=True)
def runners_check() -> dict:
    return {
        "stale_runners": runners.runners_mark_stale(),
        "lost_runs": runs.runs_mark_lost(),
    }


@shared_task(name="kernels_ci.tasks.verification_nightly", acks_late=True)
def verification_nightly() -> int:
    return len(verification.verification_nightly())


@shared_task(name="kernels_ci.tasks.verification_request", acks_late=True)
def verification_request(issue_id: int, reason: str) -> list[int]:
    """For releases: a fix was linked to this issue, or a release candidate was tagged. Re-runs
    its case on every (arch, backend) where the approved script reproduced; returns run ids."""
    queued = verification.verification_request(issue_ids=[issue_id], reason=reason)
    return [run.pk for run in queued]
