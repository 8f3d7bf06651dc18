"""End-to-end backfill: GitHub emulator -> sync -> Redis -> Celery workers -> every stage done.

One repository of N issues (every 10th a pull request, 60% of those merged, each with "Fixes #M"
in its body; `--comments-per-issue` comments on each) is synced by `benchmarks/backfill.py
--worker` (the real `repository_sync` through PyGithub over HTTP from the emulator) into a
scratch Postgres database, with REDIS_URL set: every page's pipeline (triage/pipeline.py:
classify_issues, kernels_ci cases_refresh, releases link_fixes; for comments cases_refresh and
classify_comments; after classification writeback_labels) goes to its queue on Redis and real
`celery worker` processes consume the ingest, classify and releases queues meanwhile, as deployed.
Before the clock starts the models are trained (kind, component, severity, duplicates on the demo
data's weak labels, sentiment on the bundled set: benchmarks/pipeline_stack.py) and a release
series is configured, so merged fixes get trains.

The clock runs from the start of the sync until the queues are empty and no worker holds a task.
Then the database is checked: every issue stored once, every issue (not PR) has its kind,
component and severity predictions, every open issue a priority, every merged PR its fix link
with a train. Prints end-to-end issues/s, the queue depths over time (LLEN of each queue, sampled
every --interval s), peak depth and time to drain per queue, when each stage's last write
happened, and the workers' time per task.

    python benchmarks/pipeline_backfill.py --issues 10000
    python benchmarks/pipeline_backfill.py --issues 100000 --worker ingest:2 --worker classify:1 \
        --worker releases:1
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import harness, pipeline_stack  # noqa: E402
from benchmarks.backfill import REPO  # noqa: E402

BACKFILL = str(Path(__file__).resolve().parent / "backfill.py")


def _checks(database_url: str) -> dict:
    """Counts that say whether every stage finished for every row."""
    q = {
        "issues": "SELECT count(*), count(DISTINCT (repository_id, number)),"
        " count(*) FILTER (WHERE is_pull_request),"
        " count(*) FILTER (WHERE NOT is_pull_request AND state = 'open'),"
        " count(*) FILTER (WHERE is_pull_request AND merged) FROM triage_issue",
        "predicted": "SELECT p.model_name, count(DISTINCT p.issue_id) FROM triage_issueprediction p"
        " JOIN triage_issue i ON i.id = p.issue_id WHERE NOT i.is_pull_request"
        " GROUP BY p.model_name",
        "prioritized": "SELECT count(*) FROM triage_issuepriority pr JOIN triage_issue i"
        " ON i.id = pr.issue_id WHERE i.state = 'open' AND NOT i.is_pull_request"
        " AND i.priority_score = pr.score",
        "links": "SELECT count(*), count(DISTINCT pull_request_id),"
        " count(*) FILTER (WHERE train_version <> '') FROM releases_fixlink",
        "comments": "SELECT count(*), count(*) FILTER (WHERE sentiment <> '') FROM triage_comment",
        "cases": "SELECT count(*) FROM kernels_ci_reprocase",
        "last": "SELECT (SELECT max(last_ingested_at) FROM triage_issue),"
        " (SELECT max(predicted_at) FROM triage_issueprediction),"
        " (SELECT max(computed_at) FROM triage_issuepriority),"
        " (SELECT max(updated_at) FROM releases_fixlink),"
        " (SELECT max(extracted_at) FROM kernels_ci_reprocase)",
    }
    with harness.connect(database_url) as conn:
        issues, distinct, pulls, open_issues, merged = conn.execute(q["issues"]).fetchone()
        predicted = dict(conn.execute(q["predicted"]).fetchall())
        prioritized = conn.execute(q["prioritized"]).fetchone()[0]
        links, linked_pulls, with_train = conn.execute(q["links"]).fetchone()
        comments, with_sentiment = conn.execute(q["comments"]).fetchone()
        cases = conn.execute(q["cases"]).fetchone()[0]
        last = conn.execute(q["last"]).fetchone()
    return {
        "issues": issues,
        "distinct_issues": distinct,
        "pulls": pulls,
        "open_issues": open_issues,
        "merged_pulls": merged,
        "predicted": predicted,
        "prioritized": prioritized,
        "fix_links": links,
        "linked_pulls": linked_pulls,
        "links_with_train": with_train,
        "comments": comments,
        "comments_with_sentiment": with_sentiment,
        "repro_cases": cases,
        "last_write": dict(
            zip(("ingest", "classify", "priority", "fix links", "repro cases"), last, strict=True)
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--issues", type=int, default=10_000)
    parser.add_argument("--comments-per-issue", type=int, default=0)
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/bench_pipeline"
    )
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/10")
    parser.add_argument(
        "--worker",
        action="append",
        help="QUEUE:CONCURRENCY, repeatable (default ingest:1 classify:1 releases:1)",
    )
    parser.add_argument(
        "--worker-nice", type=int, default=0, help="run the Celery workers under nice -n N"
    )
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between samples")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds for it all")
    parser.add_argument("--keep-logs", help="copy the workers' logs to this folder")
    parser.add_argument("--json", help="write the figures as JSON to this file")
    args = parser.parse_args()
    if not args.database_url.startswith("postgres"):
        raise SystemExit("this benchmark runs against Postgres")
    workers = pipeline_stack.parse_workers(args.worker or ["ingest:1", "classify:1", "releases:1"])
    load_before = pipeline_stack.uptime()
    print(
        f"# pipeline backfill of {args.issues:,} issues x {args.comments_per_issue} comments; "
        f"workers {workers}{f' at nice {args.worker_nice}' if args.worker_nice else ''}; "
        f"{harness.machine()}; emulator, sync, workers, Postgres and Redis "
        f"share it\n# before: {load_before}",
        flush=True,
    )
    figures = pipeline_stack.run_in_scratch(
        args, lambda args, scratch: _run(args, workers, scratch), prefix="bench-pipeline-"
    )
    if figures["problems"]:
        raise SystemExit(
            "NOT every stage finished for every row: " + "; ".join(figures["problems"])
        )
    print(
        "OK: every issue stored once, classified and (if open) prioritized; "
        "every merged fix linked, with a train"
    )


def _run(args, workers: dict[str, int], scratch: Path) -> dict:
    broker = pipeline_stack.redis_scratch(args.redis_url)
    with harness.scratch_database(args.database_url) as database_url:
        harness.migrate(database_url)
        pipeline_stack.series_create(database_url)
        setup = time.perf_counter()
        with harness.github_emulator(
            repo=REPO,
            issues=args.issues,
            comments_per_issue=args.comments_per_issue,
            rate_limit=1_000_000,
        ) as (url, _emulator):
            print(f"# emulator ready in {time.perf_counter() - setup:.0f}s", flush=True)
            env = harness.base_env(
                DATABASE_URL=database_url,
                REDIS_URL=args.redis_url,
                GITHUB_API_URL=url,
                GITHUB_TOKEN=harness.TOKEN,
                CLASSIFIER_ARTIFACT_DIR=str(scratch / "models"),
            )
            try:
                with pipeline_stack.celery_workers(
                    env=env, workers=workers, log_dir=scratch, nice=args.worker_nice
                ) as logs:
                    figures = _measure(args, env, database_url, logs)
            finally:
                broker.flushdb()
    return figures


def _measure(args, env, database_url: str, logs: list[Path]) -> dict:
    depths = pipeline_stack.QueueDepths(args.redis_url, interval=args.interval)
    wall_start = datetime.now(UTC)
    depths.start()
    started = time.monotonic()
    sync = harness.run_json([BACKFILL, "--worker"], env, timeout=args.timeout)
    sync_done = time.monotonic() - started
    print(
        f"sync done at {sync_done:.1f}s: {sync['issues']:,} issues and PRs, "
        f"{sync['requests']:,} requests",
        flush=True,
    )
    idle_at = depths.wait_idle(timeout=max(60.0, args.timeout - sync_done))
    depths.stop()
    if idle_at is None:
        raise SystemExit(f"the queues were not empty after {args.timeout:.0f}s")
    checks = _checks(database_url)
    stats, failed = pipeline_stack.task_times(logs)

    depths.print_series()
    print("per queue (t from the start of the sync):")
    depths.print_summary()
    issues = checks["issues"]
    own = issues - checks["pulls"]
    print(
        f"end to end: {issues:,} issues and PRs in {idle_at:.1f}s = {issues / idle_at:,.0f} "
        f"issues/s (the sync alone took {sync_done:.1f}s = {issues / sync_done:,.0f}/s)"
    )
    last = {
        stage: round((moment - wall_start).total_seconds(), 1) if moment else None
        for stage, moment in checks["last_write"].items()
    }
    print(
        "last write of each stage (s after the start): "
        + ", ".join(f"{k} {v}" for k, v in last.items())
    )
    print(
        f"rows: {issues:,} issues ({checks['distinct_issues']:,} distinct numbers, "
        f"{checks['pulls']:,} PRs, {checks['merged_pulls']:,} merged), predictions per model "
        f"{checks['predicted']} for {own:,} issues, {checks['prioritized']:,} of "
        f"{checks['open_issues']:,} open issues prioritized, {checks['fix_links']:,} fix links "
        f"from {checks['linked_pulls']:,} PRs ({checks['links_with_train']:,} with a train), "
        f"{checks['comments']:,} comments ({checks['comments_with_sentiment']:,} with "
        f"sentiment), {checks['repro_cases']:,} repro cases"
    )
    pipeline_stack.print_task_times(stats)
    print(f"failed or retried tasks in the workers' logs: {failed}")

    problems = []
    if issues != args.issues or checks["distinct_issues"] != issues:
        problems.append(
            f"{issues} issue rows, {checks['distinct_issues']} distinct, expected {args.issues}"
        )
    for model in ("kind", "component", "severity", "environment"):
        if checks["predicted"].get(model, 0) != own:
            problems.append(
                f"{model}: {checks['predicted'].get(model, 0)} of {own} issues predicted"
            )
    if checks["prioritized"] != checks["open_issues"]:
        problems.append(
            f"{checks['prioritized']} of {checks['open_issues']} open issues prioritized"
        )
    if (
        checks["linked_pulls"] != checks["merged_pulls"]
        or checks["links_with_train"] != checks["fix_links"]
    ):
        problems.append(
            f"{checks['linked_pulls']} of {checks['merged_pulls']} merged PRs linked, "
            f"{checks['links_with_train']} of {checks['fix_links']} links with a train"
        )
    if args.comments_per_issue and checks["comments_with_sentiment"] != checks["comments"]:
        problems.append(
            f"{checks['comments_with_sentiment']} of {checks['comments']} comments with sentiment"
        )
    if failed:
        problems.append(f"{failed} failed or retried tasks")
    return {
        "issues": issues,
        "end_to_end_seconds": idle_at,
        "end_to_end_issues_per_s": issues / idle_at,
        "sync_seconds": sync_done,
        "sync": sync,
        "queues": depths.summary(),
        "samples": [(round(t, 1), d, u) for t, d, u in depths.samples],
        "last_write_s": last,
        "checks": checks,
        "tasks": stats,
        "failed_tasks": failed,
        "problems": problems,
        "workers": args.worker,
    }


if __name__ == "__main__":
    main()
