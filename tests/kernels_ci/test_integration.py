"""kernels_ci with the real services: two refreshes of one issue racing on Postgres, and a GPU
runner whose health check fails taking no work from its queue (a real `celery worker`)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import uuid

import pytest
from django.conf import settings
from django.db import connections, transaction
from django.utils import timezone

from config.celery import app
from kernels_ci.models import ReproCase, ReproRun, Runner
from kernels_ci.services.cases import case_refresh, cases_refresh
from tests.integration.conftest import ROOT, _database_url_of_test_db, real_services
from tests.kernels_ci.factories import issue_body
from tests.processes import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
__all__ = ["real_services"]


def test_two_refreshes_of_one_repro_comment_queue_its_runs_once(real_services, make):
    issue = make.issue(body=issue_body(), updated_at=timezone.now())
    case_refresh(issue=issue)  # the case exists: both refreshes read the same row
    make.comment(
        issue,
        body="/repro",
        author="maintainer",
        author_association="MEMBER",
        created_at=timezone.now(),
    )
    first_inside, release = threading.Event(), threading.Event()
    reports = {}

    def refresh(name: str, hold: bool) -> None:
        try:
            with transaction.atomic():
                reports[name] = cases_refresh(issue_ids=[issue.id])
                if hold:  # the first refresh keeps its transaction (and lock) open
                    first_inside.set()
                    release.wait(30)
        finally:
            connections.close_all()

    first = threading.Thread(target=refresh, args=("first", True))
    first.start()
    assert first_inside.wait(30)
    second = threading.Thread(target=refresh, args=("second", False))
    second.start()
    second.join(1.0)
    assert second.is_alive(), "the second refresh read the comment while the first held it"
    release.set()
    first.join(30)
    second.join(30)
    assert len(reports["first"].queued_runs) == 1 and reports["second"].queued_runs == []
    case = ReproCase.objects.get(issue=issue)
    assert ReproRun.objects.filter(case=case).count() == 1 and case.is_approved


def test_a_gpu_runner_failing_its_health_check_stops_consuming_and_says_why(
    real_services, tmp_path
):
    name = f"gpu-{uuid.uuid4().hex[:8]}@localhost"
    env = dict(
        os.environ,
        DATABASE_URL=_database_url_of_test_db(),
        REDIS_URL=settings.REDIS_URL,
        SECRET_KEY="integration-secret",
        KERNELS_CI_RUNNER_ARCH="gfx942",
        KERNELS_CI_CONTAINER_CLI="no-such-container-cli",
        KERNELS_CI_ROCM_IMAGE="rocm/pytorch@sha256:" + "ab" * 32,
        KERNELS_CI_HEARTBEAT_S="1",
    )
    log = tmp_path / "worker.log"
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "-n", name]
    command += ["-Q", "repro.gfx942", "-P", "solo", "-l", "INFO"]
    command += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
    with open(log, "wb") as out:
        worker = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=out)
    try:
        runner = wait_for(
            lambda: Runner.objects.filter(name=name, consuming=False).first(), timeout=60
        )
        assert not runner.healthy and runner.queues == ["repro.gfx942"]
        assert "repro.gfx942: rocm-container cannot run here" in runner.reason
        assert "container CLI 'no-such-container-cli' is not on PATH" in runner.reason
        assert "/dev/kfd is missing" in runner.reason

        def consumed():
            replies = app.control.inspect(destination=[name], timeout=2).active_queues() or {}
            queues = replies.get(name)
            return None if queues is None else ([queue["name"] for queue in queues],)

        (names,) = wait_for(consumed, timeout=30)
        assert "repro.gfx942" not in names
        # A heartbeat later it still says why, and still takes nothing.
        wait_for(
            lambda: Runner.objects.get(name=name).last_heartbeat_at > runner.last_heartbeat_at,
            timeout=30,
        )
        assert not Runner.objects.get(name=name).consuming
    finally:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
