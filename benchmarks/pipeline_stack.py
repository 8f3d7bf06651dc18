"""The deployed pipeline behind a load benchmark: trained models, a release series, real Celery
workers on Redis, and the depth of each queue over time.

- `models_train`: trains kind, component, severity and the duplicates index on the demo data's
  weak labels (what `load_demo` does: `classifiers_retrain`), and sentiment on the bundled
  synthetic set, into a temporary CLASSIFIER_ARTIFACT_DIR (never the project's var/models). The
  demo data goes into a temporary SQLite database with REDIS_URL set to the benchmark's scratch
  Redis db, so its pipeline is only enqueued (then flushed), never run.
- `series_create`: a release series naming no repository (so every repository ships in it) whose
  calendar covers the emulator's and the webhook fixtures' merge dates, so fix links get trains.
- `celery_workers`: one `celery -A config worker -Q QUEUE -c N` per queue, each in its own
  process group, stopped (SIGTERM, then SIGKILL of that group) when the block ends.
- `QueueDepths`: a thread that samples LLEN of each queue and the broker's unacknowledged
  messages (HLEN unacked: tasks a worker holds) every `interval` seconds.
- `task_times`: per task name, how many succeeded and their run time, from the workers' logs.

    python benchmarks/pipeline_stack.py --train      (child mode, used by models_train)
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import harness  # noqa: E402

QUEUES = ("ingest", "classify", "releases", "repro.cpu")
SERIES_EPOCH = ("4.0", "2021-06-02")  # before the emulator's bulk history (from 2021-12-20)
TASK_LINE = re.compile(r"Task (\S+)\[[0-9a-f-]+\] succeeded in ([0-9.e-]+)s")
FAILED_LINE = re.compile(r"Task (\S+)\[[0-9a-f-]+\] (raised unexpected|retry)")


def redis_scratch(url: str):
    """A client of an empty Redis db (refused if it holds anything: it is flushed afterwards)."""
    import redis

    client = redis.Redis.from_url(url)
    if client.dbsize():
        raise SystemExit(f"{url} is not empty; refusing to use (and flush) it")
    return client


# --- models and series --------------------------------------------------------------------


def models_train(*, artifact_dir: Path, redis_url: str) -> dict:
    """Train the deployed models into `artifact_dir`; returns {model: version} and seconds."""
    broker = redis_scratch(redis_url)
    started = time.perf_counter()
    with harness.scratch_database("sqlite") as database_url:
        harness.migrate(database_url)
        env = harness.base_env(
            DATABASE_URL=database_url,
            REDIS_URL=redis_url,
            CLASSIFIER_ARTIFACT_DIR=str(artifact_dir),
        )
        try:
            result = harness.run_json([__file__, "--train"], env, timeout=1200)
        finally:
            broker.flushdb()
    result["seconds"] = time.perf_counter() - started
    return result


def _train() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from triage.services import classification, demo

    demo.demo_load()
    result = classification.classifiers_retrain(reclassify=False)
    result.reports.append(demo.demo_sentiment_train())
    print(json.dumps({"models": {r.name: r.version for r in result.reports if r.activated}}))


def series_create(database_url: str) -> None:
    """The release series, created by a child process in the benchmark's database."""
    env = harness.base_env(DATABASE_URL=database_url)
    harness.run_json([__file__, "--series"], env, timeout=120)


def _series() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from datetime import date

    from releases.services.series import series_create as create

    version, day = SERIES_EPOCH
    series = create(
        name="bench",
        title="Benchmark",
        epoch_version=version,
        epoch_date=date.fromisoformat(day),
        cadence_days=42,
        version_suffix=".0",
    )
    print(json.dumps({"series": series.name}))


# --- workers ------------------------------------------------------------------------------


def parse_workers(specs: list[str]) -> dict[str, int]:
    """["ingest:2", "classify:1"] -> {"ingest": 2, "classify": 1}."""
    workers = {}
    for spec in specs:
        queue, _, concurrency = spec.partition(":")
        workers[queue] = int(concurrency or 1)
    return workers


def _stop_group(proc: subprocess.Popen, grace: float = 30.0) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)  # warm shutdown: the running task finishes
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # its own group: the pool's children too
        proc.wait(timeout=grace)


@contextlib.contextmanager
def celery_workers(
    *,
    env: dict[str, str],
    workers: dict[str, int],
    log_dir: Path,
    nice: int = 0,
    timeout: float = 120,
) -> Iterator[list[Path]]:
    """Start one worker per queue (at `nice` CPU priority); yield their logs once all are ready."""
    started: list[tuple[subprocess.Popen, Path]] = []
    try:
        for queue, concurrency in workers.items():
            log = log_dir / f"worker-{queue}.log"
            with open(log, "wb") as out:
                proc = subprocess.Popen(
                    [
                        *(("nice", "-n", str(nice)) if nice else ()),
                        harness.PYTHON,
                        *("-m", "celery", "-A", "config", "worker"),
                        *("-n", f"bench-{queue}@%h", "-Q", queue, "-c", str(concurrency)),
                        *("-P", "prefork", "-l", "INFO", "--prefetch-multiplier", "1"),
                        *("--without-gossip", "--without-mingle", "--without-heartbeat"),
                    ],
                    cwd=harness.ROOT,
                    env=env,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            started.append((proc, log))
        deadline = time.monotonic() + timeout
        for proc, log in started:
            while "ready." not in log.read_text(errors="replace"):
                if proc.poll() is not None or time.monotonic() > deadline:
                    tail = log.read_text(errors="replace")[-3000:]
                    raise RuntimeError(f"a Celery worker did not start ({log}):\n{tail}")
                time.sleep(0.2)
        yield [log for _, log in started]
    finally:
        for proc, _ in started:
            _stop_group(proc)


def task_times(logs: list[Path]) -> tuple[dict[str, dict], int]:
    """({task name: {count, seconds, max_ms}}, failed or retried tasks) from worker logs."""
    stats: dict[str, dict] = {}
    failed = 0
    for log in logs:
        text = log.read_text(errors="replace")
        for name, seconds in TASK_LINE.findall(text):
            entry = stats.setdefault(name, {"count": 0, "seconds": 0.0, "max_ms": 0.0})
            entry["count"] += 1
            entry["seconds"] += float(seconds)
            entry["max_ms"] = max(entry["max_ms"], float(seconds) * 1000)
        failed += len(FAILED_LINE.findall(text))
    return stats, failed


def print_task_times(stats: dict[str, dict]) -> None:
    print("worker time per task (from the workers' logs):")
    for name, entry in sorted(stats.items(), key=lambda item: -item[1]["seconds"]):
        mean = entry["seconds"] / entry["count"] * 1000
        print(
            f"  {name:45s} {entry['count']:6d} tasks, {entry['seconds']:8.1f} s "
            f"(mean {mean:7.1f} ms, max {entry['max_ms']:8.1f} ms)"
        )


# --- queue depths -------------------------------------------------------------------------


class QueueDepths(threading.Thread):
    """Samples (seconds since start, {queue: LLEN}, unacked) until stop()."""

    def __init__(self, redis_url: str, queues=QUEUES, interval: float = 1.0):
        super().__init__(daemon=True)
        import redis

        self.client = redis.Redis.from_url(redis_url)
        self.queues, self.interval = tuple(queues), interval
        self.samples: list[tuple[float, dict[str, int], int]] = []
        self.started = time.monotonic()
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.is_set():
            self.sample()
            self._halt.wait(self.interval)

    def sample(self) -> tuple[float, dict[str, int], int]:
        pipe = self.client.pipeline(transaction=False)
        for queue in self.queues:
            pipe.llen(queue)
        pipe.hlen("unacked")
        *depths, unacked = pipe.execute()
        row = (
            time.monotonic() - self.started,
            dict(zip(self.queues, depths, strict=True)),
            unacked,
        )
        self.samples.append(row)
        return row

    def stop(self) -> None:
        self._halt.set()
        self.join(timeout=10)
        self.sample()

    def idle(self) -> bool:
        """Nothing waiting and nothing held by a worker, in the last two samples."""
        last = self.samples[-2:]
        return len(last) == 2 and all(not any(d.values()) and not u for _, d, u in last)

    def wait_idle(self, timeout: float) -> float | None:
        """Seconds since start when the queues were first seen idle, or None at the timeout."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.idle():
                busy = [t for t, d, u in self.samples if any(d.values()) or u]
                return busy[-1] + self.interval if busy else 0.0
            time.sleep(self.interval)
        return None

    def summary(self) -> dict[str, dict]:
        """{queue: {peak, peak_at, drained_at}}; drained_at: after the last non-empty sample."""
        result = {}
        for queue in (*self.queues, "unacked"):
            values = [(t, u if queue == "unacked" else d[queue]) for t, d, u in self.samples]
            peak_at, peak = max(values, key=lambda item: item[1], default=(0.0, 0))
            busy = [t for t, v in values if v]
            result[queue] = {
                "peak": peak,
                "peak_at": round(peak_at, 1),
                "drained_at": round(busy[-1] + self.interval, 1) if busy else 0.0,
            }
        return result

    def print_series(self, rows: int = 40) -> None:
        """A compact time series: at most `rows` lines, each the maximum over its slice."""
        samples = self.samples
        step = max(1, -(-len(samples) // rows))
        names = [q for q in self.queues if any(d[q] for _, d, _ in samples)] or ["ingest"]
        print("queue depths (LLEN; each line the maximum over its slice of samples):")
        print("  " + f"{'t (s)':>7}" + "".join(f"{n:>10}" for n in names) + f"{'unacked':>10}")
        for start in range(0, len(samples), step):
            chunk = samples[start : start + step]
            depth = {n: max(d[n] for _, d, _ in chunk) for n in names}
            unacked = max(u for _, _, u in chunk)
            print(
                "  "
                + f"{chunk[0][0]:7.0f}"
                + "".join(f"{depth[n]:>10,}" for n in names)
                + f"{unacked:>10,}"
            )

    def print_summary(self) -> None:
        for queue, entry in self.summary().items():
            if entry["peak"]:
                print(
                    f"  {queue:9s} peak {entry['peak']:>7,} at {entry['peak_at']:6.1f} s, "
                    f"empty from {entry['drained_at']:6.1f} s"
                )


def run_in_scratch(args, run, *, prefix: str, train: bool = True) -> dict:
    """`run(args, scratch)` in a temporary folder, with the models trained into it first (when
    `train`); copies the workers' logs to --keep-logs, writes --json, and adds the machine's load
    before and after. `args` needs redis_url, keep_logs and json."""
    load_before = uptime()
    scratch = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        if train:
            trained = models_train(artifact_dir=scratch / "models", redis_url=args.redis_url)
            print(f"# models trained in {trained['seconds']:.0f}s: {trained['models']}", flush=True)
        figures = run(args, scratch)
    finally:
        if args.keep_logs:
            Path(args.keep_logs).mkdir(parents=True, exist_ok=True)
            for log in scratch.glob("worker-*.log"):
                shutil.copy(log, args.keep_logs)
        shutil.rmtree(scratch, ignore_errors=True)
    figures["load_before"], figures["load_after"] = load_before, uptime()
    print(f"# after: {figures['load_after']}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1, default=str))
    return figures


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


if __name__ == "__main__":
    if sys.argv[1:] == ["--train"]:
        _train()
    elif sys.argv[1:] == ["--series"]:
        _series()
    else:
        raise SystemExit(__doc__)
