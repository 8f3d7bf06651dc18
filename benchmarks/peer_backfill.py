"""Our backfill against its peers, interleaved on the same emulated repository.

Three ways to copy one repository's issues from the GitHub emulator (the CLI of
tests/fakes/github_api.py, a separate process on 127.0.0.1, every 10th issue a pull request):

- **ours**: `repository_sync` (triage.sources.github.sync) into a freshly migrated Postgres
  database, as benchmarks/backfill.py runs it: the issues listing through the real PyGithub
  Requester, then PR details, comments and the commit messages of merged PRs, with labels,
  people, reactions and the pipeline's tasks enqueued on Redis. Reported twice: the issues
  listing alone (its step) and the whole sync.
- **plain**: the loop anyone would write first: PyGithub's `repo.get_issues(state="all")`
  (100 a page, without PyGithub's default 0.25 s pause between requests, as our client runs),
  each issue's id, number, title, body, state, author, labels, comment count and times inserted
  with psycopg 3 (`executemany` of one `INSERT ... ON CONFLICT DO UPDATE` per page, committed
  per page) into one table of a fresh Postgres database.
- **github-to-sqlite** (Simon Willison's tool, when installed: `pip install github-to-sqlite`):
  `github-to-sqlite issues DB OWNER/NAME` into a fresh SQLite file. It hard-codes
  https://api.github.com, so its process runs with one shim around `requests.get` (the only
  call it makes): a URL with that prefix goes to the emulator instead, and the emulator's URLs
  in an answer's JSON read as GitHub's (it takes a pull request's number out of its API URL by
  splitting on https://api.github.com/repos/); nothing else of it is changed.

Each round runs every contender once, in a rotating order, each in a fresh process; the summary
gives each contender's median issues/s and the ratios to the plain loop from the same run.

    python benchmarks/peer_backfill.py --issues 10000 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import backfill, harness  # noqa: E402

REPO = backfill.REPO


def _plain_worker(args: argparse.Namespace) -> None:
    """In the child: the plain PyGithub + psycopg loop; prints its figures as one JSON line."""
    import github
    import psycopg

    # without PyGithub's default pause between requests (0.25 s), as our client runs
    client = github.Github(
        auth=github.Auth.Token(harness.TOKEN),
        base_url=args.emulator,
        per_page=100,
        seconds_between_requests=None,
    )
    with psycopg.connect(args.database_url) as db:
        db.execute(
            "CREATE TABLE issue (id bigint PRIMARY KEY, number integer NOT NULL, title text, "
            "body text, state text, author text, labels text[], comments integer, "
            "is_pull_request boolean, created_at timestamptz, updated_at timestamptz, "
            "closed_at timestamptz)"
        )
        db.commit()
        insert = (
            "INSERT INTO issue VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (id) DO UPDATE SET title = EXCLUDED.title, body = EXCLUDED.body, "
            "state = EXCLUDED.state, labels = EXCLUDED.labels, comments = EXCLUDED.comments, "
            "updated_at = EXCLUDED.updated_at, closed_at = EXCLUDED.closed_at"
        )
        started = time.perf_counter()
        rows, stored = [], 0
        with db.cursor() as cursor:
            for issue in client.get_repo(REPO).get_issues(state="all"):
                rows.append(
                    (
                        issue.id,
                        issue.number,
                        issue.title,
                        issue.body,
                        issue.state,
                        issue.user.login if issue.user else None,
                        [label.name for label in issue.labels],
                        issue.comments,
                        # not issue.pull_request: PyGithub fetches each plain issue again to
                        # learn that it has none (its listing omits the key)
                        "/pull/" in issue.html_url,
                        issue.created_at,
                        issue.updated_at,
                        issue.closed_at,
                    )
                )
                if len(rows) == 100:
                    cursor.executemany(insert, rows)
                    db.commit()
                    stored, rows = stored + len(rows), []
            if rows:
                cursor.executemany(insert, rows)
                db.commit()
                stored += len(rows)
        seconds = time.perf_counter() - started
        count = db.execute("SELECT count(*) FROM issue").fetchone()[0]
    print(json.dumps({"seconds": seconds, "issues": count, "stored": stored}))


def _g2s_worker(args: argparse.Namespace) -> None:
    """In the child: github-to-sqlite, its GitHub host pointed at the emulator (the one shim)."""
    import requests
    from github_to_sqlite import cli

    real_get, github = requests.get, "https://api.github.com"

    def get(url, *a, **k):
        if url.startswith(github):
            url = args.emulator + url[len(github) :]
        response = real_get(url, *a, **k)
        response.json = lambda **_: json.loads(response.text.replace(args.emulator, github))
        return response

    requests.get = get
    started = time.perf_counter()
    cli.cli(["issues", args.sqlite, REPO], standalone_mode=False)
    seconds = time.perf_counter() - started
    import sqlite3

    with sqlite3.connect(args.sqlite) as db:
        count = db.execute("SELECT count(*) FROM issues").fetchone()[0]
    print(json.dumps({"seconds": seconds, "issues": count}))


def _ours(args: argparse.Namespace, url: str, emulator_pid: int) -> dict:
    run_args = argparse.Namespace(
        issues=args.issues,
        database_url=args.database_url,
        redis_url=args.redis_url,
        profile=None,
        timeout=args.timeout,
    )
    result = backfill._one_run(run_args, url, emulator_pid)
    listing = result["step_seconds"].get("issues", result["seconds"])
    return {
        "listing": result["issues"] / listing,
        "whole": result["issues"] / result["seconds"],
        "seconds": result["seconds"],
        "listing_seconds": listing,
    }


def _plain(args: argparse.Namespace, url: str) -> dict:
    with harness.scratch_database(args.database_url) as database_url:
        env = harness.base_env()
        argv = [__file__, "--plain-worker", "--emulator", url, "--database-url", database_url]
        result = harness.run_json(argv, env, timeout=args.timeout)
    if result["issues"] != args.issues:
        raise SystemExit(f"the plain loop stored {result['issues']} issues of {args.issues}")
    return {"listing": result["issues"] / result["seconds"], "seconds": result["seconds"]}


def _g2s(args: argparse.Namespace, url: str) -> dict:
    with tempfile.TemporaryDirectory() as scratch:
        sqlite = os.path.join(scratch, "github.db")
        env = harness.base_env(GITHUB_TOKEN=harness.TOKEN)
        argv = [__file__, "--g2s-worker", "--emulator", url, "--sqlite", sqlite]
        result = harness.run_json(argv, env, timeout=args.timeout)
    if result["issues"] != args.issues:
        raise SystemExit(f"github-to-sqlite stored {result['issues']} issues of {args.issues}")
    return {"listing": result["issues"] / result["seconds"], "seconds": result["seconds"]}


def _g2s_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("github_to_sqlite") is not None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--issues", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--database-url",
        default=harness.DEFAULT_POSTGRES,
        help="postgres://USER@HOST:PORT/bench_NAME: a scratch database per run (created, dropped)",
    )
    parser.add_argument(
        "--redis-url",
        default="redis://127.0.0.1:6379/12",
        help="broker for our pipeline's tasks (an empty scratch db, flushed after each run)",
    )
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--plain-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--g2s-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--emulator", help=argparse.SUPPRESS)
    parser.add_argument("--sqlite", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.plain_worker:
        _plain_worker(args)
        return
    if args.g2s_worker:
        _g2s_worker(args)
        return

    contenders = ["ours", "plain"] + (["github-to-sqlite"] if _g2s_installed() else [])
    if "github-to-sqlite" not in contenders:
        print("# github-to-sqlite is not installed (pip install github-to-sqlite): left out")
    print(f"# {args.issues} issues, {args.rounds} rounds; {harness.machine()}", flush=True)
    figures: dict[str, list[dict]] = {name: [] for name in contenders}
    with harness.github_emulator(repo=REPO, issues=args.issues, rate_limit=1_000_000) as (
        url,
        emulator,
    ):
        for round_number in range(args.rounds):
            shift = round_number % len(contenders)
            for name in contenders[shift:] + contenders[:shift]:
                if name == "ours":
                    result = _ours(args, url, emulator.pid)
                    detail = f", whole sync {result['whole']:,.0f} issues/s"
                elif name == "plain":
                    result = _plain(args, url)
                    detail = ""
                else:
                    result = _g2s(args, url)
                    detail = ""
                figures[name].append(result)
                print(
                    f"round {round_number + 1} {name}: issues listing "
                    f"{result['listing']:,.0f} issues/s{detail}",
                    flush=True,
                )
    medians = {
        name: statistics.median(r["listing"] for r in runs) for name, runs in figures.items()
    }
    whole = statistics.median(r["whole"] for r in figures["ours"])
    summary = {
        "issues": args.issues,
        "rounds": args.rounds,
        "median_issues_per_s": {**medians, "ours (whole sync)": whole},
        "ratio_to_plain": {
            **{name: medians[name] / medians["plain"] for name in medians if name != "plain"},
            "ours (whole sync)": whole / medians["plain"],
        },
    }
    if args.json:
        print(json.dumps(summary))
        return
    print("\nmedian issues/s (ratio to the plain loop):")
    for name, rate in summary["median_issues_per_s"].items():
        ratio = summary["ratio_to_plain"].get(name)
        print(f"  {name:20s} {rate:8,.0f}" + (f"  ({ratio:.2f}x)" if ratio else ""))


if __name__ == "__main__":
    main()
