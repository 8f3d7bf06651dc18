"""A worker killed with SIGKILL in the middle of its task: another worker finishes the work, and
the database holds every record once. Two workers consume the same queue; the one running the
task is killed (its whole process group, as the OOM killer or a lost machine would), and the
broker hands the unacknowledged task to the other after the visibility timeout."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest
from django.db.models import Count

from kernels_ci.models import ReproCase, ReproRun
from kernels_ci.services.cases import case_approve, case_refresh
from kernels_ci.services.runs import runs_queue
from tests.kernels_ci.factories import issue_body
from tests.processes import wait_for
from tests.reliability.conftest import (
    VISIBILITY_TIMEOUT_S,
    cmdline,
    descendants,
    processes_mentioning,
    record,
)
from triage.models import Comment, Issue, SyncState
from triage.services import tracking

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SYNC = "triage.tasks.sync_repository"
RUN = "kernels_ci.tasks.run_execute"


def test_a_sync_killed_mid_backfill_completes_on_another_worker_with_each_record_once(
    cluster, github
):
    repo = "ROCm/reliability-killed-sync"
    github.add_repo(repo)
    for n in range(1, 351):
        github.add_issue(repo, title=f"hipMemcpy returns hipErrorInvalidValue ({n})")
    for n in range(351, 356):
        github.add_pull(repo, title=f"Fix copy {n}", merged=True)
    for n in range(1, 121):
        github.add_comment(repo, n, body=f"Seen on gfx942 too ({n})")
    repository = tracking.repository_track(full_name=repo)
    issues_path = f"/repos/{repo}/issues"
    gate = github.gate(path_contains=issues_path, after_requests=2)  # GitHub slow on page 3

    workers = [cluster.worker("ingest"), cluster.worker("ingest")]
    cluster.start(*workers)
    cluster.send(SYNC, queue="ingest", repository_id=repository.pk)
    gate.wait_reached()
    issues_state = SyncState.objects.filter(repository=repository, resource="issues")
    wait_for(lambda: issues_state.filter(requests_used=2).exists())  # pages 1 and 2 committed
    victim = wait_for(lambda: cluster.running(SYNC, workers), message="no worker runs the sync")
    survivor = next(w for w in workers if w is not victim)
    watermark = issues_state.get().watermark

    victim.kill()
    killed = time.time()
    gate.release()  # the request of the dead worker is answered to no one
    wait_for(
        lambda: (
            SyncState.objects.filter(repository=repository, backfill_done=True).count()
            == len(SyncState.Resource)
        ),
        timeout=90,
        message="the sync was not finished by the other worker",
    )
    recovered = time.time() - killed

    issues = Issue.objects.filter(repository=repository)
    assert issues.count() == 355 and issues.filter(is_pull_request=True).count() == 5
    assert not issues.values("external_id").annotate(n=Count("id")).filter(n__gt=1).exists()
    comments = Comment.objects.filter(issue__repository=repository)
    assert comments.count() == 120
    assert not comments.values("external_id").annotate(n=Count("id")).filter(n__gt=1).exists()
    # the other worker went on from the watermark of the last committed page, not from scratch
    resumed = [r for r in github.requests_to(issues_path) if r["time"] > killed]
    assert resumed and all("since=" in r["query"] for r in resumed)
    stamp = watermark.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")
    assert stamp in resumed[0]["query"].replace("%3A", ":")
    assert f"Task {SYNC}" in survivor.log_tail(200000)
    record(
        "worker killed mid-sync",
        issues=issues.count(),
        comments=comments.count(),
        duplicates=0,
        requests_after_kill=len(resumed),
        visibility_timeout_s=VISIBILITY_TIMEOUT_S,
        kill_to_done_s=round(recovered, 1),
    )


HANG = (
    "if False:  # a torch reproducer to the extraction, quick to start here\n"
    "    import torch\n"
    "import time\n"
    "while True:\n"
    "    time.sleep(0.2)\n"
)


def sandbox_of(worker) -> tuple[int, str] | None:
    """(pid, private directory) of the sandbox init the worker runs a reproducer in, if any."""
    for pid in descendants(worker.process.pid):
        line = cmdline(pid)
        if "sandbox_init.py" in line and '"host_dir": "' in line:
            return pid, line.split('"host_dir": "', 1)[1].split('"', 1)[0]
    return None


def test_a_repro_run_killed_mid_run_is_taken_over_by_another_worker_and_recorded_once(
    cluster, make
):
    case = case_refresh(issue=make.issue(body=issue_body(script=HANG)))
    ReproCase.objects.filter(pk=case.pk).update(timeout_s=3, symptom="hang")
    case.refresh_from_db()
    case = case_approve(case=case, login="maintainer")
    (run,) = runs_queue(case=case, backend="triton-interpreter", runs=2, dispatch=False)

    workers = [cluster.worker("repro.cpu"), cluster.worker("repro.cpu")]
    cluster.start(*workers)
    limits = {"soft_time_limit": run.soft_time_limit_s, "time_limit": run.time_limit_s}
    cluster.send(RUN, queue=run.queue, options=limits, run_id=run.pk)
    victim = wait_for(lambda: cluster.running(RUN, workers), message="no worker runs it")
    survivor = next(w for w in workers if w is not victim)
    _, private_dir = wait_for(lambda: sandbox_of(victim), message="the reproducer never started")
    assert ReproRun.objects.get(pk=run.pk).status == ReproRun.Status.RUNNING

    victim.kill()
    killed = time.time()
    # the first attempt's processes die with their worker: nothing of it runs beside the next
    wait_for(lambda: not processes_mentioning(private_dir), message="the reproducer outlived it")
    gone = datetime.now(UTC)
    run = wait_for(
        lambda: ReproRun.objects.filter(pk=run.pk, status=ReproRun.Status.DONE).first(),
        timeout=90,
        message="the run was not finished by the other worker",
    )
    recovered = time.time() - killed

    assert ReproRun.objects.filter(case=case).count() == 1
    assert run.runner_name == survivor.hostname and run.claimed_at > gone
    assert f"taken over from {victim.hostname}" in run.log
    assert run.outcome == ReproRun.Outcome.REPRODUCED and run.signature == "timeout"
    assert len(run.executions) == 2 and run.symptom_runs == 2
    record(
        "worker killed mid-repro-run",
        runs=1,
        executions=len(run.executions),
        outcome=run.outcome,
        visibility_timeout_s=VISIBILITY_TIMEOUT_S,
        kill_to_done_s=round(recovered, 1),
    )
