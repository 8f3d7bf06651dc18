"""The worst time of every reader of untrusted text on texts written to be slow.

Each reader (repro extraction, environment extraction, the severity rules, the model's text
cleaning, the release linker's closing keywords, a post's mentions and issue links, a run's
output signature, the devices rewrite of a reproducer, the log redaction, the Markdown
renderer, the symptom and severity rules) reads every family of tests/security/adversarial.py
at each size; a call is stopped after --limit-s seconds and reported as over it. Prints one row
per reader: its worst time, the family that gave it, and the median over the families; with
--json, every time.

    python benchmarks/untrusted_text.py --sizes 65536 262144
    python benchmarks/untrusted_text.py --sizes 65536 --limit-s 30 --json   # before a fix

The target (issue 15): repro extraction under 50 ms at both sizes, for every family.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DEBUG", "1")
os.environ.setdefault("VAR_DIR", str(ROOT / "var" / "bench-untrusted"))

import django  # noqa: E402

django.setup()

from tests.security.adversarial import adversarial_texts  # noqa: E402


class OverLimit(Exception):
    pass


def readers() -> dict:
    from classifiers.extraction import environment_extract
    from classifiers.features import issue_text
    from classifiers.severity import severity_of_text
    from classifiers.symptom import symptom_read
    from config.log_filters import redact
    from kernels_ci.extraction import extract
    from kernels_ci.rewrites import rewrite_for_cpu
    from kernels_ci.sandbox import SandboxResult
    from kernels_ci.signatures import observe
    from releases.linking import closing_references
    from triage.services.post_understanding import post_mentions
    from triage.services.priority import PLUS_ONE, REGRESSION
    from triage.text.rendering import render_markdown

    def signature(text: str):
        return observe(SandboxResult(returncode=1, stdout=text[: len(text) // 2], stderr=text))

    def comment_rules(text: str):
        return PLUS_ONE.search(text), REGRESSION.search(text)

    return {
        "repro extraction": lambda text: extract(title="Kernel fails", body=text),
        "environment": lambda text: environment_extract("Kernel fails", text),
        "symptom rules": lambda text: symptom_read("Kernel fails", text),
        "severity rules": lambda text: severity_of_text("Kernel fails", text),
        "model text": lambda text: issue_text("Kernel fails", text),
        "closing keywords": closing_references,
        "post mentions": post_mentions,
        "comment rules": comment_rules,
        "run signature": signature,
        "devices rewrite": lambda text: rewrite_for_cpu(text, keep_interpret=False),
        "log redaction": redact,
        "markdown render": render_markdown,
    }


def _alarm(signum, frame):
    raise OverLimit


def timed(function, text: str, limit_s: float) -> float:
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, limit_s)
    started = time.perf_counter()
    try:
        function(text)
    except OverLimit:
        return float("inf")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[65536, 262144])
    parser.add_argument("--limit-s", type=float, default=10.0)
    parser.add_argument("--repeat", type=int, default=3, help="best of N per text")
    parser.add_argument("--only", nargs="*", help="reader names")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = []
    for name, function in readers().items():
        if args.only and name not in args.only:
            continue
        for size in args.sizes:
            times = {}
            for family, text in adversarial_texts(size).items():
                best = min(timed(function, text, args.limit_s) for _ in range(args.repeat))
                times[family] = best
            worst = max(times, key=times.get)
            results.append(
                {
                    "reader": name,
                    "size": size,
                    "worst_ms": times[worst] * 1000,
                    "worst_family": worst,
                    "median_ms": statistics.median(times.values()) * 1000,
                    "times_ms": {k: v * 1000 for k, v in times.items()},
                }
            )
    if args.json:
        print(json.dumps(results, indent=1, default=str))
        return
    print(f"{'reader':<18} {'chars':>7} {'worst':>10}  {'median':>8}  worst family")
    for row in results:
        worst = (
            f"> {args.limit_s:g} s" if row["worst_ms"] == float("inf") else f"{row['worst_ms']:.1f}"
        )
        print(
            f"{row['reader']:<18} {row['size']:>7} {worst:>10}  {row['median_ms']:>8.1f}  "
            f"{row['worst_family']}"
        )


if __name__ == "__main__":
    main()
