"""X ingestion throughput: posts per second from the X emulator into the database, understood.

Starts the X API v2 emulator (`python -m tests.fakes.x_api`) with --posts bulk posts on
127.0.0.1, migrates a scratch database, loads the synthetic GitHub demo data (the issues that
posts link to), trains the sentiment model on --senti (the Senti4SD CSV: text,label) and the
duplicates index on the demo issues, then times one saved search (`ROCm -is:retweet`) through
the real tweepy client: every page upserted, every post understood (sentiment, mentions,
explicit and suggested issue links) in-process, as the embedded deployment does it. Prints
posts/s, requests used and requests per 1,000 posts (the API's page size is 100, so 10 is the
floor).

    .venv/bin/python benchmarks/x_ingest.py --posts 20000 --senti ../shared/data/senti4sd/train.csv
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import harness  # noqa: E402

CHILD = """
import csv, json, os, resource, time
import django
django.setup()
from classifiers import training
from triage.models import Issue, Post, PostIssueLink, SavedSearch
from triage.sources.x import sync as x_sync
from triage.services import demo, social
from config import wiring
wiring.AFTER_ISSUES_CHANGED = []  # the benchmark times posts, not the issue pipeline
wiring.AFTER_COMMENTS_CHANGED = []
demo.demo_load()
with open(os.environ["SENTI_CSV"], newline="", encoding="utf-8") as handle:
    rows = [r for r in csv.DictReader(handle) if r.get("text") and r.get("label")]
training.model_train(name="sentiment", texts=[r["text"] for r in rows],
                     labels=[r["label"] for r in rows], source="benchmark", force=True)
issues = list(Issue.objects.filter(is_pull_request=False).values_list("id", "title", "body"))
training.model_train(name="duplicates", texts=[f"{t}\\n{b}" for _, t, b in issues],
                     labels=[i for i, _, _ in issues], source="benchmark", force=True)
search = SavedSearch.objects.create(name="bench", query="ROCm -is:retweet",
                                    monthly_budget=10_000_000)
started = time.perf_counter()
report = x_sync.saved_search_sync(search=search)
seconds = time.perf_counter() - started
print(json.dumps({
    "posts": Post.objects.count(), "seconds": seconds, "requests": report.requests,
    "with_sentiment": Post.objects.exclude(sentiment="").count(),
    "explicit_links": PostIssueLink.objects.filter(kind="explicit").count(),
    "suggested_links": PostIssueLink.objects.filter(kind="suggested").count(),
    "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""


@contextlib.contextmanager
def x_emulator(posts: int):
    proc = subprocess.Popen(
        [harness.PYTHON, "-m", "tests.fakes.x_api", "--port", "0", "--posts", str(posts)]
        + ["--token", harness.TOKEN, "--rate-limit", "100000"],
        cwd=harness.ROOT,
        env=harness.base_env(),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        if not line.startswith("READY "):
            raise RuntimeError(f"the X emulator did not start (got {line!r})")
        yield line.split()[1]
    finally:
        harness.stop_process(proc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--posts", type=int, default=20000)
    parser.add_argument("--senti", required=True, help="Senti4SD train.csv (text,label)")
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/bench_x")
    args = parser.parse_args()
    print(f"# {harness.machine()}")
    with x_emulator(args.posts) as url, harness.scratch_database(args.database_url) as db:
        harness.migrate(db)
        env = harness.base_env(
            DATABASE_URL=db,
            X_API_URL=url,
            X_BEARER_TOKEN=harness.TOKEN,
            SENTI_CSV=str(Path(args.senti).resolve()),
            DJANGO_SETTINGS_MODULE="config.settings",
            CLASSIFIER_ARTIFACT_DIR=tempfile.mkdtemp(prefix="bench-models-"),
        )
        started = time.perf_counter()
        result = harness.run_json(["-c", CHILD], env, timeout=1800)
        result["wall_incl_setup"] = time.perf_counter() - started
    per_second = result["posts"] / result["seconds"]
    per_thousand = result["requests"] / result["posts"] * 1000 if result["posts"] else 0
    print(json.dumps(result))
    print(
        f"{result['posts']:,} posts in {result['seconds']:.1f}s = {per_second:,.0f} posts/s "
        f"(with sentiment {result['with_sentiment']:,}, explicit links "
        f"{result['explicit_links']:,}, suggested links {result['suggested_links']:,}); "
        f"{result['requests']} requests = {per_thousand:.1f} per 1,000 posts; "
        f"peak RSS {result['peak_rss_mib']:.0f} MiB"
    )


if __name__ == "__main__":
    main()
