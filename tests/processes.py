"""Real service processes for the integration and reliability tests, on loopback.

Each is a context manager that starts the process, waits until it answers, and stops it (SIGTERM,
then SIGKILL) when the block ends; `kill()` sends SIGKILL at once, as a crash would. Logs go to a
file whose tail is shown when a process fails to start.

- RedisServer: a private redis-server on its own port, which a test may restart freely (the
  machine's Redis at 6379 is shared); `persistent=True` keeps an append-only file, as a
  production broker does.
- CeleryWorker / CeleryBeat: `celery -A config worker|beat` with the given environment.
- Gunicorn: the web service (`config.wsgi`) on a free port.

`start_all(a, b, ...)` starts several at once, so their start-ups overlap.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(condition, *, timeout: float = 30.0, interval: float = 0.1, message: str = ""):
    """Poll `condition` until it returns something truthy; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    pytest.fail(message or f"condition not met within {timeout}s")


def database_url_of_test_db() -> str:
    """DATABASE_URL pointing at the database pytest-django created for this run."""
    from django.db import connection

    parts = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(parts._replace(path="/" + connection.settings_dict["NAME"]))


class _Process:
    name = "process"

    def __init__(self, log_dir: Path):
        self.log = Path(log_dir) / f"{self.name}-{uuid.uuid4().hex[:6]}.log"
        self.process: subprocess.Popen | None = None
        self._env: dict[str, str] = {}

    def command(self) -> list[str]:
        raise NotImplementedError

    def env(self) -> dict[str, str]:
        return {**os.environ, **self._env}

    def ready(self) -> bool:
        raise NotImplementedError

    new_session = False

    def launch(self):
        """Start the process without waiting for it to answer (see start_all)."""
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(
                self.command(),
                cwd=ROOT,
                env=self.env(),
                stdout=out,
                stderr=out,
                start_new_session=self.new_session,
            )
        return self

    def wait_ready(self, *, timeout: float = 60.0):
        deadline = time.monotonic() + timeout
        while not self.ready():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.kill()
                pytest.fail(f"{self.name} did not start:\n{self.log_tail()}")
            time.sleep(0.1)
        return self

    def start(self, *, timeout: float = 60.0):
        return self.launch().wait_ready(timeout=timeout)

    def log_tail(self, size: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-size:] if self.log.exists() else ""

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL, as a crash or the OOM killer would (children too, by process group)."""
        if self.alive():
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.process.kill()
            self.process.wait(timeout=10)

    def stop(self, grace: float = 20.0) -> None:
        if not self.alive():
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.kill()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False


def start_all(*processes, timeout: float = 90.0):
    """Start several processes at once and wait until each answers (start-up overlaps)."""
    for process in processes:
        process.launch()
    for process in processes:
        process.wait_ready(timeout=timeout)
    return processes


class _GroupLeader(_Process):
    """Started in its own process group, so kill() takes its children along."""

    new_session = True


class RedisServer(_GroupLeader):
    name = "redis"

    def __init__(self, log_dir: Path, port: int | None = None, *, persistent: bool = False):
        super().__init__(log_dir)
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        # persistent: an append-only file synced on every write, as a production broker keeps
        # it; what was queued (or taken but not acknowledged) survives a restart, even a kill.
        self.data_dir = Path(log_dir) / f"redis-{self.port}" if persistent else None

    def command(self) -> list[str]:
        server = shutil.which("redis-server")
        if not server:
            pytest.fail("redis-server is not installed (apt-get install redis-server)")
        command = [server, "--bind", "127.0.0.1", "--port", str(self.port), "--save", ""]
        if self.data_dir is not None:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            command += ["--dir", str(self.data_dir), "--appendonly", "yes"]
            command += ["--appendfsync", "always"]
        return command  # (no --daemonize: the test owns the process)

    def ready(self) -> bool:
        import redis

        try:
            return bool(redis.Redis.from_url(self.url, socket_timeout=0.5).ping())
        except redis.RedisError:
            return False

    def restart(self, *, down_for: float = 0.0) -> None:
        self.kill()
        time.sleep(down_for)
        self.start()


class CeleryWorker(_GroupLeader):
    name = "worker"

    def __init__(self, log_dir: Path, *, env: dict, queues: str, concurrency: int = 1, extra=()):
        super().__init__(log_dir)
        self.hostname = f"rel-{uuid.uuid4().hex[:8]}@localhost"
        self._env, self.queues, self.concurrency, self.extra = env, queues, concurrency, extra

    def command(self) -> list[str]:
        return [
            sys.executable,
            *("-m", "celery", "-A", "config", "worker", "-n", self.hostname),
            *("-Q", self.queues, "-c", str(self.concurrency), "-P", "prefork", "-l", "INFO"),
            *("--without-gossip", "--without-mingle", "--prefetch-multiplier", "1"),
            *self.extra,
        ]

    def ready(self) -> bool:
        return "ready." in self.log_tail(20000)


class CeleryBeat(_GroupLeader):
    name = "beat"

    def __init__(self, log_dir: Path, *, env: dict, max_interval: float = 1.0):
        super().__init__(log_dir)
        self._env, self.max_interval = env, max_interval
        self.schedule = Path(log_dir) / f"beat-{uuid.uuid4().hex[:6]}"

    def command(self) -> list[str]:
        return [
            sys.executable,
            *("-m", "celery", "-A", "config", "beat", "-l", "INFO"),
            *("--max-interval", str(self.max_interval), "-s", str(self.schedule)),
        ]

    def ready(self) -> bool:
        return "beat: Starting" in self.log_tail(20000)


class Gunicorn(_GroupLeader):
    name = "gunicorn"

    def __init__(self, log_dir: Path, *, env: dict, workers: int = 2):
        super().__init__(log_dir)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._env, self.workers = env, workers

    def env(self) -> dict[str, str]:
        # plain http on loopback: production settings would redirect every request to https
        return {**os.environ, "SECURE_SSL_REDIRECT": "0", **self._env}

    def command(self) -> list[str]:
        return [
            str(Path(sys.executable).parent / "gunicorn"),
            "config.wsgi",
            *("--bind", f"127.0.0.1:{self.port}", "--workers", str(self.workers)),
            *("--log-level", "warning", "--timeout", "60"),
        ]

    def ready(self) -> bool:
        import requests

        try:
            return requests.get(f"{self.url}/healthz", timeout=2).status_code == 200
        except requests.RequestException:
            return False
