"""Backfill throughput: GitHub emulator -> PyGithub -> our GitHub sync -> Postgres or SQLite.

The sync is triage.sources.github.sync.

Measures, for one repository of N issues (every 10th a pull request) and K comments per issue:
- issues/s end to end: issues (and PRs) stored / wall time of `repository_sync` (the issues,
  pulls and comments listings, every page through the real PyGithub client over HTTP from the
  emulator CLI running as a separate process on 127.0.0.1, written with the real upserts);
- HTTP requests the sync used (as GitHub would count them) and SQL queries per page;
- the part of the wall time spent in HTTP requests (emulator, PyGithub, JSON parsing);
- peak RSS of the syncing process (resource.getrusage, ru_maxrss) and its CPU time, and the CPU
  time the emulator spent meanwhile (it shares the machine's cores with the sync and the database);
- the wall time of each step (issues, pulls, comments, and the commit messages of merged pull
  requests, one request each) and issues/s of the listings alone, without the commits step.

The emulator serializes its items before it answers READY (GitHub's own work is not on our cores
in a real backfill); --lazy-emulator makes it serialize them when first served instead.

Each run gets a fresh scratch database (Postgres: created and dropped on the server of
--database-url; SQLite: a temporary file), migrated before the clock starts.

What runs after ingestion (classification, repro-case extraction, fix links: triage/pipeline.py)
is enqueued on Redis as in the real deployment (--redis-url, a scratch db that must be empty and
is flushed after each run; no worker consumes it). `--redis-url inline` runs those steps in the
syncing process instead, as the embedded deployment without REDIS_URL does.

    python benchmarks/backfill.py --issues 10000 --database-url postgres://postgres@127.0.0.1:5432/bench_backfill
    python benchmarks/backfill.py --issues 100000 --database-url sqlite
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import harness  # noqa: E402

REPO = "bench/backfill"


def _cpu_seconds_of(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _worker(args: argparse.Namespace) -> None:
    """In the child: sync the repository once and print the figures as one JSON line."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from django.db import connection

    from triage.models import Issue, SyncState
    from triage.sources.github import sync
    from triage.sources.github.client import GitHubSource
    from triage.sources.github.ingest import repository_get_or_create

    class TimedSource(GitHubSource):
        """The real source; also sums the wall time spent waiting for GitHub's answers."""

        http_seconds = 0.0

        def get(self, *a, **k):
            started = time.perf_counter()
            try:
                return super().get(*a, **k)
            finally:
                self.http_seconds += time.perf_counter() - started

    source = TimedSource()
    repository = repository_get_or_create(full_name=REPO)
    queries = [0]
    steps: dict[str, float] = {}
    last = [0.0]

    def progress(resource: str, count: int, total_guess) -> None:
        """Each page's time since the previous page goes to the step the page belongs to."""
        now = time.perf_counter()
        steps[resource] = steps.get(resource, 0.0) + now - last[0]
        last[0] = now

    def count(execute, sql, params, many, context):
        queries[0] += 1
        return execute(sql, params, many, context)

    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    cpu_before = time.process_time()
    with connection.execute_wrapper(count):
        started = last[0] = time.perf_counter()
        if profiler:
            profiler.enable()
        report = sync.repository_sync(repository=repository, source=source, progress=progress)
        if profiler:
            profiler.disable()
        seconds = time.perf_counter() - started
    if profiler:
        profiler.dump_stats(args.profile)
    by_resource = dict(
        SyncState.objects.filter(repository=repository).values_list("resource", "requests_used")
    )
    pages = sum(v for k, v in by_resource.items() if k != "commits")
    print(
        json.dumps(
            {
                "seconds": seconds,
                "cpu_seconds": time.process_time() - cpu_before,
                "http_seconds": source.http_seconds,
                "issues": Issue.objects.filter(repository=repository).count(),
                "fetched": report.fetched,
                "created": report.created,
                "requests": report.requests,
                "pages": pages,
                "queries": queries[0],
                "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "rss_before_sync_mib": rss_before,
                "step_seconds": steps,
                "requests_by_resource": by_resource,
                "merged_pulls_read": Issue.objects.filter(repository=repository, merged=True)
                .exclude(commits_head_sha="")
                .count(),
            }
        )
    )


def _broker(url: str):
    if url == "inline":
        return None
    import redis

    broker = redis.Redis.from_url(url)
    if broker.dbsize():
        raise SystemExit(f"{url} is not empty; refusing to use (and flush) it")
    return broker


def _one_run(args: argparse.Namespace, emulator_url: str, emulator_pid: int) -> dict:
    broker = _broker(args.redis_url)
    with harness.scratch_database(args.database_url) as database_url:
        harness.migrate(database_url)
        env = harness.base_env(
            DATABASE_URL=database_url, GITHUB_API_URL=emulator_url, GITHUB_TOKEN=harness.TOKEN
        )
        if broker is not None:
            env["REDIS_URL"] = args.redis_url
        argv = [__file__, "--worker"] + (["--profile", args.profile] if args.profile else [])
        emulator_cpu = _cpu_seconds_of(emulator_pid)
        try:
            result = harness.run_json(argv, env, timeout=args.timeout)
        finally:
            if broker is not None:
                broker.flushdb()
        result["emulator_cpu_seconds"] = _cpu_seconds_of(emulator_pid) - emulator_cpu
    expected = args.issues
    if result["issues"] != expected or result["created"] < expected:
        raise SystemExit(f"sync stored {result['issues']} issues, expected {expected}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--issues", type=int, default=10_000)
    parser.add_argument("--comments-per-issue", type=int, default=0)
    parser.add_argument(
        "--database-url",
        default=harness.DEFAULT_POSTGRES,
        help="postgres://USER@HOST:PORT/bench_NAME (created and dropped) or 'sqlite' (temp file)",
    )
    parser.add_argument("--runs", type=int, default=1, help="fresh database each run")
    parser.add_argument(
        "--redis-url",
        default="redis://127.0.0.1:6379/12",
        help="broker for the pipeline's tasks (an empty scratch db), or 'inline'",
    )
    parser.add_argument("--timeout", type=float, default=900, help="seconds per sync run")
    parser.add_argument("--profile", help="write a cProfile dump of the sync to this path")
    parser.add_argument(
        "--lazy-emulator", action="store_true", help="the emulator serializes items when served"
    )
    parser.add_argument(
        "--rate-limit",
        type=int,
        default=1_000_000,
        help="the emulator's requests per hour (GitHub's 5,000 would stop a 100,000-issue run)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker(args)
        return

    backend = "sqlite" if args.database_url.startswith("sqlite") else "postgres"
    print(
        f"# backfill {args.issues} issues x {args.comments_per_issue} comments into {backend}, "
        f"pipeline {'inline' if args.redis_url == 'inline' else 'enqueued on Redis'}; "
        f"{harness.machine()}; the emulator runs on the same cores",
        flush=True,
    )
    setup_started = time.perf_counter()
    with harness.github_emulator(
        repo=REPO,
        issues=args.issues,
        comments_per_issue=args.comments_per_issue,
        lazy=args.lazy_emulator,
        rate_limit=args.rate_limit,
    ) as (url, emulator):
        print(
            f"# emulator ready in {time.perf_counter() - setup_started:.1f}s at {url}", flush=True
        )
        runs = []
        for number in range(1, args.runs + 1):
            result = _one_run(args, url, emulator.pid)
            runs.append(result)
            comments = args.issues * args.comments_per_issue
            print(
                f"run {number}: {result['issues'] / result['seconds']:,.0f} issues/s "
                f"({result['fetched'] / result['seconds']:,.0f} items/s incl. PR details"
                f"{f' and {comments} comments' if comments else ''}), "
                f"{result['seconds']:.1f}s ({result['http_seconds']:.1f}s of it in HTTP), "
                f"{result['requests']} HTTP requests, "
                f"{result['queries'] / max(1, result['pages']):.1f} SQL queries/page, "
                f"peak RSS {result['peak_rss_mib']:.0f} MiB "
                f"(before sync {result['rss_before_sync_mib']:.0f}), "
                f"CPU sync {result['cpu_seconds']:.1f}s, emulator "
                f"{result['emulator_cpu_seconds']:.1f}s",
                flush=True,
            )
            steps = result["step_seconds"]
            listings = result["seconds"] - steps.get("commits", 0.0)
            result["listings_issues_per_s"] = result["issues"] / listings
            print(
                "  steps: "
                + ", ".join(f"{name} {seconds:.1f}s" for name, seconds in steps.items())
                + f"; requests {result['requests_by_resource']}; "
                f"commit messages of {result['merged_pulls_read']} merged PRs; "
                f"listings alone {result['listings_issues_per_s']:,.0f} issues/s",
                flush=True,
            )
    rates = [r["issues"] / r["seconds"] for r in runs]
    listing_rates = [r["listings_issues_per_s"] for r in runs]
    summary = {
        "backend": backend,
        "issues": args.issues,
        "comments_per_issue": args.comments_per_issue,
        "runs": len(runs),
        "issues_per_s_median": statistics.median(rates),
        "issues_per_s_best": max(rates),
        "listings_issues_per_s_median": statistics.median(listing_rates),
        "requests": runs[-1]["requests"],
        "peak_rss_mib": max(r["peak_rss_mib"] for r in runs),
    }
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"{backend} {args.issues} issues: median {summary['issues_per_s_median']:,.0f} "
            f"issues/s (best {summary['issues_per_s_best']:,.0f}; listings alone "
            f"{summary['listings_issues_per_s_median']:,.0f}) over {len(runs)} run(s), "
            f"{summary['requests']} requests, peak RSS {summary['peak_rss_mib']:.0f} MiB"
        )


if __name__ == "__main__":
    main()
