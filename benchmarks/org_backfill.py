"""An organization installs the GitHub App: 50 repositories backfilled on one installation's budget.

What it measures (issue 21, part 3), for each way of sharing the budget, side by side in one run:

- **A: the installation.** An organization of --repos repositories of mixed sizes (--issues in
  all, sized like a real organization: a few large, many small; every 10th item a pull request,
  --comments per issue) installs the App; every repository starts its backfill. Figures: the time
  to each repository's first complete sync (median, 90th percentile, the last), and the requests
  each spent.
- **B: a large repository added later.** With every repository of A synced and fed by the App's
  webhook, a repository of --big-issues is added and backfills. Meanwhile the beat's scheduled
  syncs of the others keep coming (every --b-interval seconds each, spread, a reconciliation each
  time: a busy case, where GITHUB_WEBHOOK_FED_SYNC_MINUTES is 360 by default). Figure: how long
  each of those enqueued while the backfill ran took from its enqueueing to its end (median, 90th
  percentile, max), the requests each cost, and the backfill's own duration.

The modes: `slices` (a backfill makes GITHUB_BACKFILL_SLICE_REQUESTS requests, then goes on at the
back of the queue: triage/sources/github/schedule.py) against `reserve only` (slice 0: a backfill
runs until it ends or its budget falls to GITHUB_RATE_RESERVE, the rule before slices).

Everything real but the queue and the clock: the GitHub emulator (tests/fakes/github_api.py) with
GitHub's limits for an installation (5,000 requests an hour, 50 more per repository past 20, at
most 12,500; 304s free; an hour's installation tokens, renewed), the real PyGithub through our
App auth (JWT, installation tokens), our sync and its upserts into Postgres, the pipeline's tasks
sent to Redis (no worker takes them). The queue is a stand-in for Celery's ingest queue and one
worker: FIFO, a task with a countdown waits for its time, the beat enqueues every repository
every 10 minutes; each task is one `schedule.sync_turn`, the Celery task's body. The clock is
time-machine's: it runs with the wall clock while work happens, and jumps ahead only when every
queued task waits (for a rate limit's reset), so a budget's hour costs no real hour. Times are
this machine's processing plus the waits GitHub's limits impose.

    python benchmarks/org_backfill.py                       # 50 repositories, 100,000 issues
    python benchmarks/org_backfill.py --issues 5000 --big-issues 3000   # a quick look
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import json
import os
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import harness  # noqa: E402

ORG = "bench-org"
APP_ID = 20261205
BEAT_EVERY_S = 600
MODES = {"slices": None, "reserve only": 0}  # None: the setting's default


def org_sizes(repos: int, issues: int) -> list[int]:
    """Repository sizes like an organization's: Zipf-like (a few large, a long tail of small),
    at least 20 issues each, summing to `issues`."""
    weights = [1 / (rank**1.1) for rank in range(1, repos + 1)]
    spare = issues - 20 * repos
    sizes = [20 + int(spare * w / sum(weights)) for w in weights]
    sizes[0] += issues - sum(sizes)
    return sizes


# --- in the child: one mode, on its own scratch database ---------------------------------------


class Queue:
    """Celery's ingest queue and one worker, as far as the syncs can tell: FIFO by the time a
    task becomes due (a countdown's end), the beat's runs enqueued every BEAT_EVERY_S."""

    def __init__(self):
        self.heap: list = []
        self.seq = itertools.count()

    def push(self, due: float, repository_id: int, continuation: bool, enqueued: float) -> None:
        heapq.heappush(self.heap, (due, next(self.seq), repository_id, continuation, enqueued))

    def pop_due(self, now: float):
        if self.heap and self.heap[0][0] <= now:
            return heapq.heappop(self.heap)
        return None

    def next_due(self) -> float | None:
        return self.heap[0][0] if self.heap else None


def _simulate(
    traveller, repositories, *, until_done: set[int], beats: dict, record, every=BEAT_EVERY_S
):
    """Run turns until every repository of `until_done` had a complete sync; `record(turn, pk,
    enqueued, ended, complete)` after each turn. `beats`: each repository's first beat run, in
    seconds from now; then one every `every` seconds. Returns the virtual seconds it took."""
    from triage.models import Repository
    from triage.sources.github import schedule

    queue, started = Queue(), time.time()
    next_beat = {pk: started + offset for pk, offset in beats.items()}
    by_pk = {r.pk: r for r in repositories}
    waiting = set(until_done)
    draining = False  # done: the tasks already due still run (they were waiting meanwhile)
    while waiting or draining:
        now = time.time()
        for pk in sorted(next_beat, key=next_beat.get):
            if next_beat[pk] <= now and not draining:
                queue.push(next_beat[pk], pk, False, next_beat[pk])
                next_beat[pk] += every
        task = queue.pop_due(now)
        if task is None and draining:
            break
        if task is None:
            due = min(filter(None, (queue.next_due(), min(next_beat.values()))))
            traveller.shift(max(0.0, due - now) + 0.001)
            continue
        _, _, pk, continuation, enqueued = task
        repository = Repository.objects.get(pk=by_pk[pk].pk)
        turn = schedule.sync_turn(repository, continuation=continuation)
        ended = time.time()
        if turn.again_in is not None:
            queue.push(ended + turn.again_in, pk, True, enqueued if continuation else ended)
        complete = turn.synced and schedule.last_complete_sync(repository) is not None
        record(turn, pk, enqueued, ended, complete)
        if complete and pk in waiting:
            waiting.discard(pk)
            draining = not waiting
            # what became due during this turn was enqueued while it ran
            for other in sorted(next_beat, key=next_beat.get):
                while next_beat[other] <= ended:
                    queue.push(next_beat[other], other, False, next_beat[other])
                    next_beat[other] += every
        if ended - started > 7 * 86400:
            raise SystemExit("a week of virtual time and not done: something is stuck")
    return time.time() - started


def _quantiles(values: list[float]) -> dict:
    if not values:
        return {"n": 0}
    ordered = sorted(values)
    return {
        "n": len(ordered),
        "median": round(statistics.median(ordered), 1),
        "p90": round(ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))], 1),
        "max": round(ordered[-1], 1),
    }


def _requests_by_repository(emulator, since: int = 0) -> dict[str, int]:
    """Requests GitHub counted (not 304s, not the App's JWT calls) per repository."""
    counted: dict[str, int] = {}
    for entry in emulator.requests[since:]:
        parts = entry["path"].split("/")
        if len(parts) > 3 and parts[1] == "repos" and entry["status"] != 304:
            name = f"{parts[2]}/{parts[3]}"
            counted[name] = counted.get(name, 0) + 1
    return counted


def _child(args: argparse.Namespace) -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    import time_machine
    from django.conf import settings
    from django.core.cache import cache

    from tests.fakes.github_api import GitHubEmulator
    from tests.fakes.github_hooks import app_key_pair
    from triage.services import tracking
    from triage.sources.github import app_auth

    private_pem, public_numbers = app_key_pair()
    cache.clear()
    figures: dict = {"mode": args.mode}
    with (
        GitHubEmulator(token=harness.TOKEN) as emulator,
        time_machine.travel(datetime.now(UTC), tick=True) as traveller,
    ):
        settings.GITHUB_API_URL = emulator.url
        settings.GITHUB_TOKEN = ""
        settings.GITHUB_APP_ID, settings.GITHUB_APP_PRIVATE_KEY = str(APP_ID), private_pem
        settings.GITHUB_RETRY_BACKOFF = 0
        if args.slice is not None:
            settings.GITHUB_BACKFILL_SLICE_REQUESTS = args.slice
        figures["slice"] = settings.GITHUB_BACKFILL_SLICE_REQUESTS
        figures["reserve"] = settings.GITHUB_RATE_RESERVE
        app_auth.app_caches_clear()
        emulator.add_app(APP_ID, public_numbers)
        names = [f"{ORG}/repo{n:02d}" for n in range(args.repos)]
        for n, (name, size) in enumerate(
            zip(names, org_sizes(args.repos, args.issues), strict=True)
        ):
            emulator.add_repo(name)
            emulator.bulk_generate(name, size, args.comments, pr_every=10, seed=n)
            emulator.prerender(name)
        installation = emulator.add_installation(ORG)  # all the organization's repositories
        figures["budget_per_hour"] = emulator.installation_rate_limit(installation)["limit"]

        # A: the App installed; every repository backfills
        repositories = [tracking.repository_track(full_name=name) for name in names]
        done_at: dict[int, float] = {}
        started = time.time()

        def record_a(turn, pk, enqueued, ended, complete):
            if complete and pk not in done_at:
                done_at[pk] = ended - started

        pks = {r.pk for r in repositories}
        # the installation tracks them all at once: their beat entries start together
        beats = dict.fromkeys(pks, 0.0)
        seconds = _simulate(traveller, repositories, until_done=pks, beats=beats, record=record_a)
        spent = _requests_by_repository(emulator)
        figures["a"] = {
            "repositories": len(repositories),
            "virtual_hours": round(seconds / 3600, 2),
            "first_complete_sync_s": _quantiles(list(done_at.values())),
            "requests_total": sum(spent.values()),
            "requests_per_repository": _quantiles([float(v) for v in spent.values()]),
        }

        # B: a large repository added; the others webhook-fed, their syncs keep coming
        settings.GITHUB_WEBHOOK_FED_SYNC_MINUTES = 0  # every beat run a reconciliation
        big = f"{ORG}/big"
        emulator.add_repo(big)
        emulator.bulk_generate(big, args.big_issues, args.comments, pr_every=10, seed=999)
        emulator.prerender(big)
        # as the installation_repositories delivery does; its first sync finds its installation
        newcomer = tracking.repository_track(full_name=big)
        others: list[tuple[float, float]] = []  # (enqueued, ended) of the others' syncs
        big_started = time.time()
        big_done: list[float] = []

        def record_b(turn, pk, enqueued, ended, complete):
            if pk == newcomer.pk:
                if complete:
                    big_done.append(ended)
            elif turn.synced:
                others.append((enqueued, ended))

        before = len(emulator.requests)
        # the newcomer's first sync at once; the others' beat runs spread over their interval
        every = args.b_interval
        beats = {pk: every * (n + 1) / (len(pks) + 1) for n, pk in enumerate(sorted(pks))}
        beats[newcomer.pk] = 0.0
        _simulate(
            traveller,
            [*repositories, newcomer],
            until_done={newcomer.pk},
            beats=beats,
            record=record_b,
            every=every,
        )
        # the others' syncs enqueued while the backfill ran: how long each took to its end
        waits = [ended - enqueued for enqueued, ended in others if enqueued < big_done[0]]
        spent = _requests_by_repository(emulator, since=before)
        spent_others = sum(v for k, v in spent.items() if k != big)
        figures["b"] = {
            "big_issues": args.big_issues,
            "interval_s": every,
            "backfill_s": round(big_done[0] - big_started, 1),
            "backfill_requests": spent.get(big, 0),
            "others_sync_wait_s": _quantiles(waits),
            "others_requests_per_sync": round(spent_others / max(1, len(others)), 2),
        }
    cache.clear()
    print(json.dumps(figures))


# --- in the parent -----------------------------------------------------------------------------


def _run_mode(args: argparse.Namespace, mode: str, slice_: int | None) -> dict:
    import redis

    with harness.scratch_database(args.database_url) as database_url:
        harness.migrate(database_url)
        broker = redis.Redis.from_url(args.redis_url)
        broker.flushdb()
        env = harness.base_env(DATABASE_URL=database_url, REDIS_URL=args.redis_url)
        argv = [__file__, "--child", "--mode", mode, *_passed(args)]
        if slice_ is not None:
            argv += ["--slice", str(slice_)]
        try:
            return harness.run_json(argv, env, timeout=args.timeout)
        finally:
            broker.flushdb()


def _passed(args: argparse.Namespace) -> list[str]:
    return [
        f"--repos={args.repos}",
        f"--issues={args.issues}",
        f"--comments={args.comments}",
        f"--big-issues={args.big_issues}",
        f"--b-interval={args.b_interval}",
    ]


def _print(results: list[dict]) -> None:
    print(f"{'':34}" + "".join(f"{r['mode']:>18}" for r in results))

    def row(label, get):
        cells = []
        for r in results:
            try:
                cells.append(f"{get(r)!s:>18}")
            except KeyError:  # no sample (e.g. no other sync came while a short backfill ran)
                cells.append(f"{'-':>18}")
        print(f"{label:34}" + "".join(cells))

    row("installation budget / hour", lambda r: r["budget_per_hour"])
    row("backfill slice (requests)", lambda r: r["slice"] or "none")
    row("A: hours to the last first sync", lambda r: r["a"]["virtual_hours"])
    for q in ("median", "p90", "max"):
        row(f"A: first complete sync {q} (s)", lambda r, q=q: r["a"]["first_complete_sync_s"][q])
    row("A: requests in all", lambda r: r["a"]["requests_total"])
    row("A: requests / repository, median", lambda r: r["a"]["requests_per_repository"]["median"])
    row("A: requests / repository, max", lambda r: r["a"]["requests_per_repository"]["max"])
    row("B: others' sync interval (s)", lambda r: r["b"]["interval_s"])
    row("B: large backfill (s)", lambda r: r["b"]["backfill_s"])
    row("B: its requests", lambda r: r["b"]["backfill_requests"])
    for q in ("median", "p90", "max"):
        row(f"B: others' sync wait {q} (s)", lambda r, q=q: r["b"]["others_sync_wait_s"][q])
    row("B: others' syncs meanwhile", lambda r: r["b"]["others_sync_wait_s"]["n"])
    row("B: requests per other sync", lambda r: r["b"]["others_requests_per_sync"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", type=int, default=50)
    parser.add_argument("--issues", type=int, default=100_000, help="in all, over --repos")
    parser.add_argument("--comments", type=int, default=1, help="per issue")
    parser.add_argument("--big-issues", type=int, default=30_000, help="B's added repository")
    parser.add_argument(
        "--b-interval",
        type=float,
        default=120,
        help="B: seconds between two scheduled syncs of each other repository (2 minutes: "
        "GITHUB_SYNC_INTERVAL_MINUTES=2, a busy case; each a reconciliation)",
    )
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/bench_org")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/13")
    parser.add_argument("--timeout", type=float, default=3600)
    parser.add_argument("--json", type=Path, help="write the figures here too")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--mode", help=argparse.SUPPRESS)
    parser.add_argument("--slice", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args)
        return
    print(harness.machine())
    results = [_run_mode(args, mode, slice_) for mode, slice_ in MODES.items()]
    _print(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
