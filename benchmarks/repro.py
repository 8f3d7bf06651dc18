"""Kernel reproduction: queue-to-start latency, the cost of one attempt, attempts per hour.

1. Queue-to-start latency on an idle worker: a real `celery worker -Q repro.cpu -c 1` on Redis
   (db 13) and a scratch Postgres database (bench_repro, created and dropped); each run row is
   created (queued), dispatched by id, and the worker's claim stamps `claimed_at`;
   latency = claimed_at - created_at (one machine, one clock). The case
   is a tiny approved script, so the worker is idle between runs.
2. The cost of one `triton-interpreter` attempt of N executions (default 5) of the wrong-mask
   reproducer (kernels_ci/fixtures/kernels/wrong_mask.py), in-process, sandbox included; and one
   `triton-amd-compile` attempt for gfx942.
3. Attempts per hour per worker (concurrency 1) = 3600 / attempt cost.
4. The sandbox's own cost: one `python -S -c pass` in the namespaces (unshare, our init, the
   mounts, the cgroup where one can be made) against the same command without them.

    python benchmarks/repro.py --latency-runs 20 --attempts 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.harness import base_env, migrate, scratch_database, stop_process  # noqa: E402

REDIS = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/13")
POSTGRES = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bench_repro")
TINY = "import torch  # noqa\nimport triton  # noqa\nprint('ok')\n"


def _setup_django(database_url: str, redis_url: str = "") -> None:
    os.environ.update(base_env(DATABASE_URL=database_url))
    if redis_url:
        os.environ["REDIS_URL"] = redis_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def _case(script: str, *, backend: str, number: int):
    from kernels_ci.models import ReproCase
    from kernels_ci.services.cases import case_approve, case_refresh
    from triage.models import Issue, Repository

    repository, _ = Repository.objects.get_or_create(full_name="bench/repro")
    body = f"Wrong result on gfx942.\n\n```python\n{script}```\n"
    issue, _ = Issue.objects.update_or_create(
        repository=repository,
        number=number,
        defaults={
            "title": "bench",
            "body": body,
            "created_at": "2025-01-01T00:00:00Z",
            "updated_at": "2025-01-01T00:00:00Z",
        },
    )
    case = case_refresh(issue=issue)
    ReproCase.objects.filter(pk=case.pk).update(backend=backend)
    case.refresh_from_db()
    return case_approve(case=case, login="bench", via="command")


def latency(runs: int) -> list[float]:
    import redis

    redis.Redis.from_url(REDIS).flushdb()
    with scratch_database(POSTGRES) as url:
        migrate(url)
        _setup_django(url, REDIS)
        from kernels_ci.models import ReproRun
        from kernels_ci.services.runs import runs_queue

        env = base_env(DATABASE_URL=url, REDIS_URL=REDIS)
        name = f"bench-{uuid.uuid4().hex[:6]}@localhost"
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "-n",
                name,
                "-Q",
                "repro.cpu",
                "-c",
                "1",
                "-P",
                "prefork",
                "--without-gossip",
                "--without-mingle",
                "-l",
                "WARNING",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            from config.celery import app

            deadline = time.monotonic() + 60
            while not app.control.ping(destination=[name], timeout=0.5):
                if time.monotonic() > deadline:
                    raise SystemExit("the worker did not start")
            case = _case(TINY, backend="triton-interpreter", number=1)
            from kernels_ci.models import ReproCase

            ReproCase.objects.filter(pk=case.pk).update(runs_per_attempt=1)
            case.refresh_from_db()
            latencies = []
            for _ in range(runs):
                (run,) = runs_queue(case=case)
                deadline = time.monotonic() + 60
                while True:
                    run.refresh_from_db()
                    if run.status == ReproRun.Status.DONE:
                        break
                    if time.monotonic() > deadline:
                        raise SystemExit(f"run {run.pk} did not finish")
                    time.sleep(0.05)
                latencies.append(run.queue_wait_s)
                time.sleep(0.5)  # idle worker before the next one
            return latencies
        finally:
            stop_process(worker)


def attempt_cost(attempts: int, runs: int) -> dict[str, list[float]]:
    with scratch_database("sqlite") as url:
        migrate(url)
        _setup_django(url)
        from kernels_ci.services.runs import run_execute, runs_queue

        script = (ROOT / "kernels_ci" / "fixtures" / "kernels" / "wrong_mask.py").read_text()
        costs: dict[str, list[float]] = {k: [] for k in ("interpreter", "compile", "cpu", "ccpu")}
        interp = _case(script, backend="triton-interpreter", number=2)
        compile_ = _case(script, backend="triton-amd-compile", number=3)
        for _ in range(attempts):
            (run,) = runs_queue(case=interp, runs=runs, dispatch=False)
            started, cpu = time.monotonic(), _children_cpu()
            done = run_execute(run_id=run.pk)
            costs["interpreter"].append(time.monotonic() - started)
            costs["cpu"].append(_children_cpu() - cpu)
            assert done.outcome == "reproduced", done.detail
            (run,) = runs_queue(case=compile_, archs=["gfx942"], dispatch=False)
            started, cpu = time.monotonic(), _children_cpu()
            run_execute(run_id=run.pk)
            costs["compile"].append(time.monotonic() - started)
            costs["ccpu"].append(_children_cpu() - cpu)
        return costs


def _children_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes: the sandboxed runs."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def sandbox_cost(runs: int) -> dict[str, list[float]]:
    with scratch_database("sqlite") as url:
        _setup_django(url)
        from kernels_ci.sandbox import Limits, isolation_problem, sandbox_run

        problem = isolation_problem()
        if problem:
            raise SystemExit(f"no sandbox here: {problem}")
        costs: dict[str, list[float]] = {"namespaces": [], "plain": []}
        for _ in range(runs):
            for kind in ("namespaces", "plain"):
                started = time.monotonic()
                result = sandbox_run(
                    [sys.executable, "-S", "-c", "pass"],
                    files={"repro.py": "pass\n"},
                    limits=Limits(timeout_s=30),
                    namespaces=kind == "namespaces",
                )
                costs[kind].append(time.monotonic() - started)
                assert result.returncode == 0, result.stderr
        return costs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-runs", type=int, default=20)
    parser.add_argument("--attempts", type=int, default=3)
    parser.add_argument("--runs", type=int, default=5, help="executions per attempt")
    parser.add_argument("--sandbox-runs", type=int, default=20)
    parser.add_argument("--part", choices=["all", "latency", "cost", "sandbox"], default="all")
    args = parser.parse_args()
    if args.part == "all":  # each part sets Django up on its own database: one process each
        for part in ("latency", "cost", "sandbox"):
            subprocess.run([sys.executable, __file__, *sys.argv[1:], "--part", part], check=True)
        return
    if args.part == "latency":
        lat = sorted(latency(args.latency_runs))
        p90 = lat[max(0, int(len(lat) * 0.9) - 1)]
        print(
            f"queue-to-start latency, idle worker, {len(lat)} runs: p50 "
            f"{statistics.median(lat) * 1000:.0f} ms, p90 {p90 * 1000:.0f} ms, "
            f"max {lat[-1] * 1000:.0f} ms"
        )
        return
    if args.part == "sandbox":
        costs = sandbox_cost(args.sandbox_runs)
        confined = statistics.median(costs["namespaces"]) * 1000
        plain = statistics.median(costs["plain"]) * 1000
        print(
            f"sandbox, {args.sandbox_runs} runs of python -S -c pass: median {confined:.0f} ms in "
            f"namespaces, {plain:.0f} ms without (the sandbox adds {confined - plain:.0f} ms)"
        )
        return
    costs = attempt_cost(args.attempts, args.runs)
    interp = statistics.median(costs["interpreter"])
    comp = statistics.median(costs["compile"])
    runs = ", ".join(f"{c:.2f}" for c in costs["interpreter"])
    cpu, ccpu = statistics.median(costs["cpu"]), statistics.median(costs["ccpu"])
    print(
        f"triton-interpreter attempt of {args.runs} runs: median {interp:.2f} s ({runs}); "
        f"CPU {cpu:.2f} s"
    )
    print(f"triton-amd-compile attempt (gfx942, 1 compile): median {comp:.2f} s; CPU {ccpu:.2f} s")
    print(
        f"attempts/hour/worker (concurrency 1): interpreter {3600 / interp:.0f}, "
        f"compile {3600 / comp:.0f}"
    )


if __name__ == "__main__":
    main()
