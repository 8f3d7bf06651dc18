"""Runs: claim once, the rocm-container path through the stand-in CLI, runners, verification."""

import json
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from kernels_ci.backends.rocm_container import ImageNotPinned, container_command
from kernels_ci.models import ReproCase, ReproRun, Runner
from kernels_ci.selectors import verification_for_issue
from kernels_ci.services import runners
from kernels_ci.services.cases import case_approve, case_refresh
from kernels_ci.services.runs import run_claim, run_execute, runs_queue
from kernels_ci.services.verification import verification_request
from tests.kernels_ci.factories import issue_body

FAKE_CLI = Path(__file__).resolve().parents[1] / "fakes" / "fake_container_cli.py"
IMAGE = "rocm/pytorch@sha256:" + "ab" * 32
WRONG = "import torch  # noqa\nprint('computing')\nassert 1 + 1 == 3, 'wrong sum: 2'\n"


@pytest.fixture
def container(settings, tmp_path):
    settings.KERNELS_CI_CONTAINER_CLI = f"{sys.executable} {FAKE_CLI}"
    settings.KERNELS_CI_ROCM_IMAGE = IMAGE
    settings.KERNELS_CI_RUNNER_ARCH = "gfx942"
    settings.KERNELS_CI_CONTAINER_ENV = ["FAKE_CONTAINER_LOG", "FAKE_CONTAINER_STATE"]
    log = tmp_path / "cli.jsonl"
    import os

    os.environ["FAKE_CONTAINER_LOG"] = str(log)
    os.environ["FAKE_CONTAINER_STATE"] = str(tmp_path / "state")
    yield log
    os.environ.pop("FAKE_CONTAINER_LOG", None)
    os.environ.pop("FAKE_CONTAINER_STATE", None)


def approved_case(make, script=WRONG, **fields):
    case = case_refresh(issue=make.issue(body=issue_body(script=script)))
    ReproCase.objects.filter(pk=case.pk).update(**fields)
    case.refresh_from_db()
    return case_approve(case=case, login="maintainer")


def test_the_command_has_every_confinement_and_a_pinned_image():
    argv = container_command(
        cli=["podman"], image=IMAGE, name="r1", workdir="/w", language="hip", arch="gfx942"
    )
    joined = " ".join(argv)
    for part in (
        "--device /dev/kfd",
        "--device /dev/dri/renderD128",
        "--network none",
        "--read-only",
        "--tmpfs /tmp",
        "--user 1000:1000",
        "--cpus 4",
        "--memory 16g",
        "--pids-limit 512",
        "--cap-drop ALL",
        "--volume /w:/work:ro",
        f"{IMAGE} bash -c hipcc --offload-arch=gfx942",
    ):
        assert part in joined
    with pytest.raises(ImageNotPinned):
        container_command(
            cli=["docker"],
            image="rocm/pytorch:latest",
            name="r",
            workdir="/w",
            language="python",
            arch="gfx942",
        )


def test_a_container_run_reproduces_through_the_stand_in_cli(make, container, settings):
    case = approved_case(make, backend="rocm-container", archs=["gfx942"], runs_per_attempt=2)
    (run,) = runs_queue(case=case, dispatch=False)
    assert run.queue == "repro.gfx942"
    run = run_execute(run_id=run.pk, runner_name="gpu-host-1")
    assert (run.outcome, run.symptom_runs) == ("reproduced", 2), run.log
    assert run.signature == "AssertionError: wrong sum: N | <module>"
    assert "--network none" in run.isolation or "network none" in run.isolation
    calls = [json.loads(line) for line in container.read_text().splitlines()]
    assert [c["verb"] for c in calls] == ["run", "run"]
    assert calls[0]["image"] == IMAGE and calls[0]["options"]["--network"] == ["none"]


def test_a_container_timeout_kills_the_container_and_reads_as_a_hang(make, container):
    script = "import torch  # noqa\nimport time\ntime.sleep(60)\n"
    case = approved_case(
        make,
        script=script,
        backend="rocm-container",
        archs=["gfx942"],
        runs_per_attempt=1,
        timeout_s=2,
    )
    (run,) = runs_queue(case=case, dispatch=False)
    run = run_execute(run_id=run.pk)
    assert run.executions[0]["kind"] == "hang" and run.signature == "timeout"
    assert [json.loads(x)["verb"] for x in container.read_text().splitlines()] == ["run", "kill"]


def test_an_unpinned_image_is_an_infra_error_not_a_result(make, container, settings):
    settings.KERNELS_CI_ROCM_IMAGE = "rocm/pytorch:latest"
    case = approved_case(make, backend="rocm-container", archs=["gfx942"], runs_per_attempt=1)
    (run,) = runs_queue(case=case, dispatch=False)
    run = run_execute(run_id=run.pk)
    assert run.outcome == "infra_error" and "pinned by digest" in run.detail


def test_a_duplicate_delivery_is_a_no_op(make, container):
    case = approved_case(make, backend="rocm-container", archs=["gfx942"], runs_per_attempt=1)
    (run,) = runs_queue(case=case, dispatch=False)
    first = run_execute(run_id=run.pk, runner_name="w1")
    second = run_execute(run_id=run.pk, runner_name="w2")
    assert first.status == "done" and second is None
    run.refresh_from_db()
    assert run.runner_name == "w1" and len(run.executions) == 1
    assert len(container.read_text().splitlines()) == 1
    assert run_claim(run_id=run.pk) is False


def _done(case, outcome, attempt, arch="gfx942", backend="triton-amd-compile"):
    return ReproRun.objects.create(
        case=case,
        arch=arch,
        backend=backend,
        attempt=attempt,
        queue="repro.cpu",
        script_sha256=case.sha256,
        status="done",
        outcome=outcome,
        finished_at=timezone.now(),
    )


def test_three_consecutive_passes_verify_a_fix_and_infra_errors_do_not_count(make):
    case = approved_case(make, script=None)
    _done(case, "reproduced", 1)
    _done(case, "not_reproduced", 2)
    _done(case, "infra_error", 3)
    _done(case, "not_reproduced", 4)
    state = verification_for_issue(case.issue_id)["gfx942"]
    assert (state.state, state.consecutive_passes) == ("verifying", 2)
    _done(case, "not_reproduced", 5)
    assert verification_for_issue(case.issue_id)["gfx942"].verified
    _done(case, "flaky", 6)
    assert verification_for_issue(case.issue_id)["gfx942"].state == "reproduces"


def test_a_linked_fix_queues_verification_where_it_reproduced(
    make, django_capture_on_commit_callbacks
):
    case = approved_case(make, script=None)
    _done(case, "reproduced", 1, arch="gfx90a")
    _done(case, "not_reproduced", 1, arch="gfx942")
    with django_capture_on_commit_callbacks(execute=False):
        queued = verification_request(issue_ids=[case.issue_id])
    assert [(r.arch, r.purpose, r.attempt, r.status) for r in queued] == [
        ("gfx90a", "verify", 2, "queued")
    ]


def test_a_runner_registers_and_an_unhealthy_one_says_why(db, settings):
    runner = runners.runner_register(name="w1@gpu", queues=["repro.cpu"])
    assert runner.healthy and runner.arch == settings.KERNELS_CI_RUNNER_ARCH
    assert "triton-interpreter" in runner.backends or runner.backends
    settings.KERNELS_CI_MIN_FREE_DISK_BYTES = 10**18
    runner = runners.runner_heartbeat(name="w1@gpu")
    assert not runner.healthy and "MiB free" in runner.reason
    Runner.objects.filter(pk=runner.pk).update(
        healthy=True, last_heartbeat_at=timezone.now() - timedelta(hours=1)
    )
    assert runners.runners_mark_stale(after_s=60) == 1
    assert "no heartbeat" in Runner.objects.get(pk=runner.pk).reason
