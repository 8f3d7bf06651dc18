"""Incremental sync cost: HTTP requests per resource, and their status codes, after a backfill.

Backfills a repository of N issues (every 10th a pull request) with K comments per issue from the
GitHub emulator into a scratch database, then runs incremental syncs (`repository_sync`, each in
a fresh process as a scheduled Celery task would be) of the unchanged repository, edits 10 issues
on the emulator and syncs once more. For every sync it prints the requests the emulator answered,
by resource (issues, pulls, comments) and status code, and what the sync stored.

Expected: the first incremental sync after a backfill is a warm-up (its `since` request differs
from the backfill's first request, so it has no ETag to offer yet); every later sync of an
unchanged repository costs exactly 4 requests, one per resource (the repository itself, by its
id, for its name after a rename; issues, pulls, comments), all answered 304 (which GitHub
does not count against the rate limit). A sync that found changes moves the watermark, so the
next one asks a new `since` URL and is again a warm-up (one counted 200 for that resource).

The backfill also reads the commit messages of merged pull requests (one request each, shown as
`commits`); later syncs read none again, so they do not show. What runs after ingestion (the
pipeline) is enqueued on Redis as deployed (--redis-url, an empty scratch db, flushed at the end;
`inline` runs it in the syncing process).

The emulator runs in this process (in a thread) so it can be edited between syncs; the syncs run
in child processes.

    python benchmarks/incremental.py --issues 10000 --database-url postgres://postgres@127.0.0.1:5432/bench_incremental
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import harness  # noqa: E402

REPO = "bench/incremental"


def _worker(args: argparse.Namespace) -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from triage.sources.github import sync
    from triage.sources.github.ingest import repository_get_or_create

    repository = repository_get_or_create(full_name=REPO)
    report = sync.repository_sync(repository=repository)
    print(
        json.dumps(
            {
                key: getattr(report, key)
                for key in ("fetched", "created", "updated", "unchanged", "requests")
            }
            | {"not_modified": report.not_modified}
        )
    )


def _resource(path: str) -> str:
    tail = path.split(f"/repos/{REPO}", 1)[-1]
    if tail.startswith("/issues/comments"):
        return "comments"
    if tail.startswith("/issues"):
        return "issues" if tail == "/issues" else "issue (single)"
    if tail.startswith("/pulls/") and tail.endswith("/commits"):
        return "commits"
    if tail.startswith("/pulls"):
        return "pulls"
    return "repository" if not tail or tail.startswith("/repositories/") else tail


def _requests_by_resource(emulator) -> dict[str, Counter]:
    found: dict[str, Counter] = {}
    for entry in list(emulator.requests):
        found.setdefault(_resource(entry["path"]), Counter())[entry["status"]] += 1
    return found


def _describe(label: str, report: dict, requests: dict[str, Counter]) -> str:
    total = sum(sum(c.values()) for c in requests.values())
    parts = ", ".join(
        f"{resource} {sum(codes.values())} ("
        + " ".join(f"{n}x{status}" for status, n in sorted(codes.items()))
        + ")"
        for resource, codes in sorted(requests.items())
    )
    return (
        f"{label:<22} {total:>4} requests: {parts}; stored created {report['created']}, "
        f"updated {report['updated']}, unchanged {report['unchanged']}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--issues", type=int, default=10_000)
    parser.add_argument("--comments-per-issue", type=int, default=1)
    parser.add_argument(
        "--database-url",
        default="postgres://postgres@127.0.0.1:5432/bench_incremental",
        help="postgres://USER@HOST:PORT/bench_NAME (created and dropped) or 'sqlite' (temp file)",
    )
    parser.add_argument("--unchanged-runs", type=int, default=3, help="syncs after the warm-up")
    parser.add_argument("--edits", type=int, default=10, help="issues edited before the last sync")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per sync")
    parser.add_argument(
        "--redis-url",
        default="redis://127.0.0.1:6379/12",
        help="broker for the pipeline's tasks (an empty scratch db), or 'inline'",
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker(args)
        return

    from tests.fakes.github_api import GitHubEmulator

    broker = None
    if args.redis_url != "inline":
        import redis

        broker = redis.Redis.from_url(args.redis_url)
        if broker.dbsize():
            raise SystemExit(f"{args.redis_url} is not empty; refusing to use (and flush) it")
    emulator = GitHubEmulator(token=harness.TOKEN)
    emulator.add_repo(REPO)
    emulator.bulk_generate(REPO, args.issues, args.comments_per_issue)
    emulator.start()
    print(f"# {args.issues} issues x {args.comments_per_issue} comments; {harness.machine()}")
    failures = []
    try:
        with harness.scratch_database(args.database_url) as database_url:
            harness.migrate(database_url)
            env = harness.base_env(
                DATABASE_URL=database_url, GITHUB_API_URL=emulator.url, GITHUB_TOKEN=harness.TOKEN
            )
            if broker is not None:
                env["REDIS_URL"] = args.redis_url

            def sync(label: str) -> dict[str, Counter]:
                emulator.clear_log()
                report = harness.run_json([__file__, "--worker"], env, timeout=args.timeout)
                requests = _requests_by_resource(emulator)
                print(_describe(label, report, requests), flush=True)
                return requests

            sync("backfill")
            sync("incremental warm-up")
            for number in range(1, args.unchanged_runs + 1):
                requests = sync(f"unchanged #{number}")
                codes = Counter()
                for resource_codes in requests.values():
                    codes.update(resource_codes)
                if sorted(requests) != ["comments", "issues", "pulls"] or codes != {304: 3}:
                    failures.append(f"unchanged #{number}: expected 3 requests answered 304")
            step = max(1, args.issues // args.edits)
            for number in range(1, args.issues + 1, step)[: args.edits]:
                emulator.update_issue(REPO, number, title=f"edited by the benchmark #{number}")
            sync(f"after {args.edits} edits")
            sync("unchanged, warm-up")  # the new watermark makes a new `since` URL: one 200
            sync("unchanged again")
    finally:
        emulator.stop()
        if broker is not None:
            broker.flushdb()
    if failures:
        raise SystemExit("; ".join(failures))
    print("OK: every sync of the unchanged repository cost 3 requests, all 304")


if __name__ == "__main__":
    main()
