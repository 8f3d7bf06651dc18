"""Repro runs: queue (row first, then dispatch by id), claim, execute in a backend, record.

One run is one attempt of a case on one target with one backend and one version set: N
executions of the approved script, classified into one outcome against what the report expects
(kernels_ci.outcomes). Where the backend can pin a package (Triton) and the reporter named a
release of it (or a maintainer did: `/repro triton=3.1.0`), an attempt runs on that release as
well as on the runner's own, current one; when the two disagree a bisection over the releases
between them follows (services.bisection). Only attempts on the current versions count for fix
verification.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from config import linear_re, session_locks, wiring
from kernels_ci import environments
from kernels_ci.backends import (
    UnknownBackend,
    backend_get,
    comparison_backends,
    describe,
    descriptions,
    registry,
    unobservable_hint,
)
from kernels_ci.backends.base import RunSpec
from kernels_ci.expectations import ExpectedError
from kernels_ci.models import ReproCase, ReproRun, Runner
from kernels_ci.outcomes import Expectation, classify
from kernels_ci.services.comments import comments_enabled_for

logger = logging.getLogger(__name__)

EXECUTION_MARGIN_S = 30  # per execution: interpreter start-up, imports, a container's start
ATTEMPT_MARGIN_S = 60  # per attempt: claiming, recording, the sandbox's own start
HARD_LIMIT_FACTOR = 1.2
# Its tasks, by name: kernels_ci.tasks calls this module, so this one loads them when it sends.
RUN_EXECUTE_TASK = "kernels_ci.tasks.run_execute"
RUN_COMMENT_TASK = "kernels_ci.tasks.run_comment"
ANSI_RE = linear_re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
LOG_BYTES = 48 * 1024
ASSEMBLY_BYTES = 256 * 1024


class RunRequestError(ValueError):
    pass


class NotApproved(RunRequestError):
    pass


def queue_for(*, backend: str, arch: str) -> str:
    return describe(backend).queue_for(arch)


def attempt_time_limits(*, runs: int, timeout_s: float) -> tuple[int, int]:
    """(soft, hard) Celery time limits of one attempt of `runs` executions of `timeout_s` each."""
    soft = int(runs * (timeout_s + EXECUTION_MARGIN_S) + ATTEMPT_MARGIN_S)
    return soft, int(soft * HARD_LIMIT_FACTOR + 0.999)


def _targets(case: ReproCase, backend: str, archs: list[str] | None) -> list[str]:
    """The targets asked for, else the reporter's GPUs for a backend of AMD targets, else the
    backend's default ones; each must be one the backend lists."""
    description = describe(backend)
    allowed = description.target_list()
    wanted = archs or (case.archs if description.vendor == "amd" else [])
    wanted = wanted or list(description.default_targets) or allowed[:1]
    unknown = [arch for arch in wanted if arch not in allowed]
    if unknown:
        where = [d.name for d in descriptions() if set(unknown) <= set(d.target_list())]
        hint = f", or choose {' or '.join(where)}" if where else ""
        if len(allowed) == 1 and description.vendor == "cpu":
            raise RunRequestError(
                f"{backend} runs on the CPU only, not on {', '.join(unknown)}: drop the "
                f"target{hint}"
            )
        raise RunRequestError(
            f"{backend} cannot target {', '.join(unknown)}: use {', '.join(allowed)}{hint}"
        )
    if not wanted:
        raise RunRequestError(f"{backend} has no target here (its settings name none)")
    return list(dict.fromkeys(wanted))


def reporter_versions(case: ReproCase, backend: str = "") -> dict[str, str]:
    """The versions an attempt also runs on: a maintainer's /repro pins, else the reporter's
    (from the environment extraction), as release numbers (ROCm: its series) of what the
    backend (the case's by default) can pin."""
    reported = {
        "triton": environments.release(case.environment.get("triton_version", "")),
        "rocm": environments.series(case.environment.get("rocm_version", "")),
    }
    pinned = {
        package: environments.package_release(package, version)
        for package, version in (case.pinned_versions or {}).items()
    }
    backend = backend or case.backend
    pinnable = describe(backend).pins if backend in registry() else ()
    return {k: v for k, v in {**reported, **pinned}.items() if k in pinnable and v}


def _current_versions(queue: str) -> dict[str, str]:
    """What the healthy runners of a queue run on (their own versions), when they agree ({}
    when none has registered, or they differ)."""
    seen = {
        tuple(sorted((runner.versions or {}).items()))
        for runner in Runner.objects.filter(healthy=True)
        if queue in (runner.queues or [])
    }
    return dict(seen.pop()) if len(seen) == 1 else {}


def _own_versions() -> dict[str, str]:
    rocm = environments.series(environments.runner_rocm_version())
    return {**environments.installed_versions(), **({"rocm": rocm} if rocm else {})}


def version_plans(case: ReproCase, backend: str, queue: str) -> list[dict]:
    """The version sets of a new attempt: the current ones ({}), and the reporter's where the
    backend can pin them and they are not what the queue's runners have."""
    wanted = reporter_versions(case, backend)
    current = _current_versions(queue) or _own_versions()  # no runner registered: this machine's
    wanted = {
        k: v for k, v in wanted.items() if environments.package_release(k, current.get(k, "")) != v
    }
    return [{}, wanted] if wanted else [{}]


def _dispatch(run: ReproRun) -> None:
    """By id to the run's queue, with the time limits of this attempt (not one fixed at import)."""
    wiring.load(RUN_EXECUTE_TASK).apply_async(
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
    versions: dict | None = None,
    bisection=None,
    reported_versions: bool = True,
) -> list[ReproRun]:
    """Create one queued run per target and version set, then dispatch each by id on commit.

    `versions`: None runs on the current versions and, for a first look (purpose repro), on the
    reporter's too (version_plans; not with `reported_versions=False`); a dict runs on exactly
    those ({}: the current ones).
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
        description = describe(backend)
    except UnknownBackend as exc:
        raise RunRequestError(str(exc)) from exc
    if not description.applies_to(case.language, case.uses_triton):
        raise RunRequestError(f"{backend} cannot run a {case.get_language_display()} reproducer")
    if versions is not None and set(versions) - set(description.pins):
        raise RunRequestError(
            f"{backend} cannot run other versions of {', '.join(sorted(versions))}"
        )
    created = []
    comparisons = []
    if purpose == ReproRun.Purpose.REPRO and versions is None and not description.executes:
        kind = expectation_of(case).kind
        comparisons = [
            d
            for d in comparison_backends(case.language, case.uses_triton, kind)
            if d.vendor != description.vendor
        ]
    with transaction.atomic():
        ReproCase.objects.select_for_update().filter(pk=case.pk).first()
        for other in comparisons:  # is it AMD's alone? (services description: case_scope)
            for arch in other.default_targets or other.target_list()[:1]:
                created.append(_queued(case, other, arch, {}, purpose, None))
        for arch in _targets(case, backend, archs):
            queue = description.queue_for(arch)
            plans = [versions] if versions is not None else [{}]
            if versions is None and purpose == ReproRun.Purpose.REPRO and reported_versions:
                plans = version_plans(case, backend, queue)
            for plan in plans:
                created.append(_queued(case, description, arch, plan, purpose, bisection, runs))
        if dispatch:
            for run in created:
                transaction.on_commit(lambda run=run: _dispatch(run))
    return created


def _queued(case, description, arch, versions, purpose, bisection, runs=None):
    """One queued run of `runs` executions (else the backend's, the case's or the default
    number); the caller holds the case's row lock, so attempt numbers do not collide."""
    last = ReproRun.objects.filter(case=case, arch=arch, backend=description.name).aggregate(
        n=Max("attempt")
    )["n"]
    count = runs or description.runs_per_attempt or case.runs_per_attempt
    count = max(1, min(count or settings.KERNELS_CI_RUNS_PER_ATTEMPT, 50))
    soft, hard = attempt_time_limits(runs=count, timeout_s=run_timeout_s(case))
    return ReproRun.objects.create(
        case=case,
        arch=arch,
        backend=description.name,
        attempt=(last or 0) + 1,
        purpose=purpose,
        queue=description.queue_for(arch),
        script_sha256=case.approved_sha256,
        runs_requested=count,
        soft_time_limit_s=soft,
        time_limit_s=hard,
        versions=versions,
        bisection=bisection,
    )


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
    if run.versions:
        lines.append("pinned: " + ", ".join(f"{k} {v}" for k, v in sorted(run.versions.items())))
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


def run_execute(*, run_id: int, runner_name: str = "", dispatch: bool = True) -> ReproRun | None:
    """Claim the run, execute it N times in its backend's sandbox, record the outcome; then the
    attempts that follow from it (the next verification pass, a bisection's next step) are
    queued, and dispatched unless `dispatch` is False (run_repro runs them in-process).

    Returns None when the run was already claimed (a redelivered task): nothing runs twice.
    The run's session lock is held while it executes (config/session_locks.py): a task
    redelivered after its worker died finds the lock free and takes the run over; one that
    finds it held leaves the run to the live worker that holds it.
    """
    with session_locks.held("repro-run", run_id) as lock:
        if lock is False:
            logger.info("repro run %s is being run by a live worker: nothing to do", run_id)
            return None
        return _run_execute(
            run_id=run_id, runner_name=runner_name, takeover=bool(lock), dispatch=dispatch
        )


def _run_execute(*, run_id: int, runner_name: str, takeover: bool, dispatch: bool):
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
    try:
        pinnable = describe(run.backend).pins
        with environments.environment_in_use(run.versions, pinnable=pinnable) as environment:
            run = _execute_on(run, case, module, environment, started, taken_over)
    except environments.EnvironmentUnavailable as exc:
        asked = ", ".join(f"{k} {v}" for k, v in sorted(run.versions.items()))
        run = run_finish(
            run=run,
            outcome=ReproRun.Outcome.INFRA_ERROR,
            detail=f"the versions asked for ({asked}) cannot run here: {exc}",
            started=started,
            log=f"environment {asked}: {exc}",
            ran_versions=run.versions,
        )
    for dotted in wiring.AFTER_RUN_EXECUTED:  # the next attempt or step, if any
        wiring.load(dotted)(run=run, dispatch=dispatch)
    return run


def expectation_of(
    case: ReproCase, *, backend: str = "", versions: dict | None = None
) -> Expectation:
    """What an attempt of the case is judged against: the reported symptom and quoted error."""
    return Expectation(
        symptom=case.symptom,
        detail=case.symptom_detail,
        error=ExpectedError.from_dict(case.expected_error),
        reported_versions=reporter_versions(case, backend),
        versions=versions or {},
        chosen=tuple(case.pinned_versions or {}),  # /repro triton=..., run_repro --triton
    )


def _environment_problem(run: ReproRun, module, environment) -> str:
    """Why a per-version environment cannot judge the run ('' when it can): its check kernel,
    run by the run's backend on the backend's usual target (the run's own may be what the
    report is about: a target a release does not know)."""
    description = describe(run.backend)
    target = (description.default_targets or description.target_list() or [run.arch])[0]

    def check(script: str) -> str:
        seen = module.execute(RunSpec(script, "python", target, 120, environment.path))
        obs = seen.observation
        if obs.kind == "pass" and (obs.launches or 0) > 0:
            return ""
        return f"{obs.kind} ({obs.signature or obs.message or 'no kernel ran'})"

    toolchain = getattr(module, "toolchain", None)  # what the backend uses outside the release
    found, advice = toolchain() if toolchain else ("", "")
    return environments.canary_problem(
        environment, run.backend, target, check, toolchain=found, advice=advice
    )


def _execute_on(run, case, module, environment, started, taken_over) -> ReproRun:
    spec = RunSpec(
        script=case.script,
        language=case.language,
        arch=run.arch,
        timeout_s=run_timeout_s(case),
        environment=environment.path,
        image=environment.image,
    )
    notes = list(taken_over)
    if environment.path:
        if environment.built_s is not None:
            notes.append(f"environment {environment.key} built in {environment.built_s:.1f} s")
        problem = _environment_problem(run, module, environment)
        if problem:
            return run_finish(
                run=run,
                outcome=ReproRun.Outcome.INFRA_ERROR,
                detail=problem,
                started=started,
                log="\n".join([*notes, problem]),
                ran_versions=environment.versions,
            )
    executions = [module.execute(spec) for _ in range(run.runs_requested)]
    expectation = expectation_of(case, backend=run.backend, versions=environment.versions)
    unobservable = ""
    if not describe(run.backend).can_observe(expectation.kind):
        unobservable = unobservable_hint(
            run.backend, expectation.kind, case.language, case.uses_triton
        )
    verdict = classify(
        [e.observation for e in executions], expectation=expectation, unobservable=unobservable
    )
    notes += sorted({e.note for e in executions if e.note})
    assembly = next((e.assembly for e in executions if e.assembly), "")
    return run_finish(
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
        ran_versions=environment.versions,
    )


def run_finished(*, run: ReproRun) -> None:
    """After a run ends (in its worker, or marked lost): the GitHub comment, where it is on."""
    if comments_enabled_for(run.case.issue.repository.full_name):
        task = wiring.load(RUN_COMMENT_TASK)
        transaction.on_commit(lambda: task.delay(run.pk))


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
