"""Postgres stopped (10 s, and 60 s) in the middle of a burst of webhook deliveries arriving at
gunicorn at 20/s, with a real Celery worker processing them.

"Stopped" is a stopped Postgres: a private cluster of this test's own (initdb into a temporary
directory as the `postgres` OS user, `pg_ctl start` on a free port, the test database's schema
copied in with pg_dump), which the test stops with `pg_ctl stop -m fast` and starts again;
gunicorn and the worker use it, the shared server at 127.0.0.1:5432 is never touched.

What must hold: every delivery is answered 2xx (stored, or spooled on the web host's disk while
the database is down: triage/services/webhook_spool.py), and once Postgres is back every one is
stored and processed exactly once, without any redelivery by GitHub and without an operator:
the web processes drain their own spool. And what each delivery should cause is not lost to
the outage (issue 35): a worker of the classify queue runs beside them, its tasks meet the
outage and retry (config/task_retries.py), and in the end every issue is classified, prioritized
and indexed for search, each with one prediction per model; beat, running throughout against the
same database, is alive after the outage and sends its jobs again.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg
import pytest
import requests
from django.db import connection

from tests.fakes.github_webhooks import fixture_payload, numbered_issue_delivery
from tests.processes import free_port, wait_for
from tests.reliability.conftest import GITHUB_TOKEN, WEBHOOK_SECRET, GatedGitHub, record

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

REPO = "ROCm/ROCm"  # the fixture's repository; the first delivery starts tracking it
DELIVERIES, RATE = 300, 20.0  # 15 s of deliveries
STOP_AFTER_S = 2.0  # Postgres stops 2 s into the burst


class PrivatePostgres:
    """A Postgres cluster of this test's own, in a temporary directory, that it may stop."""

    def __init__(self):
        binaries = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
        if not binaries:
            pytest.fail("no /usr/lib/postgresql/*/bin/pg_ctl: the postgresql server package")
        self.bin = Path(binaries[-1]).parent
        self.dir = Path(tempfile.mkdtemp(prefix="rel-pg-"))
        self.data, self.port = self.dir / "data", free_port()
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/triage"
        if os.geteuid() == 0:  # initdb refuses root: the cluster belongs to `postgres`
            shutil.chown(self.dir, "postgres", "postgres")

    def _run(self, tool: str, *args: str, **kwargs) -> subprocess.CompletedProcess:
        command = [str(self.bin / tool), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, **kwargs)
        if done.returncode:
            pytest.fail(f"{tool} failed: {done.stdout[-2000:]}{done.stderr[-2000:]}")
        return done

    def init(self) -> None:
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync")
        self.start()
        self.sql("postgres", "CREATE DATABASE triage")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1"
        log = str(self.dir / "postgres.log")
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", log, "-w", "start")

    def stop(self) -> None:
        """A normal fast shutdown: open connections are ended, new ones refused."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def sql(self, database: str, statement: str, *, input_text: str | None = None):
        host = ("-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", database)
        args = [*host, "-v", "ON_ERROR_STOP=1", "-q"]
        args += ["-c", statement] if statement else []
        return self._run("psql", *args, input=input_text)

    def copy_schema(self) -> None:
        """The schema of pytest-django's migrated test database on the shared server."""
        settings = connection.settings_dict
        dump = subprocess.run(
            [
                str(self.bin / "pg_dump"),
                *("--schema-only", "--no-owner", "--no-privileges"),
                *("-h", settings["HOST"] or "127.0.0.1", "-p", str(settings["PORT"] or 5432)),
                *("-U", settings["USER"] or "postgres", settings["NAME"]),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "PGPASSWORD": settings["PASSWORD"] or ""},
        )
        if dump.returncode:
            pytest.fail(f"pg_dump failed: {dump.stderr[-2000:]}")
        self.sql("triage", "", input_text=dump.stdout)

    def empty(self) -> None:
        with psycopg.connect(self.url, autocommit=True) as db:
            tables = [
                row[0]
                for row in db.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
            ]
            db.execute(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY CASCADE")

    def query(self, statement: str):
        with psycopg.connect(self.url, autocommit=True, connect_timeout=3) as db:
            return db.execute(statement).fetchall()

    def remove(self) -> None:
        subprocess.run(
            ["runuser", "-u", "postgres", "--"] * (os.geteuid() == 0)
            + [str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"],
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="module")
def private_postgres(fault_services, django_db_setup, django_db_blocker):
    cluster = PrivatePostgres()
    try:
        cluster.init()
        with django_db_blocker.unblock():
            cluster.copy_schema()
        yield cluster
    finally:
        cluster.remove()


def send(url: str, number: int) -> tuple[int, str]:
    body, headers = numbered_issue_delivery(
        number,
        secret=WEBHOOK_SECRET,
        delivery_id=f"rel-db-stop-{number}",
        title=f"rocBLAS gemm returns NaN on gfx942 ({number})",
    )
    try:
        answer = requests.post(url, data=body, headers=headers, timeout=30)
    except requests.RequestException as exc:
        return 0, type(exc).__name__
    status = answer.json().get("status", "") if answer.status_code < 300 else answer.text[:200]
    return answer.status_code, status


def counts(postgres: PrivatePostgres) -> dict[str, int]:
    rows = postgres.query(
        "SELECT status, count(*), count(DISTINCT delivery_id) FROM triage_webhookdelivery "
        "WHERE delivery_id LIKE 'rel-db-stop-%' GROUP BY status"
    )
    found = {status: n for status, n, _ in rows}
    found["distinct"] = sum(distinct for _, _, distinct in rows)
    return found


def sends(beat) -> int:
    return beat.log_tail(10**8).count("Sending due task")


def derived(postgres: PrivatePostgres) -> dict[str, int]:
    """How many of the burst's issues are classified, prioritized and indexed."""
    ours = "i.title LIKE 'rocBLAS gemm returns NaN%'"
    has_prediction = (
        "EXISTS (SELECT 1 FROM triage_issueprediction p "
        "WHERE p.issue_id = i.id AND p.model_name = 'environment')"
    )
    has_priority = "EXISTS (SELECT 1 FROM triage_issuepriority q WHERE q.issue_id = i.id)"
    indexed = "EXISTS (SELECT 1 FROM triage_issuesearch s WHERE s.issue_id = i.id)"
    ((classified, prioritized, indexed, done),) = postgres.query(
        f"SELECT count(*) FILTER (WHERE {has_prediction}), count(*) FILTER (WHERE {has_priority}), "
        f"count(*) FILTER (WHERE {indexed}), count(*) FILTER (WHERE {has_prediction} "
        f"AND {has_priority} AND {indexed}) FROM triage_issue i WHERE {ours}"
    )
    ((doubled,),) = postgres.query(
        "SELECT count(*) FROM (SELECT issue_id, model_name FROM triage_issueprediction "
        "GROUP BY 1, 2 HAVING count(*) > 1) d"
    )
    return {
        "classified": classified,
        "prioritized": prioritized,
        "indexed": indexed,
        "done": done,
        "doubled": doubled,
    }


@pytest.fixture
def fixtures_github(fault_services):
    """A GitHub whose ROCm/ROCm is the repository the deliveries name (the fixtures' id).

    Beat syncs the tracked repository by its GitHub id. The session's emulator hands out ids in
    the order its tests add repositories, so there the fixtures' id can be another test's
    repository, whose issues a sync would then rightly store as a rename of ours."""
    with GatedGitHub(token=GITHUB_TOKEN) as github:
        ours = fixture_payload("issues__opened")["repository"]
        assert github.add_repo(REPO)["id"] == ours["id"], "the fixtures' id is another's"
        yield github


@pytest.mark.parametrize("outage_s", [10, 60])
def test_deliveries_while_postgres_is_stopped_are_answered_2xx_and_processed_once(
    cluster, private_postgres, fixtures_github, tmp_path, outage_s
):
    postgres = private_postgres
    postgres.empty()
    spool = tmp_path / "spool"
    env = {
        "DATABASE_URL": postgres.url,
        "WEBHOOK_SPOOL_DIR": spool,
        "GITHUB_API_URL": fixtures_github.url,
        # retries at most 15 s apart (300 s in production): the derived work is done soon
        # after the restart, which is what is asserted; the backoff's cap is a tuning
        "TASK_RETRY_BACKOFF_MAX_S": "15",
    }
    web = cluster.gunicorn(workers=2, WEBHOOK_SPOOL_DRAIN_INTERVAL_S="1", **env)
    worker = cluster.worker("ingest", concurrency=2, **env)
    classifier = cluster.worker("classify", concurrency=2, **env)  # as the README runs it
    beat = cluster.beat(**env)
    cluster.start(web, worker, classifier, beat)
    url = f"{web.url}/webhooks/github/"

    spooled_most, watching, times = 0, threading.Event(), {}

    def watch_spool():
        nonlocal spooled_most
        while not watching.is_set():
            ready = spool / "ready"
            if ready.exists():
                spooled_most = max(spooled_most, len(os.listdir(ready)))
            time.sleep(0.05)

    def outage():
        time.sleep(STOP_AFTER_S)
        times["stopping"] = time.monotonic()
        postgres.stop()
        times["stopped"] = time.monotonic()
        time.sleep(outage_s)
        postgres.start()
        times["started"] = time.monotonic()
        times["beat_sends"] = sends(beat)

    def paced(number: int) -> tuple[int, str]:
        time.sleep(max(0.0, started + (number - 1) / RATE - time.monotonic()))
        return send(url, number)

    numbers = list(range(1, DELIVERIES + 1))
    watcher, stopper = threading.Thread(target=watch_spool), threading.Thread(target=outage)
    watcher.start()
    started = time.monotonic()
    stopper.start()
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            answers = dict(zip(numbers, pool.map(paced, numbers), strict=True))
        burst_s = time.monotonic() - started
        stopper.join()
    finally:
        watching.set()
        watcher.join()

    codes = Counter(code for code, _ in answers.values())
    assert set(codes) <= {200, 202}, {n: a for n, a in answers.items() if a[0] not in (200, 202)}
    statuses = Counter(status for _, status in answers.values())
    assert statuses["spooled"] > 0, "the outage came too late: no delivery met it"

    # nobody redelivers and nobody runs a command: the web processes drain their spools
    wait_for(
        lambda: counts(postgres)["distinct"] == DELIVERIES and not os.listdir(spool / "ready"),
        timeout=120,
        interval=0.2,
        message=f"not all stored after the restart: {counts(postgres)}",
    )
    drained_s = time.monotonic() - times["started"]
    wait_for(
        lambda: counts(postgres).get("processed") == DELIVERIES,
        timeout=180,
        interval=0.5,
        message=f"not all processed: {counts(postgres)}",
    )
    processed_s = time.monotonic() - times["started"]

    final = counts(postgres)
    assert final == {"processed": DELIVERIES, "distinct": DELIVERIES}
    ((issues,),) = postgres.query(
        "SELECT count(*) FROM triage_issue WHERE title LIKE 'rocBLAS gemm returns NaN%'"
    )
    assert issues == DELIVERIES
    attempts = dict(
        postgres.query(
            "SELECT attempts, count(*) FROM triage_webhookdelivery "
            "WHERE delivery_id LIKE 'rel-db-stop-%' GROUP BY attempts ORDER BY attempts"
        )
    )
    # what the deliveries should cause: classification (with priority) and search indexing
    wait_for(
        lambda: derived(postgres)["done"] == DELIVERIES,
        timeout=300,  # retries at most TASK_RETRY_BACKOFF_MAX_S apart, and jittered
        interval=1.0,
        message=f"derived work lost: {derived(postgres)}",
    )
    derived_s = time.monotonic() - times["started"]
    done = derived(postgres)
    assert done["classified"] == done["prioritized"] == done["indexed"] == DELIVERIES, done
    assert done["doubled"] == 0, done
    retries = classifier.log_tail(10**8).count(" retry: Retry in ")
    assert beat.alive(), f"beat ended in the outage:\n{beat.log_tail()}"
    wait_for(
        lambda: sends(beat) > times["beat_sends"],
        timeout=90,  # its every-minute sweep of pending deliveries
        interval=1.0,
        message=f"beat sends nothing after the outage:\n{beat.log_tail()}",
    )

    quarantine = spool / "quarantine"
    assert not quarantine.exists() or not os.listdir(quarantine)
    record(
        f"Postgres stopped {outage_s} s during a webhook burst",
        deliveries=DELIVERIES,
        rate_per_s=RATE,
        burst_s=round(burst_s, 1),
        postgres_down_s=round(times["started"] - times["stopping"], 1),
        answers=dict(codes),
        statuses=dict(statuses),
        spooled_at_most=spooled_most,
        stored_and_spool_empty_s_after_restart=round(drained_s, 1),
        processed_s_after_restart=round(processed_s, 1),
        processing_attempts=attempts,
        issues=issues,
        duplicates=0,
        classified_prioritized_indexed_s_after_restart=round(derived_s, 1),
        pipeline_retries=retries,
        beat_alive=True,
    )
