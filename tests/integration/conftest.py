"""Real services for the integration tests: Postgres, Redis and a `celery worker` process.

`make test` runs these with DATABASE_URL and REDIS_URL set. Where the services are missing they
are skipped on a developer's machine and fail in CI (CI=true), never silently pass.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings

from tests.fakes.github_api import GitHubEmulator

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "integration-token"


def missing_services() -> str:
    problems = []
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        problems.append("DATABASE_URL is not a postgres:// URL")
    if not settings.REDIS_URL:
        problems.append("REDIS_URL is not set")
    else:
        import redis

        try:
            redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2).ping()
        except redis.RedisError as exc:
            problems.append(f"Redis at {settings.REDIS_URL} is not answering: {exc}")
    return "; ".join(problems)


def skip_or_fail(problem: str, what: str) -> None:
    """Skip on a developer's machine, fail in CI (CI=true), where `problem` is not empty."""
    if problem:
        message = f"{what} need Postgres and Redis ({problem}); see README"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


@pytest.fixture(scope="session")
def real_services():
    skip_or_fail(missing_services(), "integration tests")


@pytest.fixture(scope="session")
def github_emulator(real_services):
    with GitHubEmulator(token=TOKEN) as emulator:
        yield emulator


def _database_url_of_test_db() -> str:
    from django.db import connection

    parts = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(parts._replace(path="/" + connection.settings_dict["NAME"]))


@pytest.fixture(scope="session")
def celery_worker_process(real_services, django_db_setup, github_emulator, tmp_path_factory):
    """A real `celery worker` on the test database, consuming the ingest queue."""
    import redis

    from config.celery import app

    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    name = f"it-{uuid.uuid4().hex[:8]}@localhost"
    log = tmp_path_factory.mktemp("worker") / "worker.log"
    env = dict(
        os.environ,
        DATABASE_URL=_database_url_of_test_db(),
        REDIS_URL=settings.REDIS_URL,
        SECRET_KEY="integration-secret",
        GITHUB_API_URL=github_emulator.url,
        GITHUB_TOKEN=TOKEN,
        GITHUB_WEBHOOK_SECRET=settings.GITHUB_WEBHOOK_SECRET or "unused",
        GITHUB_RETRY_BACKOFF="0",
        # backfills take turns of a few requests here, so the tests see them go behind the queue
        GITHUB_BACKFILL_SLICE_REQUESTS="8",
    )
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "-n", name]
    command += ["-Q", "ingest,classify,releases", "-c", "2", "-P", "prefork", "-l", "INFO"]
    command += ["--without-gossip", "--without-mingle"]
    with open(log, "wb") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=out)
    deadline = time.monotonic() + 60
    while not app.control.ping(destination=[name], timeout=0.5):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"celery worker did not start:\n{log.read_text()[-4000:]}")
    yield process
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def worker_idle(*, timeout: float = 120.0) -> None:
    """Wait until no task is queued, reserved, scheduled or running on the worker."""
    import redis

    from config.celery import app

    broker = redis.Redis.from_url(settings.REDIS_URL)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        queued = sum(broker.llen(queue) for queue in settings.CELERY_QUEUES_BY_PURPOSE)
        inspect = app.control.inspect(timeout=2.0, limit=1)  # one worker: its reply is all
        busy = sum(
            len(tasks)
            for found in (inspect.active(), inspect.reserved(), inspect.scheduled())
            for tasks in (found or {}).values()
        )
        if not queued and not busy:
            return
        time.sleep(0.2)
    pytest.fail(f"the worker was still busy after {timeout}s")


@pytest.fixture(autouse=True)
def _worker_drained_before_flush(request):
    """The pipeline's tasks outlive the test that caused them: let them finish before the
    transactional test database is flushed (a TRUNCATE under a running task deadlocks)."""
    if "celery_worker_process" not in request.fixturenames:
        yield
        return
    request.getfixturevalue("transactional_db")  # set up first, so flushed after the wait
    yield
    worker_idle()
