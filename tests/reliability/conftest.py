"""Fault tests against the real services: Postgres, Redis, `celery worker`, `celery beat`, gunicorn.

Each test gets a private redis-server on a free port as its broker (`cluster.broker`), which it
may kill and restart, and starts the processes it needs through `cluster`; all of them point at
the test database and that broker, and all are stopped before the test database is flushed.
GitHub and X are the emulators of tests/fakes/, reached by the real PyGithub and tweepy.

The test process never sends a task to the shared Redis (settings.REDIS_URL), where the session
worker of tests/integration may be consuming: it sends through `cluster.send`, on a Celery app
of its own bound to the private broker, as any client of the service would.

Where Postgres, Redis or redis-server are missing the tests skip on a developer's machine and
fail in CI (CI=true). Figures the tests measure (recovery times, deliveries, duplicates) are
printed and appended to var/test/reliability-figures.jsonl; docs/RELIABILITY.md quotes them.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import subprocess
import threading
import time
from contextlib import suppress
from pathlib import Path

import pytest

from tests.fakes.github_api import GitHubEmulator
from tests.fakes.x_api import XEmulator
from tests.integration.conftest import missing_services, skip_or_fail
from tests.processes import (
    ROOT,
    CeleryBeat,
    CeleryWorker,
    Gunicorn,
    RedisServer,
    database_url_of_test_db,
    start_all,
    wait_for,
)

GITHUB_TOKEN = "reliability-github-token"
X_TOKEN = "reliability-x-token"
WEBHOOK_SECRET = "reliability-webhook-secret"
# A task of a killed worker goes back to the queue after this (production: 7200 s).
VISIBILITY_TIMEOUT_S = 6
FIGURES = ROOT / "var" / "test" / "reliability-figures.jsonl"


@pytest.fixture(scope="session")
def fault_services():
    problem = missing_services()
    if not shutil.which("redis-server"):
        problem += "; redis-server is not installed (a private broker is restarted)"
    skip_or_fail(problem.strip("; "), "reliability tests")


def record(test: str, **figures) -> None:
    """A measured figure, for docs/RELIABILITY.md (never asserted on)."""
    line = json.dumps({"test": test, **figures}, default=str)
    print(f"\nFIGURES {line}")
    FIGURES.parent.mkdir(parents=True, exist_ok=True)
    with FIGURES.open("a") as out:
        out.write(line + "\n")


# --- GitHub with a gate: a request held until the test lets it go ------------------------------


class Gate:
    """Holds the (after+1)-th request whose path contains `path_contains` until released."""

    def __init__(self, path_contains: str, after: int):
        self.path_contains, self.after = path_contains, after
        self.seen = 0
        self.reached = threading.Event()
        self.released = threading.Event()

    def wait_reached(self, timeout: float = 60.0) -> None:
        if not self.reached.wait(timeout):
            pytest.fail(f"no request for {self.path_contains} reached the gate in {timeout}s")

    def release(self) -> None:
        self.released.set()


class GatedGitHub(GitHubEmulator):
    """The GitHub emulator, plus gates (GitHub being slow on one request) and a timed log."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.gates: list[Gate] = []
        self.timeline: list[dict] = []  # {"time", "path", "query", "status"}
        self._gate_lock = threading.Lock()

    def gate(self, *, path_contains: str, after_requests: int = 0) -> Gate:
        gate = Gate(path_contains, after_requests)
        with self._gate_lock:
            self.gates.append(gate)
        return gate

    def handle(self, method, raw_path, headers, body=b""):
        held = None
        with self._gate_lock:
            for gate in self.gates:
                if gate.path_contains in raw_path.split("?")[0]:
                    gate.seen += 1
                    if gate.seen == gate.after + 1:
                        held = gate
                        break
        if held is not None:
            held.reached.set()
            held.released.wait(120)
        reply = super().handle(method, raw_path, headers, body)
        path, _, query = raw_path.partition("?")
        with self._gate_lock:
            self.timeline.append(
                {"time": time.time(), "path": path, "query": query, "status": reply.status}
            )
        return reply

    def release_gates(self) -> None:
        with self._gate_lock:
            gates, self.gates = self.gates, []
        for gate in gates:
            gate.release()

    def requests_to(self, path: str) -> list[dict]:
        with self._gate_lock:
            return [entry for entry in self.timeline if entry["path"] == path]


@pytest.fixture(scope="session")
def github(fault_services):
    with GatedGitHub(token=GITHUB_TOKEN) as emulator:
        yield emulator


@pytest.fixture(scope="session")
def x_api(fault_services):
    with XEmulator(bearer_token=X_TOKEN) as emulator:
        yield emulator


# --- the cluster: the processes of one test -------------------------------------------------


def descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        with suppress(OSError):
            for task in os.listdir(f"/proc/{parent}/task"):
                with suppress(OSError):
                    children = Path(f"/proc/{parent}/task/{task}/children").read_text().split()
                    found += [int(c) for c in children]
                    todo += [int(c) for c in children]
    return found


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def processes_mentioning(marker: str) -> list[int]:
    """Processes on this machine whose command line or working directory holds `marker`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        with suppress(OSError):
            if marker in cmdline(pid) or marker in os.readlink(f"/proc/{pid}/cwd"):
                found.append(pid)
    return found


class Cluster:
    def __init__(self, log_dir: Path, *, github: GatedGitHub, x_api: XEmulator, persistent: bool):
        self.log_dir, self.github, self.x_api = log_dir, github, x_api
        self.broker = RedisServer(log_dir, persistent=persistent).start()
        self.processes: list = []
        from celery import Celery

        self.client = Celery("reliability-client", broker=self.broker.url, set_as_current=False)
        self.client.conf.broker_connection_retry_on_startup = True

    def env(self, **extra) -> dict[str, str]:
        return {
            "DATABASE_URL": database_url_of_test_db(),
            "REDIS_URL": self.broker.url,
            "SECRET_KEY": "reliability-secret-key",
            "DEBUG": "",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECURE_SSL_REDIRECT": "0",  # plain http on loopback
            "GITHUB_API_URL": self.github.url,
            "GITHUB_TOKEN": GITHUB_TOKEN,
            "GITHUB_WEBHOOK_SECRET": WEBHOOK_SECRET,
            "GITHUB_RETRY_BACKOFF": "0",
            "GITHUB_REPOS": "",
            "X_API_URL": self.x_api.url,
            "X_BEARER_TOKEN": "",
            "TASK_VISIBILITY_TIMEOUT_S": str(VISIBILITY_TIMEOUT_S),
            "BEAT_LEASE_S": "3",
            "KERNELS_CI_HEARTBEAT_S": "1",
            **{key: str(value) for key, value in extra.items()},
        }

    def worker(self, queues: str = "ingest", *, concurrency: int = 1, **env) -> CeleryWorker:
        worker = CeleryWorker(
            self.log_dir, env=self.env(**env), queues=queues, concurrency=concurrency
        )
        self.processes.append(worker)
        return worker

    def beat(self, **env) -> CeleryBeat:
        beat = CeleryBeat(self.log_dir, env=self.env(**env), max_interval=1)
        self.processes.append(beat)
        return beat

    def gunicorn(self, *, workers: int = 2, **env) -> Gunicorn:
        web = Gunicorn(self.log_dir, env=self.env(**env), workers=workers)
        self.processes.append(web)
        return web

    def start(self, *processes):
        return start_all(*processes)

    # the client side
    def send(self, task: str, *, queue: str, options: dict | None = None, **kwargs):
        return self.client.send_task(task, kwargs=kwargs, queue=queue, **(options or {}))

    def running(self, task: str, workers: list[CeleryWorker]) -> CeleryWorker | None:
        """The worker that is executing `task` now (remote control over the private broker)."""
        names = [w.hostname for w in workers]
        active = self.client.control.inspect(destination=names, timeout=1.0).active() or {}
        for worker in workers:
            if any(t.get("name") == task for t in active.get(worker.hostname, [])):
                return worker
        return None

    def queued(self, queue: str) -> list[tuple[str, list, dict, dict]]:
        """(task name, args, kwargs, headers) of every message waiting in `queue`."""
        import redis

        found = []
        for raw in redis.Redis.from_url(self.broker.url).lrange(queue, 0, -1):
            message = json.loads(raw)
            args, kwargs, _ = json.loads(base64.b64decode(message["body"]))
            found.append((message["headers"]["task"], args, kwargs, message["headers"]))
        return found

    def close(self) -> None:
        self.github.release_gates()
        alive = [p for p in self.processes if p.alive()]
        for process in alive:
            with suppress(ProcessLookupError):
                process.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 20
        for process in alive:
            try:
                process.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
        self.broker.kill()
        self.client.close()


def _cluster(request, tmp_path, github, x_api, *, persistent: bool):
    request.getfixturevalue("transactional_db")  # set up first, so flushed after the processes stop
    cluster = Cluster(tmp_path, github=github, x_api=x_api, persistent=persistent)
    try:
        yield cluster
    finally:
        cluster.close()
        if getattr(request.node, "rep_call_failed", False):  # their logs, to see why
            for process in cluster.processes:
                print(f"--- {process.name} log ---\n{process.log_tail(6000)}")


@pytest.fixture
def cluster(request, tmp_path, github, x_api):
    yield from _cluster(request, tmp_path, github, x_api, persistent=False)


@pytest.fixture
def persistent_cluster(request, tmp_path, github, x_api):
    """A cluster whose broker keeps an append-only file, as a production Redis does."""
    yield from _cluster(request, tmp_path, github, x_api, persistent=True)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call":
        item.rep_call_failed = report.failed
    return report


__all__ = ["wait_for"]
