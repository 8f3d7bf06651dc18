"""Webhook acceptance latency: POST /webhooks/github/ under gunicorn, Postgres and Redis.

Starts the service under gunicorn on 127.0.0.1 (a scratch Postgres database, migrated first;
REDIS_URL set, so the view verifies the signature, stores the delivery and enqueues its
processing on the broker; no Celery worker runs, since acceptance is what is measured), then
sends signed `issues` `opened` deliveries, each with its own X-GitHub-Delivery id and a varied
payload built from tests/fixtures/github_webhooks/issues__opened.json, from a bounded pool of
threads, each delivery on its own connection (as GitHub sends them).

Prints p50/p90/p99/max latency per delivery as the client saw it, deliveries/s, and checks that
every delivery was answered 202, stored exactly once (rows counted in the database) and enqueued
once (the delivery ids in the batches on the broker's ingest queue). Client, gunicorn, Postgres
and Redis share the machine's cores. Traffic goes to 127.0.0.1 only.

    python benchmarks/webhook_latency.py --deliveries 2000 --concurrency 8
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import statistics
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import harness, pipeline_stack  # noqa: E402
from tests.fakes.github_webhooks import delivery_headers, fixture_payload  # noqa: E402

SECRET = "benchmark-webhook-secret"  # noqa: S105 - shared with the gunicorn we start


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _payloads(count: int, start: int) -> list[tuple[str, bytes]]:
    """(delivery id, body) pairs: distinct issues, titles and bodies, in the fixture's shape."""
    template = fixture_payload("issues__opened")
    made = []
    for offset in range(count):
        payload = json.loads(json.dumps(template))
        number = start + offset
        issue = payload["issue"]
        issue["number"] = number
        issue["id"] = 50_000_000 + number
        issue["title"] = f"{issue['title']} (benchmark {number})"
        issue["body"] = f"{issue['body']}\n\nSeen again in run {number}."
        for key in ("url", "labels_url", "comments_url", "events_url", "html_url"):
            issue[key] = issue[key].replace("/4321", f"/{number}")
        made.append((str(uuid.uuid4()), json.dumps(payload).encode()))
    return made


def _wait_ready(url: str, proc: subprocess.Popen, timeout: float) -> None:
    import requests

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("gunicorn exited while starting")
        try:
            if requests.get(url + "healthz", timeout=1).status_code < 500:
                return
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise RuntimeError("gunicorn did not answer in time")


def post(url: str, body: bytes, headers: dict, timeout: float = 30) -> int:
    """POST as GitHub's sender does, one connection per delivery (gunicorn's sync workers close
    each after its answer); the answer's status. http.client, not requests: on this machine the
    client shares the two cores with the service, and requests spends 1.5 ms of CPU per POST,
    http.client 0.4 ms."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        connection.request("POST", parts.path, body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def _send_all(url, deliveries, concurrency, deadline) -> tuple[list[float], list[int], float]:
    def send(item):
        delivery_id, body = item
        if time.monotonic() > deadline:
            return None, 0
        headers = delivery_headers("issues", body, SECRET, delivery_id)
        started = time.perf_counter()
        try:
            status = post(url, body, headers)
        except (OSError, http.client.HTTPException):
            status = 0
        return time.perf_counter() - started, status

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        results = list(pool.map(send, deliveries))
    elapsed = time.perf_counter() - started
    return [r[0] for r in results if r[0] is not None], [r[1] for r in results], elapsed


def _percentile(sorted_values: list[float], fraction: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(fraction * len(sorted_values)) - 1))
    return sorted_values[index]


def enqueued_deliveries(broker, queue: str = "ingest", settle: float = 1.0) -> tuple[int, list]:
    """(messages, delivery ids) on the queue: the web processes send their deliveries in batches
    (triage/sources/github/webhooks.py), so this waits `settle` seconds for the last batch first."""
    import base64

    time.sleep(settle)
    ids: list = []
    raw = broker.lrange(queue, 0, -1)
    for message in raw:
        envelope = json.loads(message)
        task = envelope["headers"]["task"]
        args = json.loads(base64.b64decode(envelope["body"]))[0]
        if task == "triage.tasks.process_webhook_deliveries":
            ids += args[0]
        elif task == "triage.tasks.process_webhook_delivery":
            ids.append(args[0])
    return len(raw), ids


def _count_rows(database_url: str) -> tuple[int, int]:
    with harness.connect(database_url) as conn:
        return conn.execute(
            "SELECT count(*), count(DISTINCT delivery_id) FROM triage_webhookdelivery"
        ).fetchone()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deliveries", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--warmup", type=int, default=100, help="deliveries sent before timing")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes")
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/bench_webhooks"
    )
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/14")
    parser.add_argument("--max-seconds", type=float, default=300, help="stop sending after this")
    args = parser.parse_args()
    if not args.database_url.startswith("postgres"):
        raise SystemExit("this benchmark runs against Postgres")
    broker = pipeline_stack.redis_scratch(args.redis_url)

    port = _free_port()
    url = f"http://127.0.0.1:{port}/"
    print(
        f"# {args.deliveries} deliveries, {args.concurrency} client threads, gunicorn "
        f"-w {args.workers}; {harness.machine()}; client, gunicorn, Postgres, Redis share it"
    )
    with harness.scratch_database(args.database_url) as database_url:
        harness.migrate(database_url)
        env = harness.base_env(
            DATABASE_URL=database_url,
            REDIS_URL=args.redis_url,
            GITHUB_WEBHOOK_SECRET=SECRET,
            PYTHONWARNINGS="ignore:No directory at",  # whitenoise: no collectstatic for this
        )
        gunicorn = subprocess.Popen(
            [
                str(Path(harness.PYTHON).parent / "gunicorn"),
                "config.wsgi",
                "-w",
                str(args.workers),
                "-b",
                f"127.0.0.1:{port}",
                "--log-level",
                "warning",
            ],
            cwd=harness.ROOT,
            env=env,
        )
        try:
            _wait_ready(url, gunicorn, timeout=60)
            hook = url + "webhooks/github/"
            deadline = time.monotonic() + args.max_seconds
            _send_all(hook, _payloads(args.warmup, 1), args.concurrency, deadline)
            deliveries = _payloads(args.deliveries, 1 + args.warmup)
            latencies, statuses, elapsed = _send_all(hook, deliveries, args.concurrency, deadline)
            rows, distinct = _count_rows(database_url)
            messages, enqueued = enqueued_deliveries(broker)
        finally:
            harness.stop_process(gunicorn)
            broker.flushdb()
    ms = sorted(value * 1000 for value in latencies)
    sent = args.warmup + args.deliveries
    print(
        f"latency per delivery: p50 {_percentile(ms, 0.5):.1f} ms, p90 {_percentile(ms, 0.9):.1f}"
        f" ms, p99 {_percentile(ms, 0.99):.1f} ms, max {ms[-1]:.1f} ms "
        f"(mean {statistics.fmean(ms):.1f} ms over {len(ms)})"
    )
    print(f"throughput: {len(ms) / elapsed:,.0f} deliveries/s")
    codes = {code: statuses.count(code) for code in sorted(set(statuses))}
    print(
        f"answers: {codes}; stored rows {rows} ({distinct} distinct delivery ids) for {sent} "
        f"sent incl. {args.warmup} warm-up; enqueued {len(enqueued)} ({len(set(enqueued))} "
        f"distinct) in {messages} messages on the ingest queue"
    )
    if len(ms) != args.deliveries or codes != {202: args.deliveries}:
        raise SystemExit("not every delivery was answered 202 (time limit or errors)")
    if rows != sent or distinct != sent or len(enqueued) != sent or len(set(enqueued)) != sent:
        raise SystemExit("deliveries were not stored and enqueued exactly once each")
    print("OK: every delivery answered 202, stored once and enqueued once")


if __name__ == "__main__":
    main()
