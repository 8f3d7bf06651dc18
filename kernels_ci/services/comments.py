"""The optional comment back on GitHub with an attempt's result (off by default).

settings.KERNELS_CI_GITHUB_COMMENT: empty (off), "*" (every repository) or a list of OWNER/NAME.
The switch that stops every write to GitHub (automation.outbox.services.writes_stopped) stops
it too.
One comment per finished attempt, claimed with a conditional update so a redelivered task never
posts twice. Not posted: infra errors (our runner failed, nothing about the reporter's bug) and
nightly re-runs whose outcome is the same as the attempt before (only a silent fix or a
regression is news). The text holds the outcome, counts and the signature in a code span: never
the log, which is the reproducer's own output.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from automation.outbox import services as outbox
from kernels_ci.expectations import ExpectedError
from kernels_ci.models import Bisection, ReproRun
from kernels_ci.selectors import case_scope
from kernels_ci.verification import verification_of_runs
from triage.models import RepositoryFormerName
from triage.sources.github.client import (
    GitHubError,
    RateLimited,
    TransientGitHubError,
    issue_comment_create,
)

logger = logging.getLogger(__name__)


def comments_enabled_for(full_name: str) -> bool:
    """Names in any case, as GitHub compares them; a repository renamed on GitHub is still
    the one listed under its old name."""
    wanted = {name.strip().lower() for name in settings.KERNELS_CI_GITHUB_COMMENT}
    if not wanted or "*" in wanted or full_name.lower() in wanted:
        return bool(wanted)
    former = RepositoryFormerName.objects.filter(repository__full_name__iexact=full_name)
    return any(name.lower() in wanted for name in former.values_list("full_name", flat=True))


def _code(text: str) -> str:
    return "`" + " ".join(text.replace("`", "'").split())[:300] + "`"


def run_comment_body(run: ReproRun) -> str:
    case = run.case
    on = f" on {_code(run.versions_shown)}" if run.ran_versions else ""
    lines = [
        f"**Kernel reproduction**: attempt {run.attempt} with `{run.backend}` on `{run.arch}`"
        + (
            f" ({run.get_purpose_display().lower()})"
            if run.purpose != ReproRun.Purpose.REPRO
            else ""
        )
        + on
        + f": **{run.get_outcome_display().lower()}**",
        "",
        f"{run.symptom_runs} of {run.runs_requested} executions showed the reported failure "
        f"({case.symptom_shown})" + (f"; {run.duration_s:.0f} s" if run.duration_s else "") + ".",
    ]
    if run.signature:
        lines.append(f"Signature: {_code(run.signature)}")
    expected = ExpectedError.from_dict(case.expected_error)
    if expected is not None and run.outcome == ReproRun.Outcome.FAILED_DIFFERENTLY:
        lines.append(f"The report quotes {_code(expected.signature)}.")
    if run.bisection_id and run.bisection.status != Bisection.Status.RUNNING:
        lines.append(f"Bisection over {run.bisection.package} releases: {run.bisection.result}.")
    scope = case_scope(case)
    if scope is not None and scope.amd_specific is not None:
        lines.append(f"Where it fails: {scope.text}.")
    until_now = [  # as of this attempt, however late the comment goes out
        r
        for r in case.runs.all()
        if (r.arch, r.backend) != (run.arch, run.backend) or r.attempt <= run.attempt
    ]
    same = verification_of_runs(until_now, script_sha256=run.script_sha256)
    state = same.get((run.arch, run.backend))
    if state is not None and state.state in ("verifying", "verified_fixed"):
        lines.append(
            f"Fix verification on {run.arch}: {state.state.replace('_', ' ')} "
            f"({state.consecutive_passes}/{state.required} passing attempts)."
        )
    lines.append(
        f"Script sha256 {_code(run.script_sha256[:16])}, approved by "
        f"{_code(case.approved_by_login or 'a maintainer')}."
    )
    return "\n".join(lines)


def _newsworthy(run: ReproRun) -> bool:
    if run.status != ReproRun.Status.DONE or run.outcome in (
        ReproRun.Outcome.INFRA_ERROR,
        ReproRun.Outcome.CANNOT_OBSERVE,  # it judged nothing: nothing to tell the reporter
    ):
        return False
    if run.purpose == ReproRun.Purpose.BISECT:  # one comment, with the bisection's answer
        bisection = run.bisection
        if bisection is None or bisection.status == Bisection.Status.RUNNING:
            return False
        return not bisection.runs.filter(pk__gt=run.pk).exists()
    if run.purpose != ReproRun.Purpose.NIGHTLY:
        return True
    before = (
        ReproRun.objects.filter(
            case=run.case,
            arch=run.arch,
            backend=run.backend,
            status=ReproRun.Status.DONE,
            attempt__lt=run.attempt,
        )
        .exclude(outcome=ReproRun.Outcome.INFRA_ERROR)
        .order_by("-attempt")
        .values_list("outcome", flat=True)
        .first()
    )
    return before != run.outcome


def run_comment_post(*, run_id: int) -> str:
    """Post the run's result on its issue once; returns the comment's URL, or '' (why: logged).

    A transient GitHub failure (5xx, rate limit) releases the claim and raises, so the task
    retries; a refusal (4xx) is logged and not retried.
    """
    run = ReproRun.objects.select_related("case__issue__repository").get(id=run_id)
    repository = run.case.issue.repository.full_name
    if not run.case.issue.repository.on_github:  # its issue is on another tracker
        return ""
    if not comments_enabled_for(repository) or not _newsworthy(run):
        return ""
    stopped = outbox.writes_stopped()
    if stopped:  # the one switch stops this write too
        logger.warning("repro run %s: no comment: %s", run.pk, stopped)
        return ""
    claimed = ReproRun.objects.filter(id=run.pk, commented_at__isnull=True).update(
        commented_at=timezone.now()
    )
    if not claimed:
        return ""
    try:
        posted = issue_comment_create(
            full_name=repository, number=run.case.issue.number, body=run_comment_body(run)
        )
    except (TransientGitHubError, RateLimited):
        ReproRun.objects.filter(id=run.pk).update(commented_at=None)
        raise
    except GitHubError as exc:
        logger.warning("repro run %s: GitHub refused the comment: %s", run.pk, exc)
        return ""
    url = posted.get("html_url") or ""
    with transaction.atomic():
        ReproRun.objects.filter(id=run.pk).update(comment_url=url[:500])
    return url
