"""Shared plumbing of the benchmarks: scratch databases, the GitHub emulator, child processes.

Everything here is bounded and cleans up after itself: a scratch Postgres database is dropped
and a temporary SQLite file removed when the `with` block ends, and every subprocess started is
terminated (then killed) by its own pid.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
TOKEN = "bench-token"  # noqa: S105 - the emulator's token, not a secret
DEFAULT_POSTGRES = "postgres://postgres@127.0.0.1:5432/bench_backfill"


def base_env(**extra: str) -> dict[str, str]:
    """The environment of the service under test: production settings (DEBUG off)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "REDIS_URL", "DATABASE_URL")}
    env.update(
        SECRET_KEY="benchmark-only-secret-key",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        LOG_LEVEL="WARNING",
        PYTHONPATH=str(ROOT),
        SECURE_SSL_REDIRECT="0",  # plain http on loopback (production redirects to https)
        # the fixtures' deliveries come from the GitHub App installed on their organization
        GITHUB_APP_ACCOUNTS="ROCm",
    )
    env.update(extra)
    return env


# --- scratch databases ------------------------------------------------------------------------


def connect(database_url: str, **options):
    """A psycopg connection to a postgres:// URL (as DATABASE_URL spells it)."""
    import psycopg

    return psycopg.connect(database_url.replace("postgres://", "postgresql://", 1), **options)


def _admin_connect(url: str):
    parts = urlsplit(url)
    return connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True)


@contextlib.contextmanager
def scratch_database(url: str) -> Iterator[str]:
    """Yield a DATABASE_URL for an empty database; drop (or delete) it afterwards.

    `url` is a Postgres URL whose database name is the scratch database to create (it is dropped
    first if a crashed run left it behind), or `sqlite` / `sqlite:///...` for a temporary file.
    """
    if url.startswith("sqlite"):
        folder = tempfile.mkdtemp(prefix="bench-sqlite-")
        try:
            yield f"sqlite:///{folder}/bench.sqlite3"
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return
    name = urlsplit(url).path.lstrip("/")
    if not name.startswith("bench"):
        raise SystemExit(f"refusing to create/drop database {name!r}: its name must start 'bench'")
    with _admin_connect(url) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield url
    finally:
        with _admin_connect(url) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def migrate(database_url: str) -> None:
    subprocess.run(
        [PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=base_env(DATABASE_URL=database_url),
        check=True,
        timeout=300,
    )


# --- subprocesses ------------------------------------------------------------------------------


def stop_process(proc: subprocess.Popen, grace: float = 10.0) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=grace)


@contextlib.contextmanager
def github_emulator(
    *,
    repo: str,
    issues: int,
    comments_per_issue: int = 0,
    startup_timeout: float = 600,
    lazy: bool = False,
    rate_limit: int = 5000,
) -> Iterator[tuple[str, subprocess.Popen]]:
    """Run the emulator CLI on 127.0.0.1 with bulk data; yield (url, process).

    It serializes its items before READY unless `lazy`, and allows `rate_limit` requests an hour.
    """
    proc = subprocess.Popen(
        [
            PYTHON,
            "-m",
            "tests.fakes.github_api",
            "--port",
            "0",
            "--repo",
            repo,
            "--issues",
            str(issues),
            "--comments-per-issue",
            str(comments_per_issue),
            "--token",
            TOKEN,
            "--rate-limit",
            str(rate_limit),
        ]
        + (["--lazy"] if lazy else []),
        cwd=ROOT,
        env=base_env(),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + startup_timeout
        line = ""
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if line.startswith("READY ") or not line:
                break
        if not line.startswith("READY "):
            raise RuntimeError(f"the GitHub emulator did not start (got {line!r})")
        yield line.split()[1], proc
    finally:
        stop_process(proc)


def run_json(argv: list[str], env: dict[str, str], timeout: float) -> dict:
    """Run a child Python process that prints one JSON object as its last stdout line."""
    done = subprocess.run(
        [PYTHON, *argv], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise RuntimeError(f"{argv[0]} failed with exit status {done.returncode}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def process_peak_rss_mib(pid: int) -> float | None:
    """Peak RSS (VmHWM) of another live process, from /proc."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return None


def machine() -> str:
    model = "unknown CPU"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{os.cpu_count()} CPUs ({model}), Python {sys.version.split()[0]}"
