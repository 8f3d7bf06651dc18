"""Runs: claim once, per-attempt time limits, the rocm-container path through the stand-in CLI."""

import json
from datetime import timedelta

import pytest
from celery.signals import before_task_publish
from django.utils import timezone

from config.celery import app
from kernels_ci.backends.rocm_container import (
    ImageNotPinned,
    Resources,
    container_command,
    result_observation,
)
from kernels_ci.models import ReproCase, ReproRun
from kernels_ci.sandbox import SandboxResult
from kernels_ci.services.cases import case_approve, case_refresh
from kernels_ci.services.runs import (
    RunRequestError,
    run_claim,
    run_execute,
    runs_mark_lost,
    runs_queue,
)
from tests.kernels_ci.factories import IMAGE, issue_body

TORCH = "if False:  # a torch reproducer to the extraction, quick to start here\n    import torch\n"
WRONG = TORCH + "print('computing')\nassert 1 + 1 == 3, 'wrong sum: 2'\n"


def approved_case(make, script=WRONG, **fields):
    case = case_refresh(issue=make.issue(body=issue_body(script=script)))
    ReproCase.objects.filter(pk=case.pk).update(**fields)
    case.refresh_from_db()
    return case_approve(case=case, login="maintainer")


def command(**options) -> str:
    argv = container_command(
        cli=["podman"],
        name="r1",
        workdir="/w",
        language="hip",
        arch="gfx942",
        nonce="ab12",
        **options,
    )
    return " ".join(argv)


def test_the_command_has_every_confinement_and_a_pinned_image():
    joined = command(image=IMAGE)
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
        "&& echo REPRO-STARTED-ab12 >&2 && exec /tmp/repro",
    ):
        assert part in joined
    with pytest.raises(ImageNotPinned):
        command(image="rocm/pytorch:latest")


def test_the_containers_gpu_and_limits_come_from_the_settings(settings):
    settings.KERNELS_CI_KFD_DEVICE = "/dev/kfd-test"
    settings.KERNELS_CI_RENDER_DEVICE = "/dev/dri/renderD129"
    settings.KERNELS_CI_CONTAINER_CPUS = "2"
    settings.KERNELS_CI_CONTAINER_MEMORY = "8g"
    settings.KERNELS_CI_CONTAINER_PIDS = 64
    joined = command(image=IMAGE, resources=Resources.from_settings())
    for part in (
        "--device /dev/kfd-test",
        "--device /dev/dri/renderD129",
        "--cpus 2",
        "--memory 8g",
        "--pids-limit 64",
    ):
        assert part in joined


def test_a_container_run_reproduces_through_the_stand_in_cli(make, container, settings):
    case = approved_case(make, backend="rocm-container", archs=["gfx942"], runs_per_attempt=2)
    (run,) = runs_queue(case=case, dispatch=False)
    assert run.queue == "repro.gfx942"
    run = run_execute(run_id=run.pk, runner_name="gpu-host-1")
    assert (run.outcome, run.symptom_runs) == ("reproduced", 2), run.log
    assert run.signature == "AssertionError: wrong sum: N | <module>"
    assert "network none" in run.isolation and "REPRO-STARTED" not in run.log
    calls = [json.loads(line) for line in container.read_text().splitlines()]
    assert [c["verb"] for c in calls] == ["run", "run"]
    assert calls[0]["image"] == IMAGE and calls[0]["options"]["--network"] == ["none"]


def test_a_script_exiting_127_is_its_own_crash_not_an_infra_error(make, container):
    script = TORCH + "import sys\nprint('REPRO-INFRA: fake')\nsys.exit(127)\n"
    case = approved_case(
        make, script=script, backend="rocm-container", archs=["gfx942"], runs_per_attempt=1
    )
    (run,) = runs_queue(case=case, dispatch=False)
    run = run_execute(run_id=run.pk)
    assert run.executions[0]["kind"] == "crash" and run.outcome != "infra_error", run.log
    assert run.executions[0]["signature"].startswith("exit 127")


def test_container_exit_codes_before_the_reproducer_started_are_infra_or_a_compile_error():
    def seen(code, stderr, language="python", timed_out=False):
        result = SandboxResult(returncode=code, stderr=stderr, timed_out=timed_out)
        return result_observation(result, nonce="ab12", language=language)

    assert seen(125, "docker: Error response from daemon").kind == "infra"
    assert seen(127, "exec: python3: not found").signature == "infra: command not runnable in image"
    assert seen(1, "").signature == "infra: the container did not start the reproducer"
    hipcc = (
        "/work/repro.hip:4:5: error: use of undeclared identifier 'threadIdx_x'\n"
        "    threadIdx_x;\n    ^\n1 error generated when compiling for gfx942.\n"
    )
    compile_error = seen(1, hipcc, language="hip")
    assert compile_error.kind == "compile_error"
    assert (
        compile_error.signature == "error: use of undeclared identifier 'threadIdx_x' | repro.hip"
    )
    started = seen(139, "REPRO-STARTED-ab12\nSegmentation fault", language="hip")
    assert (started.kind, started.signature) == ("crash", "signal SIGSEGV")


def test_a_container_timeout_kills_the_container_and_reads_as_a_hang(make, container):
    script = TORCH + "import time\nwhile True:\n    time.sleep(0.2)\n"
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


def test_the_interpreter_refuses_an_architecture_instead_of_ignoring_it(make):
    case = approved_case(make)
    with pytest.raises(RunRequestError, match="runs on the CPU only, not on gfx942"):
        runs_queue(case=case, archs=["gfx942"], backend="triton-interpreter", dispatch=False)
    assert not ReproRun.objects.exists()
    (run,) = runs_queue(case=case, archs=["cpu"], backend="triton-interpreter", dispatch=False)
    assert run.arch == "cpu"


@pytest.fixture
def published():
    """Task messages' headers as sent to the broker (the in-memory transport), not run eagerly."""
    sent = []

    def record(sender=None, headers=None, **kwargs):
        sent.append(headers)

    before_task_publish.connect(record, weak=False)
    eager, app.conf.task_always_eager = app.conf.task_always_eager, False
    try:
        yield sent
    finally:
        app.conf.task_always_eager = eager
        before_task_publish.disconnect(record)


def test_each_attempt_is_dispatched_with_time_limits_from_its_runs_and_timeout(
    make, published, django_capture_on_commit_callbacks
):
    case = approved_case(make, timeout_s=200)
    with django_capture_on_commit_callbacks(execute=True):
        (run,) = runs_queue(case=case, runs=8)
    # 8 executions of at most 200 s, a margin each and one for the attempt; hard = 1.2 x soft.
    assert (run.soft_time_limit_s, run.time_limit_s) == (8 * (200 + 30) + 60, 2280)
    (message,) = [h for h in published if h["task"] == "kernels_ci.tasks.run_execute"]
    assert message["timelimit"] == [2280, 1900]


def test_a_long_attempt_is_not_marked_lost_before_its_own_limit(make):
    case = approved_case(make, timeout_s=600)
    long, short = runs_queue(case=case, runs=10, dispatch=False) + runs_queue(
        case=case, runs=1, dispatch=False
    )
    started = timezone.now() - timedelta(hours=1)
    ReproRun.objects.filter(pk__in=[long.pk, short.pk]).update(status="running", claimed_at=started)
    assert runs_mark_lost(grace_s=300) == 1  # the one-run attempt's limit (~13 min) is long past
    long.refresh_from_db()
    short.refresh_from_db()
    assert long.status == "running" and long.time_limit_s > 3600
    assert (short.status, short.outcome) == ("done", "infra_error")
    assert "lost" in short.detail
