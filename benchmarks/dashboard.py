"""Dashboard latency under concurrent load: triage queue, issue list and issue page under gunicorn.

Creates a scratch Postgres database, migrates it and fills it through the ORM in bulk with
--issues issues (10% of them pull requests) across 5 repositories, each open issue with its
kind, component, severity and environment predictions and a priority, one comment on every
fifth issue, and --posts X posts (with sentiment, tagged with saved searches, some linked to
issues). Then starts gunicorn (production settings, DEBUG off) on 127.0.0.1 and sends requests
from --concurrency client threads, each with its own keep-alive session logged in as a viewer:
a mix of the triage queue (first pages and filtered), the issue list (first pages, filtered,
text search), issue pages chosen at random, and the viewer's inbox (5,000 items, its page and
rows) and the unread count every open page polls (live updates): one in eight requests each.
Prints p50/p95/p99/max per page kind, requests per second, and the number of non-200 answers
(must be 0). Traffic goes to 127.0.0.1 only.

    python benchmarks/dashboard.py --issues 100000 --posts 50000 --requests 2000
        [--concurrency 1,2,4,8]
    python benchmarks/dashboard.py seed --database-url ... --issues N --posts M   (internal)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import harness  # noqa: E402

REPOS = ["ROCm/ROCm", "ROCm/HIP", "ROCm/rocm-libraries", "ROCm/TheRock", "triton-lang/triton"]
# as the classifiers store them (lower-cased)
COMPONENTS = ["hip", "miopen", "rocblas", "hipblaslt", "composable_kernel", "triton", "pytorch"]
ARCHS = ["gfx942", "gfx90a", "gfx1100", "gfx1151", "gfx950"]
KINDS = ["bug", "feature", "question", "docs", "performance"]
SEVERITIES = ["critical", "high", "medium", "low"]
WORDS = [
    "kernel",
    "hang",
    "crash",
    "segfault",
    "MI300X",
    "MI250X",
    "wrong",
    "result",
    "rocBLAS",
    "gemm",
    "hipMalloc",
    "driver",
    "install",
    "docker",
    "container",
    "triton",
    "compile",
    "error",
    "performance",
    "regression",
    "memory",
    "leak",
    "stream",
    "event",
    "graph",
    "rocminfo",
    "ubuntu",
    "rhel",
    "sles",
    "python",
    "torch",
]


# Text like an issue tracker's: the domain words above among a long tail of other words, drawn
# with Zipf-like weights (a word's frequency falls with its rank), so a search for a domain word
# matches a few percent of the issues, as on a real tracker, not all of them.
FILLER = [f"w{n:04d}" for n in range(6000)]
VOCABULARY = FILLER[:40] + WORDS + FILLER[40:]
WEIGHTS = [1.0 / (rank + 1) for rank in range(len(VOCABULARY))]


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choices(VOCABULARY, weights=WEIGHTS, k=n))


def seed(database_url: str, issues: int, posts: int) -> dict:
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from datetime import timedelta

    from django.contrib.auth.models import Group, User
    from django.contrib.sessions.backends.db import SessionStore
    from django.utils import timezone

    from triage.models import (
        Comment,
        Issue,
        IssuePrediction,
        IssuePriority,
        Label,
        Person,
        Post,
        PostIssueLink,
        Repository,
        SavedSearch,
    )

    rng = random.Random(7)
    now = timezone.now()
    repos = [Repository.objects.create(full_name=name) for name in REPOS]
    people = Person.objects.bulk_create(
        [Person(external_id=str(10_000 + i), login=f"user{i}") for i in range(2000)]
    )
    labels = {
        repo.id: Label.objects.bulk_create(
            [Label(repository=repo, name=n, name_key=n) for n in ["bug", "feature", *COMPONENTS]]
        )
        for repo in repos
    }
    batch = 5000
    created = 0
    numbers = {repo.id: 0 for repo in repos}
    while created < issues:
        rows = []
        for _ in range(min(batch, issues - created)):
            repo = repos[created % len(repos)]
            numbers[repo.id] += 1
            opened = now - timedelta(minutes=rng.randint(1, 60 * 24 * 700))
            is_open = rng.random() < 0.35
            rows.append(
                Issue(
                    repository=repo,
                    number=numbers[repo.id],
                    external_id=str(1_000_000 + created),
                    title=f"{_text(rng, 6)} on {rng.choice(ARCHS)}",
                    body=_text(rng, 120),
                    state="open" if is_open else "closed",
                    author=rng.choice(people),
                    created_at=opened,
                    updated_at=opened + timedelta(minutes=rng.randint(0, 5000)),
                    closed_at=None if is_open else opened + timedelta(days=3),
                    is_pull_request=created % 10 == 0,
                    comments_count=1 if created % 5 == 0 else 0,
                    html_url=f"https://github.com/{repo.full_name}/issues/{numbers[repo.id]}",
                )
            )
            created += 1
        made = Issue.objects.bulk_create(rows)
        through = Issue.labels.through
        through.objects.bulk_create(
            [through(issue_id=i.id, label_id=rng.choice(labels[i.repository_id]).id) for i in made]
        )
        Comment.objects.bulk_create(
            [
                Comment(
                    external_id=str(5_000_000 + i.id),
                    issue=i,
                    author=rng.choice(people),
                    body=_text(rng, 40),
                    created_at=i.created_at,
                    updated_at=i.created_at,
                )
                for i in made
                if i.comments_count
            ]
        )
        open_issues = [i for i in made if i.state == "open" and not i.is_pull_request]
        predictions = []
        for i in open_issues:
            for model, label in (
                ("kind", rng.choice(KINDS)),
                ("component", rng.choice(COMPONENTS)),
                ("severity", rng.choice(SEVERITIES)),
                ("environment", rng.choice(ARCHS)),
            ):
                confidence = rng.random()
                predictions.append(
                    IssuePrediction(
                        issue=i,
                        model_name=model,
                        model_version="bench",
                        label=label,
                        confidence=confidence,
                        needs_triage=confidence < 0.4,
                        evidence={"words": [{"word": "hang", "weight": 0.4}]},
                    )
                )
        IssuePrediction.objects.bulk_create(predictions)
        priorities = IssuePriority.objects.bulk_create(
            [
                IssuePriority(
                    issue=i,
                    score=rng.randint(0, 100),
                    parts=[{"name": "kind_severity", "points": 10, "why": "bug, high"}],
                )
                for i in open_issues
            ]
        )
        for p in priorities:
            p.issue.priority_score = p.score
        Issue.objects.bulk_update(open_issues, ["priority_score"], batch_size=1000)
    searches = [
        SavedSearch.objects.create(name=f"search {n}", query=f"ROCm {n} -is:retweet")
        for n in range(4)
    ]
    authors = Person.objects.bulk_create(
        [Person(source="x", external_id=str(900_000 + i), login=f"xuser{i}") for i in range(3000)]
    )
    issue_ids = list(Issue.objects.filter(state="open").values_list("id", flat=True)[:5000])
    sentiments = ["negative", "neutral", "positive"]
    for start in range(0, posts, batch):
        made = Post.objects.bulk_create(
            [
                Post(
                    external_id=str(7_000_000 + n),
                    author=rng.choice(authors),
                    text=f"ROCm {_text(rng, 20)}",
                    created_at=now - timedelta(minutes=rng.randint(1, 60 * 24 * 60)),
                    sentiment=rng.choice(sentiments),
                    sentiment_confidence=0.8,
                )
                for n in range(start, min(posts, start + batch))
            ]
        )
        through = Post.searches.through
        through.objects.bulk_create(
            [through(post_id=p.id, savedsearch_id=rng.choice(searches).id) for p in made]
        )
        PostIssueLink.objects.bulk_create(
            [
                PostIssueLink(
                    post=p,
                    issue_id=rng.choice(issue_ids),
                    kind="suggested",
                    status="suggested",
                    score=0.5,
                )
                for p in made[::10]
            ]
        )
    viewer = User.objects.create_user("bench-viewer", password="unused-bench-password")  # noqa: S106
    viewer.groups.add(Group.objects.get(name="viewers"))
    _seed_inbox(rng, viewer, issue_ids)
    session = SessionStore()
    session["_auth_user_id"] = str(viewer.pk)
    session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
    session["_auth_user_hash"] = viewer.get_session_auth_hash()
    session.create()
    from django.db import connection

    # What autovacuum does on a live database: statistics and the visibility map (index-only
    # counts). VACUUM cannot run inside a transaction; Django's connection is in autocommit.
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    return {
        "session": session.session_key,
        "issues": Issue.objects.count(),
        "posts": Post.objects.count(),
        "open_issue_refs": [
            [r.split("/")[0], r.split("/")[1], n]
            for r, n in Issue.objects.filter(state="open")
            .order_by("?")
            .values_list("repository__full_name", "number")[:500]
        ],
    }


INBOX_ITEMS = 5000  # the viewer's inbox: a busy maintainer's two weeks, half of it unread


def _seed_inbox(rng: random.Random, viewer, issue_ids: list[int]) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from triage.models import InboxItem, IssueFollow, UserPreference

    UserPreference.objects.create(user=viewer, github_login="bench-viewer")
    now = timezone.now()
    reasons = [choice for choice, _ in InboxItem.Reason.choices]
    InboxItem.objects.bulk_create(
        [
            InboxItem(
                user=viewer,
                issue_id=rng.choice(issue_ids),
                reason=rng.choice(reasons),
                key=f"bench:{n}",
                excerpt=_text(rng, 30)[:300],
                actor="someone",
                created_at=now - timedelta(minutes=rng.randint(1, 60 * 24 * 14)),
                read_at=None if n % 2 else now,
            )
            for n in range(INBOX_ITEMS)
        ],
        batch_size=1000,
    )
    IssueFollow.objects.bulk_create(
        [IssueFollow(user=viewer, issue_id=i) for i in set(rng.sample(issue_ids, 200))]
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _requests(rng: random.Random, refs: list, count: int) -> list[tuple[str, str]]:
    made = []
    for _ in range(count):
        # every open page polls the inbox count (live updates); the inbox page and its rows
        kind = rng.choice(["queue", "list", "issue", "queue", "list", "issue", "inbox", "count"])
        if kind == "queue":
            query = rng.choice(
                [
                    "",
                    "?page=2",
                    f"?component={rng.choice(COMPONENTS)}",
                    f"?architecture={rng.choice(ARCHS)}",
                    f"?kind={rng.choice(KINDS)}&needs_triage=on",
                ]
            )
            made.append((kind, f"/triage/{query}"))
        elif kind == "list":
            query = rng.choice(
                [
                    "",
                    "?page=3",
                    f"?repo={rng.choice(REPOS)}&state=open",
                    "?type=pr&state=all",
                    f"?q={rng.choice(WORDS)}",
                ]
            )
            made.append((kind, f"/issues/{query}"))
        elif kind == "inbox":
            made.append((kind, rng.choice(["/inbox/", "/inbox/rows/", "/inbox/?show=all"])))
        elif kind == "count":
            made.append((kind, "/inbox/count/"))
        else:
            owner, name, number = rng.choice(refs)
            made.append((kind, f"/issues/{owner}/{name}/{number}/"))
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", nargs="?", default="run", choices=["run", "seed"])
    parser.add_argument("--issues", type=int, default=100_000)
    parser.add_argument("--posts", type=int, default=50_000)
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument(
        "--concurrency",
        type=lambda text: [int(n) for n in text.split(",")],
        default=[1, 2, 4, 8],
        help="client threads, one run per value (comma-separated)",
    )
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes")
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/bench_dashboard"
    )
    args = parser.parse_args()
    if args.mode == "seed":
        print(json.dumps(seed(args.database_url, args.issues, args.posts)))
        return

    import requests

    print(harness.machine())
    with harness.scratch_database(args.database_url) as url:
        harness.migrate(url)
        static_root = tempfile.mkdtemp(prefix="bench-static-")
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
            cwd=harness.ROOT,
            env=harness.base_env(DATABASE_URL=url, VAR_DIR=static_root),
            check=True,
            timeout=300,
        )
        started = time.monotonic()
        seeded = harness.run_json(
            [
                "benchmarks/dashboard.py",
                "seed",
                "--database-url",
                url,
                "--issues",
                str(args.issues),
                "--posts",
                str(args.posts),
            ],
            harness.base_env(),
            timeout=3600,
        )
        print(
            f"seeded {seeded['issues']:,} issues and {seeded['posts']:,} posts "
            f"in {time.monotonic() - started:.0f} s"
        )
        port = _free_port()
        server = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "gunicorn"),
                "config.wsgi",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                str(args.workers),
                "--log-level",
                "warning",
            ],
            cwd=harness.ROOT,
            env=harness.base_env(DATABASE_URL=url, VAR_DIR=static_root),
        )
        try:
            base = f"http://127.0.0.1:{port}"
            for _ in range(300):  # workers import Django, scikit-learn ... before they answer
                try:
                    if requests.get(f"{base}/healthz", timeout=5).ok:
                        break
                except requests.RequestException:
                    pass
                time.sleep(0.2)
            rng = random.Random(11)
            plan = _requests(rng, seeded["open_issue_refs"], args.requests)
            local = threading.local()

            def fetch(item):
                kind, path = item
                if not hasattr(local, "session"):
                    local.session = requests.Session()
                    local.session.cookies.set("sessionid", seeded["session"])
                began = time.perf_counter()
                response = local.session.get(base + path, timeout=30, allow_redirects=False)
                return kind, time.perf_counter() - began, response.status_code

            with ThreadPoolExecutor(4) as pool:  # warm-up: caches, connections
                list(pool.map(fetch, plan[: min(200, len(plan))]))
            failures = 0
            for clients in args.concurrency:
                local = threading.local()
                began = time.monotonic()
                with ThreadPoolExecutor(clients) as pool:
                    results = list(pool.map(fetch, plan))
                failures += _report(results, clients, args.workers, time.monotonic() - began)
        finally:
            harness.stop_process(server)
            shutil.rmtree(static_root, ignore_errors=True)
    if failures:
        raise SystemExit(1)


def _report(results: list, clients: int, workers: int, wall: float) -> int:
    bad = [r for r in results if r[2] != 200]
    print(
        f"\n{len(results)} requests, {clients} clients, gunicorn -w {workers}: "
        f"{len(results) / wall:.0f} requests/s, {len(bad)} not 200"
    )
    print(f"{'page':<8}{'n':>6}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}")
    for kind in ("queue", "list", "issue", "inbox", "count"):
        times = sorted(t * 1000 for k, t, _ in results if k == kind)
        if not times:
            continue
        q = statistics.quantiles(times, n=100)
        print(f"{kind:<8}{len(times):>6}{q[49]:>9.1f}{q[94]:>9.1f}{q[98]:>9.1f}{times[-1]:>9.1f}")
    if bad:
        print("statuses of the failures:", sorted({s for _, _, s in bad}))
    return len(bad)


if __name__ == "__main__":
    main()
