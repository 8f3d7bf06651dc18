"""Bisections: started when an attempt on the reporter's versions and one on the current ones
disagree, continued after each of their steps, concluded on the case (kernels_ci.bisection
decides; this module reads runs, writes the Bisection row and queues each step's attempt).

A step is an ordinary attempt (same backend, target, script, runs per attempt and verdict
rules) pinned to one release, purpose "bisect": of Triton for the Triton backends, from the
package index the runner uses (published, not yanked, no pre-releases); of ROCm for a GPU
runner, over the series it has an image of (kernels_ci.environments.releases). The package is
the first the backend can pin.
"""

from __future__ import annotations

import logging

from django.db import IntegrityError, transaction
from django.utils import timezone
from packaging.version import Version

from kernels_ci import environments
from kernels_ci.backends import describe
from kernels_ci.bisection import BAD, GOOD, bisect_step, max_steps, verdict_of
from kernels_ci.models import Bisection, ReproRun
from kernels_ci.services.runs import RunRequestError, run_finished, runs_queue

logger = logging.getLogger(__name__)


def _package(backend: str) -> str:
    pins = describe(backend).pins
    return pins[0] if pins else ""


def _pair(run: ReproRun) -> tuple[ReproRun, ReproRun] | None:
    """The latest finished attempts on the current versions and on pinned ones (the reporter's)
    of the run's case, target, backend and script, when both ended and disagree."""
    runs = ReproRun.objects.filter(
        case_id=run.case_id,
        arch=run.arch,
        backend=run.backend,
        script_sha256=run.script_sha256,
        status=ReproRun.Status.DONE,
        bisection__isnull=True,
        purpose=ReproRun.Purpose.REPRO,
    ).order_by("-finished_at", "-id")
    package = _package(run.backend)
    current = next((r for r in runs if not r.versions), None)
    pinned = next((r for r in runs if r.versions.get(package)), None)
    if current is None or pinned is None:
        return None
    states = {verdict_of(current.outcome), verdict_of(pinned.outcome)}
    return (current, pinned) if states == {BAD, GOOD} else None


def _version(run: ReproRun, package: str) -> str:
    return environments.package_release(package, (run.ran_versions or {}).get(package, ""))


def bisection_start(*, run: ReproRun, dispatch: bool = True) -> Bisection | None:
    """A bisection between the disagreeing attempts of the run's case, if there are such and
    none was started for this script; its first step queued."""
    package = _package(run.backend)
    if not package:
        return None
    pair = _pair(run)
    if pair is None:
        return None
    ends = sorted(pair, key=lambda r: Version(_version(r, package) or "0"))
    older, newer = (_version(r, package) for r in ends)
    if not older or not newer or older == newer:
        return None
    try:
        published = environments.releases(package)
    except environments.EnvironmentUnavailable as exc:
        logger.warning("case %s: no bisection: %s", run.case_id, exc)
        return None
    between = [v for v in published if Version(older) < Version(v) < Version(newer)]
    releases = [older, *between, newer]
    verdicts = {older: verdict_of(ends[0].outcome), newer: verdict_of(ends[1].outcome)}
    direction = Bisection.Direction.FIXED if verdicts[older] == BAD else "regressed"
    try:
        with transaction.atomic():
            bisection = Bisection.objects.create(
                case_id=run.case_id,
                arch=run.arch,
                backend=run.backend,
                package=package,
                script_sha256=run.script_sha256,
                direction=direction,
                releases=releases,
                verdicts=verdicts,
                max_steps=max_steps(releases),
            )
    except IntegrityError:
        return None  # started already for this script (a redelivered task, a second pair)
    _advance(bisection, dispatch=dispatch)
    return bisection


def bisection_continue(*, run: ReproRun, dispatch: bool = True) -> list[ReproRun]:
    """After an attempt: record a step's verdict and take the next step, or start a
    bisection where the reporter's versions and the current ones disagree."""
    if run.status != ReproRun.Status.DONE:
        return []
    if run.bisection_id is None:
        if run.purpose == ReproRun.Purpose.REPRO:
            started = bisection_start(run=run, dispatch=dispatch)
            return list(started.runs.all()) if started else []
        return []
    with transaction.atomic():
        bisection = Bisection.objects.select_for_update().get(pk=run.bisection_id)
        if bisection.status != Bisection.Status.RUNNING:
            return []
        package = bisection.package
        pinned = run.versions.get(package, "")
        release = environments.package_release(package, pinned) or _version(run, package)
        verdicts = dict(bisection.verdicts)
        verdicts[release] = verdict_of(run.outcome)
        bisection.verdicts = verdicts
        bisection.steps += 1
        bisection.save(update_fields=["verdicts", "steps"])
        return _advance(bisection, dispatch=dispatch)


def _advance(bisection: Bisection, *, dispatch: bool) -> list[ReproRun]:
    step = bisect_step(
        releases=bisection.releases,
        verdicts=bisection.verdicts,
        direction=bisection.direction,
        steps=bisection.steps,
        package=bisection.package,
    )
    if step.done:
        bisection.status = Bisection.Status.DONE if step.decided else Bisection.Status.UNDECIDED
        bisection.result = step.result
        bisection.first_version = step.first
        bisection.finished_at = timezone.now()
        bisection.save(update_fields=["status", "result", "first_version", "finished_at"])
        last = bisection.runs.order_by("-pk").first()
        if last is not None:  # its comment (where comments are on) tells the answer
            run_finished(run=last)
        return []
    try:
        return runs_queue(
            case=bisection.case,
            archs=[bisection.arch],
            backend=bisection.backend,
            purpose=ReproRun.Purpose.BISECT,
            versions={bisection.package: step.next_release},
            bisection=bisection,
            dispatch=dispatch,
        )
    except RunRequestError as exc:  # the script changed since: its approval no longer holds
        bisection.status = Bisection.Status.UNDECIDED
        bisection.result = f"stopped: {exc}"
        bisection.finished_at = timezone.now()
        bisection.save(update_fields=["status", "result", "finished_at"])
        return []
