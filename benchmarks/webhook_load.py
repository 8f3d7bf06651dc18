"""Webhook load: a sustained rate of mixed deliveries under gunicorn, with the workers behind it.

Starts, on 127.0.0.1, the service under gunicorn (a scratch Postgres database, migrated; REDIS_URL
set), real `celery worker` processes on the ingest, classify and releases queues (models trained
first and a release series configured: benchmarks/pipeline_stack.py, so every stage of the
pipeline runs as deployed), and the GitHub emulator (the commit messages of merged pull requests
are read from "GitHub" on the ingest queue; the emulator answers 404 for these, stored as none).

Then sends signed deliveries in GitHub's shape, built from tests/fixtures/github_webhooks/ with
their numbers, ids, timestamps and texts varied, each with its own X-GitHub-Delivery id:
--warmup `issues` `opened` deliveries first (closed loop; the run waits until the workers have
done them), then cycles of five: `issues` opened, edited, labeled and `issue_comment` created for
a new issue, and `pull_request` closed (merged, "Fixes #N" of a warm-up issue). They go out open
loop at --rate deliveries/s (each has its due time; --rate 0: as fast as --concurrency client
threads get answers), each on its own connection (as GitHub sends them). A delivery's latency is
from its due time to its answer, so time spent waiting for a free client thread counts too.

Prints p50/p90/p99/max latency, the sustained rate, the time the workers took to process the
backlog after the last answer (every delivery processed, then every queue empty), the queue
depths over time, and checks: every delivery answered 202, stored once (rows and distinct
delivery ids), processed once (status processed, one claim each), every issue and PR stored once
and every comment once, every merged PR's fix link made.

    python benchmarks/webhook_load.py --rate 300 --cycles 2000
    python benchmarks/webhook_load.py --rate 0 --cycles 2000 --concurrency 8
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import statistics
import subprocess
import sys
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import harness, pipeline_stack  # noqa: E402
from benchmarks.webhook_latency import (  # noqa: E402
    _free_port,
    _percentile,
    _wait_ready,
    enqueued_deliveries,
    post,
)
from tests.fakes.github_webhooks import delivery_headers, fixture_payload  # noqa: E402

SECRET = "benchmark-webhook-secret"  # noqa: S105 - shared with the gunicorn we start
REPO = "ROCm/ROCm"  # the fixtures' repository; tracked on its first delivery
BASE = datetime(2026, 11, 1, tzinfo=UTC)
PR_NUMBERS = 500_000  # pull request numbers start here, issue numbers at 1
MIX = ("issues.opened", "issues.edited", "issues.labeled", "issue_comment.created", "pr.merged")


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _issue(template: dict, number: int, updated: datetime) -> dict:
    issue = json.loads(json.dumps(template))
    old = f"/{issue['number']}"
    issue["number"], issue["id"] = number, 60_000_000 + number
    issue["node_id"] = f"I_bench{number}"
    issue["title"] = f"{issue['title']} (load {number})"
    issue["body"] = f"{issue['body']}\n\nSeen again in run {number}."
    for key in ("url", "repository_url", "labels_url", "comments_url", "events_url", "html_url"):
        if isinstance(issue.get(key), str) and key != "repository_url":
            issue[key] = issue[key].replace(old, f"/{number}")
    issue["created_at"], issue["updated_at"] = _iso(BASE + timedelta(minutes=number)), _iso(updated)
    return issue


class Deliveries:
    """The fixtures, varied: one method per kind of delivery, each (event, delivery id, body)."""

    def __init__(self):
        self.fixtures = {
            name: fixture_payload(name)
            for name in (
                "issues__opened",
                "issues__edited",
                "issues__labeled",
                "issue_comment__created",
                "pull_request__closed_merged",
            )
        }

    def _make(self, event: str, payload: dict) -> tuple[str, str, bytes, dict]:
        body = json.dumps(payload).encode()
        delivery_id = str(uuid.uuid4())
        return event, delivery_id, body, delivery_headers(event, body, SECRET, delivery_id)

    def _updated(self, number: int, step: int) -> datetime:
        return BASE + timedelta(minutes=number, seconds=10 * step + 1)

    def issue_event(self, action: str, number: int, step: int):
        payload = json.loads(json.dumps(self.fixtures[f"issues__{action}"]))
        payload["issue"] = _issue(payload["issue"], number, self._updated(number, step))
        return self._make("issues", payload)

    def comment(self, number: int, step: int):
        payload = json.loads(json.dumps(self.fixtures["issue_comment__created"]))
        updated = self._updated(number, step)
        payload["issue"] = _issue(payload["issue"], number, updated)
        comment = payload["comment"]
        old = f"/{self.fixtures['issue_comment__created']['issue']['number']}"
        comment["id"] = 70_000_000 + number
        comment["node_id"] = f"IC_bench{number}"
        for key in ("url", "html_url", "issue_url"):
            comment[key] = (
                comment[key].replace(old, f"/{number}").replace("1000005", str(comment["id"]))
            )
        comment["body"] = f"Reproduced on gfx942 with ROCm 7.1.0 (run {number})."
        comment["created_at"] = comment["updated_at"] = _iso(updated)
        return self._make("issue_comment", payload)

    def merged_pull(self, index: int, fixes: int):
        payload = json.loads(json.dumps(self.fixtures["pull_request__closed_merged"]))
        number = PR_NUMBERS + index
        pull = payload["pull_request"]
        old = f"/{pull['number']}"
        payload["number"] = pull["number"] = number
        pull["id"], pull["node_id"] = 80_000_000 + index, f"PR_bench{index}"
        for key, value in list(pull.items()):
            if isinstance(value, str) and value.startswith("https://") and old in value:
                pull[key] = value.replace(old, f"/{number}")
        pull["title"] = f"Fix the stream before hipMemcpyAsync (load {index})"
        pull["body"] = f"Fixes #{fixes}\n\nInitialise the stream first."
        pull["head"]["sha"] = f"{index:040x}"
        pull["merge_commit_sha"] = hashlib.sha1(f"merge {index}".encode()).hexdigest()
        updated = _iso(BASE + timedelta(days=20, seconds=index))
        pull["updated_at"] = pull["closed_at"] = pull["merged_at"] = updated
        return self._make("pull_request", payload)

    def cycle(self, index: int, number: int, fixes: int) -> list:
        return [
            self.issue_event("opened", number, 0),
            self.issue_event("edited", number, 1),
            self.issue_event("labeled", number, 2),
            self.comment(number, 3),
            self.merged_pull(index, fixes),
        ]


def _send(url: str, items: list, rate: float, concurrency: int, max_seconds: float):
    """Send every item, open loop at `rate`/s (0: closed loop); [(latency, service, status)]."""
    results: list[tuple[float, float, int] | None] = [None] * len(items)
    lock = threading.Lock()
    position = [0]
    start = time.perf_counter() + 0.2
    finished = [start]

    def client() -> None:
        while True:
            with lock:
                index = position[0]
                position[0] += 1
            if index >= len(items):
                return
            due = start + index / rate if rate else time.perf_counter()
            wait = due - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            if time.perf_counter() - start > max_seconds:
                continue
            _, _, body, headers = items[index]
            sent = time.perf_counter()
            try:
                status = post(url, body, headers, timeout=60)
            except (OSError, http.client.HTTPException):
                status = 0
            done = time.perf_counter()
            results[index] = (done - due, done - sent, status)
            with lock:
                finished[0] = max(finished[0], done)

    threads = [threading.Thread(target=client, daemon=True) for _ in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results, finished[0] - start


def _query(database_url: str, sql: str):
    with harness.connect(database_url) as conn:
        return conn.execute(sql).fetchall()


def _statuses(database_url: str) -> dict[str, int]:
    return dict(
        _query(database_url, "SELECT status, count(*) FROM triage_webhookdelivery GROUP BY status")
    )


def _wait_processed(database_url: str, expected: int, timeout: float) -> float | None:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        statuses = _statuses(database_url)
        if sum(v for k, v in statuses.items() if k != "pending") >= expected:
            return time.monotonic() - started
        time.sleep(0.5)
    return None


def _checks(database_url: str) -> dict:
    (deliveries,) = _query(
        database_url,
        "SELECT count(*), count(DISTINCT delivery_id), sum(attempts), max(attempts),"
        " count(*) FILTER (WHERE status = 'processed') FROM triage_webhookdelivery",
    )
    (issues,) = _query(
        database_url,
        "SELECT count(*), count(DISTINCT (repository_id, number)),"
        " count(*) FILTER (WHERE is_pull_request) FROM triage_issue",
    )
    (comments,) = _query(
        database_url, "SELECT count(*), count(DISTINCT github_id) FROM triage_comment"
    )
    (links,) = _query(
        database_url,
        "SELECT count(*), count(DISTINCT pull_request_id),"
        " count(*) FILTER (WHERE train_version <> '') FROM releases_fixlink",
    )
    (classified,) = _query(
        database_url,
        "SELECT count(DISTINCT p.issue_id) FROM triage_issueprediction p JOIN triage_issue i"
        " ON i.id = p.issue_id WHERE p.model_name = 'kind' AND NOT i.is_pull_request",
    )
    errors = _query(
        database_url,
        "SELECT status, left(error, 300), count(*) FROM triage_webhookdelivery"
        " WHERE status <> 'processed' GROUP BY 1, 2 ORDER BY 3 DESC LIMIT 5",
    )
    return {
        "deliveries": deliveries[0],
        "distinct_deliveries": deliveries[1],
        "claims": deliveries[2],
        "most_claims": deliveries[3],
        "processed": deliveries[4],
        "issues": issues[0],
        "distinct_issues": issues[1],
        "pulls": issues[2],
        "comments": comments[0],
        "distinct_comments": comments[1],
        "fix_links": links[0],
        "linked_pulls": links[1],
        "links_with_train": links[2],
        "classified": classified[0],
        "not_processed": errors,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=2000, help="cycles of 5 deliveries")
    parser.add_argument("--rate", type=float, default=300, help="deliveries/s; 0: closed loop")
    parser.add_argument("--concurrency", type=int, default=16, help="client threads")
    parser.add_argument("--warmup", type=int, default=100, help="issues opened before timing")
    parser.add_argument("--gunicorn-workers", type=int, default=4)
    parser.add_argument(
        "--worker",
        action="append",
        help="QUEUE:CONCURRENCY, repeatable (default ingest:2 classify:1 releases:1)",
    )
    parser.add_argument("--no-workers", action="store_true", help="acceptance only, no Celery")
    parser.add_argument(
        "--worker-nice", type=int, default=0, help="run the Celery workers under nice -n N"
    )
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/bench_webhook_load"
    )
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/8")
    parser.add_argument("--max-seconds", type=float, default=600, help="stop sending after this")
    parser.add_argument("--drain-timeout", type=float, default=1800)
    parser.add_argument("--keep-logs", help="copy the workers' logs to this folder")
    parser.add_argument("--json", help="write the figures as JSON to this file")
    args = parser.parse_args()
    if not args.database_url.startswith("postgres"):
        raise SystemExit("this benchmark runs against Postgres")
    workers = (
        {}
        if args.no_workers
        else pipeline_stack.parse_workers(args.worker or ["ingest:2", "classify:1", "releases:1"])
    )
    load_before = pipeline_stack.uptime()
    print(
        f"# {args.cycles * 5:,} deliveries ({args.cycles:,} cycles of {', '.join(MIX)}) at "
        f"{args.rate or 'max'}/s from {args.concurrency} client threads; gunicorn "
        f"-w {args.gunicorn_workers}; Celery workers {workers or 'none'}"
        f"{f' at nice {args.worker_nice}' if args.worker_nice else ''}; {harness.machine()}; "
        f"client, gunicorn, workers, Postgres, Redis share it\n# before: {load_before}",
        flush=True,
    )
    figures = pipeline_stack.run_in_scratch(
        args,
        lambda args, scratch: _run(args, workers, scratch),
        prefix="bench-webhook-load-",
        train=bool(workers),
    )
    if figures["problems"]:
        raise SystemExit("FAILED: " + "; ".join(figures["problems"]))
    print(
        "OK: every delivery answered 202 and stored once"
        + (
            "; processed once; every issue, PR and comment stored once"
            if workers
            else "; enqueued once"
        )
    )


def _run(args, workers: dict[str, int], scratch: Path) -> dict:
    broker = pipeline_stack.redis_scratch(args.redis_url)
    port = _free_port()
    url = f"http://127.0.0.1:{port}/"
    with (
        harness.scratch_database(args.database_url) as database_url,
        harness.github_emulator(repo=REPO, issues=0) as (github_url, _emulator),
    ):
        harness.migrate(database_url)
        pipeline_stack.series_create(database_url)
        env = harness.base_env(
            DATABASE_URL=database_url,
            REDIS_URL=args.redis_url,
            GITHUB_WEBHOOK_SECRET=SECRET,
            GITHUB_API_URL=github_url,
            GITHUB_TOKEN=harness.TOKEN,
            CLASSIFIER_ARTIFACT_DIR=str(scratch / "models"),
            PYTHONWARNINGS="ignore:No directory at",  # whitenoise: no collectstatic for this
        )
        gunicorn = subprocess.Popen(
            [
                str(Path(harness.PYTHON).parent / "gunicorn"),
                "config.wsgi",
                *("-w", str(args.gunicorn_workers), "-b", f"127.0.0.1:{port}"),
                *("--log-level", "warning"),
            ],
            cwd=harness.ROOT,
            env=env,
        )
        try:
            _wait_ready(url, gunicorn, timeout=60)
            if workers:
                with pipeline_stack.celery_workers(
                    env=env, workers=workers, log_dir=scratch, nice=args.worker_nice
                ) as logs:
                    return _measure(args, url + "webhooks/github/", database_url, logs)
            return _measure(args, url + "webhooks/github/", database_url, [])
        finally:
            harness.stop_process(gunicorn)
            broker.flushdb()


def _measure(args, hook: str, database_url: str, logs: list[Path]) -> dict:
    made = Deliveries()
    warmup = [made.issue_event("opened", number, 0) for number in range(1, args.warmup + 1)]
    items = []
    for index in range(args.cycles):
        items += made.cycle(index, args.warmup + 1 + index, fixes=1 + index % args.warmup)
    _send(hook, warmup, 0, args.concurrency, args.max_seconds)
    if logs and _wait_processed(database_url, args.warmup, 300) is None:
        raise SystemExit("the warm-up deliveries were not processed in 300s")
    if logs:
        warm = pipeline_stack.QueueDepths(args.redis_url, interval=1.0)
        warm.start()
        warm.wait_idle(timeout=300)
        warm.stop()
    depths = pipeline_stack.QueueDepths(args.redis_url, interval=1.0)
    depths.start()
    results, elapsed = _send(hook, items, args.rate, args.concurrency, args.max_seconds)
    sent_at = time.monotonic() - depths.started
    processed_after = drained_after = None
    sent = args.warmup + len(items)
    if logs:
        processed_after = _wait_processed(database_url, sent, args.drain_timeout)
        idle_at = depths.wait_idle(timeout=args.drain_timeout)
        drained_after = None if idle_at is None else max(0.0, idle_at - sent_at)
    depths.stop()
    checks = _checks(database_url)
    enqueued = None
    if not logs:  # nothing consumed the ingest queue: every delivery id must be on it once
        import redis

        _, enqueued = enqueued_deliveries(redis.Redis.from_url(args.redis_url))

    answered = [r for r in results if r is not None]
    ms = sorted(r[0] * 1000 for r in answered)
    service = sorted(r[1] * 1000 for r in answered)
    codes: dict[int, int] = {}
    for r in answered:
        codes[r[2]] = codes.get(r[2], 0) + 1
    rate = len(answered) / elapsed
    print(
        f"latency from due time: p50 {_percentile(ms, 0.5):.1f} ms, p90 {_percentile(ms, 0.9):.1f}"
        f" ms, p99 {_percentile(ms, 0.99):.1f} ms, max {ms[-1]:.1f} ms (mean "
        f"{statistics.fmean(ms):.1f} ms over {len(ms):,}); request alone: p50 "
        f"{_percentile(service, 0.5):.1f}, p99 {_percentile(service, 0.99):.1f} ms"
    )
    print(
        f"sustained: {rate:,.0f} deliveries/s over {elapsed:.1f}s (target {args.rate or 'max'}/s)"
    )
    print(f"answers: {codes}")
    if logs:
        backlog = (
            f"all {sent:,} processed {processed_after:.1f}s after the last answer"
            if processed_after is not None
            else "NOT all processed"
        )
        drained = f"{drained_after:.1f}s" if drained_after is not None else "never"
        print(f"workers: {backlog}; every queue empty {drained} after it")
        depths.print_series()
        depths.print_summary()
        stats, failed = pipeline_stack.task_times(logs)
        pipeline_stack.print_task_times(stats)
        print(f"failed or retried tasks in the workers' logs: {failed}")
    else:
        stats, failed = {}, 0
    print(
        f"stored: {checks['deliveries']:,} deliveries ({checks['distinct_deliveries']:,} distinct "
        f"ids) for {sent:,} sent; processed {checks['processed']:,} with {checks['claims']:,} "
        f"claims (at most {checks['most_claims']} each); {checks['issues']:,} issues and PRs "
        f"({checks['distinct_issues']:,} distinct), {checks['comments']:,} comments "
        f"({checks['distinct_comments']:,} distinct), {checks['fix_links']:,} fix links "
        f"({checks['links_with_train']:,} with a train), {checks['classified']:,} issues classified"
    )
    problems = []
    if len(answered) != len(items) or codes != {202: len(items)}:
        problems.append(f"answers {codes} for {len(items)} deliveries (time limit or errors)")
    if checks["deliveries"] != sent or checks["distinct_deliveries"] != sent:
        problems.append("deliveries were not stored exactly once each")
    if enqueued is not None:
        print(f"enqueued: {len(enqueued):,} delivery ids ({len(set(enqueued)):,} distinct)")
        if len(enqueued) != sent or len(set(enqueued)) != sent:
            problems.append(f"{len(enqueued)} deliveries enqueued for {sent}")
    if logs:
        issues = args.warmup + 2 * args.cycles
        if checks["processed"] != sent or checks["claims"] != sent:
            problems.append(
                f"{checks['processed']} processed, {checks['claims']} claims for {sent}: "
                f"{checks['not_processed']}"
            )
        if checks["issues"] != issues or checks["distinct_issues"] != issues:
            problems.append(f"{checks['issues']} issue rows for {issues} issues and PRs")
        if checks["comments"] != args.cycles or checks["distinct_comments"] != args.cycles:
            problems.append(f"{checks['comments']} comment rows for {args.cycles}")
        if checks["linked_pulls"] != args.cycles:
            problems.append(f"{checks['linked_pulls']} of {args.cycles} merged PRs linked")
        if drained_after is None:
            problems.append("the queues never emptied")
        if failed:
            problems.append(f"{failed} failed or retried tasks")
    return {
        "deliveries": len(items),
        "rate_target": args.rate,
        "sustained_per_s": rate,
        "seconds": elapsed,
        "p50_ms": _percentile(ms, 0.5),
        "p90_ms": _percentile(ms, 0.9),
        "p99_ms": _percentile(ms, 0.99),
        "max_ms": ms[-1],
        "service_p99_ms": _percentile(service, 0.99),
        "codes": codes,
        "processed_after_s": processed_after,
        "drained_after_s": drained_after,
        "queues": depths.summary(),
        "samples": [(round(t, 1), d, u) for t, d, u in depths.samples],
        "checks": checks,
        "tasks": stats,
        "problems": problems,
    }


if __name__ == "__main__":
    main()
