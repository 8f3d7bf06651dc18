"""Repro runs: queue (row first, then dispatch by id), claim, execute in a backend, record.

One run is one attempt of a case on one architecture with one backend: N executions of the
approved script, classified into one outcome.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from config import linear_re, session_locks
from kernels_ci.backends import UnknownBackend, backend_get
from kernels_ci.backends.base import RunSpec
from kernels_ci.models import ReproCase, ReproRun
from kernels_ci.outcomes import classify

logger = logging.getLogger(__name__)

CPU_BACKENDS = {"triton-interpreter", "triton-amd-compile"}
DEFAULT_COMPILE_ARCH = "gfx942"
COMPILE_RUNS = 1  # compiling is deterministic: one execution per attempt
EXECUTION_MARGIN_S = 30  # per execution: interpreter start-up, imports, a container's start
ATTEMPT_MARGIN_S = 60  # per attempt: claiming, recording, the sandbox's own start
HARD_LIMIT_FACTOR = 1.2
ANSI_RE = linear_re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
LOG_BYTES = 48 * 1024
ASSEMBLY_BYTES = 256 * 1024


class RunRequestError(ValueError):
    pass


class NotApproved(RunRequestError):
    pass


def queue_for(*, backend: str, arch: str) -> str:
    return "repro.cpu" if backend in CPU_BACKENDS else f"repro.{arch}"


def attempt_time_limits(*, runs: int, timeout_s: float) -> tuple[int, int]:
    """(soft, hard) Celery time limits of one attempt of `runs` executions of `timeout_s` each."""
    soft = int(runs * (timeout_s + EXECUTION_MARGIN_S) + ATTEMPT_MARGIN_S)
    return soft, int(soft * HARD_LIMIT_FACTOR + 0.999)


def _targets(case: ReproCase, backend: str, archs: list[str] | None) -> list[str]:
    if backend == "triton-interpreter":
        other = [arch for arch in archs or [] if arch != "cpu"]
        if other:
            raise RunRequestError(
                f"triton-interpreter runs on the CPU only, not on {', '.join(other)}: drop the "
                "architecture, or choose triton-amd-compile (compiles for it) or rocm-container"
            )
        return ["cpu"]
    wanted = archs or case.archs or [DEFAULT_COMPILE_ARCH]
    allowed = (
        set(backend_get(backend).archs())
        if backend == "triton-amd-compile"
        else set(settings.REPRO_ARCHITECTURES)
    )
    unknown = [arch for arch in wanted if arch not in allowed]
    if unknown:
        raise RunRequestError(
            f"{backend} cannot target {', '.join(unknown)}: use {', '.join(sorted(allowed))}"
        )
    return list(dict.fromkeys(wanted))


def _dispatch(run: ReproRun) -> None:
    """By id to the run's queue, with the time limits of this attempt (not one fixed at import)."""
    from kernels_ci import tasks

    tasks.run_execute.apply_async(
        kwargs={"run_id": run.pk},
        queue=run.queue,
        soft_time_limit=run.soft_time_limit_s,
        time_limit=run.time_limit_s,
    )


def runs_queue(
    *,
    case: ReproCase,
    archs: list[str] | None = None,
    backend: str | None = None,
    runs: int | None = None,
    purpose: str = ReproRun.Purpose.REPRO,
    dispatch: bool = True,
) -> list[ReproRun]:
    """Create one queued run per architecture, then dispatch each by id on commit.

    `dispatch=False` leaves the rows queued for the caller to execute in-process (run_repro).
    """
    if not case.is_approved:
        raise NotApproved(
            "the reproducer changed since it was approved: approve it again"
            if case.needs_reapproval
            else "the reproducer is not approved: a maintainer approves it first"
        )
    backend = backend or case.backend
    try:
        module = backend_get(backend)
    except UnknownBackend as exc:
        raise RunRequestError(str(exc)) from exc
    if not module.applies_to(case.language, case.uses_triton):
        raise RunRequestError(f"{backend} cannot run a {case.get_language_display()} reproducer")
    count = runs or case.runs_per_attempt or settings.KERNELS_CI_RUNS_PER_ATTEMPT
    if backend == "triton-amd-compile" and not runs:
        count = COMPILE_RUNS
    count = max(1, min(count, 50))
    soft, hard = attempt_time_limits(runs=count, timeout_s=run_timeout_s(case))
    created = []
    with transaction.atomic():
        ReproCase.objects.select_for_update().filter(pk=case.pk).first()
        for arch in _targets(case, backend, archs):
            last = ReproRun.objects.filter(case=case, arch=arch, backend=backend).aggregate(
                n=Max("attempt")
            )["n"]
            run = ReproRun.objects.create(
                case=case,
                arch=arch,
                backend=backend,
                attempt=(last or 0) + 1,
                purpose=purpose,
                queue=queue_for(backend=backend, arch=arch),
                script_sha256=case.approved_sha256,
                runs_requested=count,
                soft_time_limit_s=soft,
                time_limit_s=hard,
            )
            created.append(run)
            if dispatch:
                transaction.on_commit(lambda run=run: _dispatch(run))
    return created


def run_timeout_s(case: ReproCase) -> float:
    return float(case.timeout_s or settings.KERNELS_CI_RUN_TIMEOUT_S)


def run_claim(*, run_id: int, runner_name: str = "", takeover: bool = False) -> bool:
    """The one worker whose conditional update wins runs it; a redelivery finds it taken.

    With `takeover` (the caller holds the run's session lock, so whoever claimed it before is
    gone: its lock went with its connection), a run left `running` is claimed again.
    """
    statuses = [ReproRun.Status.QUEUED] + ([ReproRun.Status.RUNNING] if takeover else [])
    return (
        ReproRun.objects.filter(id=run_id, status__in=statuses).update(
            status=ReproRun.Status.RUNNING, claimed_at=timezone.now(), runner_name=runner_name
        )
        == 1
    )


def sanitize_log(text: str) -> str:
    return ANSI_RE.sub("", text)


def _bounded(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - limit} characters truncated ...]\n{text[-half:]}"


def _log(run: ReproRun, executions, notes: list[str]) -> str:
    lines = [f"backend {run.backend}, arch {run.arch}, attempt {run.attempt}"]
    if executions:
        lines.append(f"isolation: {executions[0].result.isolation or 'none'}")
    lines.extend(notes)
    per_run = max(1024, LOG_BYTES // max(1, len(executions)))
    for number, execution in enumerate(executions, start=1):
        obs = execution.observation
        lines.append(
            f"--- execution {number}: {obs.kind}"
            + (f" [{obs.signature}]" if obs.signature else "")
            + f" exit {obs.exit_code} in {obs.duration_s:.2f}s"
            + (
                f" (stopped by the sandbox's {execution.result.limit} limit)"
                if execution.result.limit
                else ""
            )
            + (" (output truncated)" if execution.result.truncated else "")
        )
        output = execution.result.output.strip()
        if output:
            lines.append(_bounded(output, per_run))
    return sanitize_log(_bounded("\n".join(lines), LOG_BYTES))


def run_finish(
    *, run: ReproRun, outcome: str, detail: str, started: float | None = None, **fields
) -> ReproRun:
    run.status = ReproRun.Status.DONE
    run.outcome = outcome
    run.detail = detail
    run.finished_at = timezone.now()
    if started is not None:
        run.duration_s = round(time.monotonic() - started, 3)
    for key, value in fields.items():
        setattr(run, key, value)
    run.save()
    run_finished(run=run)
    return run


def run_cancel(*, run: ReproRun, reason: str) -> ReproRun:
    run.status = ReproRun.Status.CANCELLED
    run.detail = reason
    run.finished_at = timezone.now()
    run.save(update_fields=["status", "detail", "finished_at"])
    return run


def run_execute(*, run_id: int, runner_name: str = "") -> ReproRun | None:
    """Claim the run, execute it N times in its backend's sandbox, record the outcome.

    Returns None when the run was already claimed (a redelivered task): nothing runs twice.
    The run's session lock is held while it executes (config/session_locks.py): a task
    redelivered after its worker died finds the lock free and takes the run over; one that
    finds it held leaves the run to the live worker that holds it.
    """
    with session_locks.held("repro-run", run_id) as lock:
        if lock is False:
            logger.info("repro run %s is being run by a live worker: nothing to do", run_id)
            return None
        return _run_execute(run_id=run_id, runner_name=runner_name, takeover=bool(lock))


def _run_execute(*, run_id: int, runner_name: str, takeover: bool) -> ReproRun | None:
    before = ReproRun.objects.filter(id=run_id).values_list("status", "runner_name").first()
    if not run_claim(run_id=run_id, runner_name=runner_name, takeover=takeover):
        logger.info("repro run %s already claimed or finished: nothing to do", run_id)
        return None
    taken_over = []
    if before and before[0] == ReproRun.Status.RUNNING:
        taken_over = [f"taken over from {before[1] or 'a runner'}, lost while running it"]
        logger.warning("repro run %s %s", run_id, taken_over[0])
    run = ReproRun.objects.select_related("case").get(id=run_id)
    case = run.case
    if not case.is_approved or run.script_sha256 != case.approved_sha256:
        return run_cancel(run=run, reason="the reproducer changed since approval: approve again")
    started = time.monotonic()
    module = backend_get(run.backend)
    unavailable = module.available()
    if unavailable:
        return run_finish(
            run=run,
            outcome=ReproRun.Outcome.INFRA_ERROR,
            detail=f"{run.backend} cannot run on this runner: {unavailable}",
            started=started,
            log=f"backend {run.backend} unavailable: {unavailable}",
        )
    spec = RunSpec(
        script=case.script, language=case.language, arch=run.arch, timeout_s=run_timeout_s(case)
    )
    executions = [module.execute(spec) for _ in range(run.runs_requested)]
    verdict = classify(
        [e.observation for e in executions], reported=case.symptom, detail=case.symptom_detail
    )
    notes = taken_over + sorted({e.note for e in executions if e.note})
    assembly = next((e.assembly for e in executions if e.assembly), "")
    run = run_finish(
        run=run,
        outcome=verdict.outcome,
        detail=verdict.detail,
        started=started,
        symptom_runs=verdict.symptom_runs,
        signature=verdict.signature,
        signature_hash=verdict.signature_hash,
        executions=[e.observation.as_dict() for e in executions],
        log=_log(run, executions, notes),
        assembly=_bounded(assembly, ASSEMBLY_BYTES),
        isolation=executions[0].result.isolation[:255] if executions else "",
    )
    from kernels_ci.services.verification import verification_continue

    verification_continue(run=run)
    return run


def run_finished(*, run: ReproRun) -> None:
    """After a run ends (in its worker, or marked lost): the GitHub comment, where it is on."""
    from kernels_ci.services.comments import comments_enabled_for

    if comments_enabled_for(run.case.issue.repository.full_name):
        from kernels_ci import tasks

        transaction.on_commit(lambda: tasks.run_comment.delay(run.pk))


def runs_mark_lost(*, grace_s: float = 300) -> int:
    """Runs left `running` by a worker that died (its redelivery is a no-op) end as infra errors,
    once each has been running for longer than its own hard time limit plus `grace_s`."""
    now = timezone.now()
    lost = 0
    running = ReproRun.objects.filter(status=ReproRun.Status.RUNNING, claimed_at__isnull=False)
    for run_id, claimed_at, limit in running.values_list("id", "claimed_at", "time_limit_s"):
        if limit == 0:  # queued before limits were stored: the default attempt
            limit = attempt_time_limits(
                runs=settings.KERNELS_CI_RUNS_PER_ATTEMPT,
                timeout_s=settings.KERNELS_CI_RUN_TIMEOUT_S,
            )[1]
        if claimed_at + timedelta(seconds=limit + grace_s) > now:
            continue
        # claimed_at too: a run taken over meanwhile (claimed again, by a live worker) is not lost
        lost += ReproRun.objects.filter(
            id=run_id, status=ReproRun.Status.RUNNING, claimed_at=claimed_at
        ).update(
            status=ReproRun.Status.DONE,
            outcome=ReproRun.Outcome.INFRA_ERROR,
            detail=f"the runner was lost while running it (no result {limit + grace_s:.0f} s "
            "after it started)",
            finished_at=now,
        )
    return lost
