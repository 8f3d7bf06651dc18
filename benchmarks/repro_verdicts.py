"""Repro verdicts on a corpus of reproducers: are unrelated failures ever called reproduced or
counted as passes, does bisection find the release that changed the verdict, and what do
per-version environments and a bisection cost.

Each case of the corpus is a folder: `issue.md` (first line the title, then the body a reporter
would post: prose, the script in a ```python block, the error they saw, their versions),
`meta.json` (`class`: wrong_result | crash | compile_error | environment | unrelated; `backend`;
`arch`; `reported_triton`; `per_version`: what each release did, found by running it;
`first_good` / `first_bad`: the release that fixed or broke it, or null) and `repro.py`. A case
whose meta names `report_of` takes that case's issue.md (the same report, asked of another
backend, or written another way: `variant`, one of VARIANTS: its devices "cuda", a script that
turns the interpreter on itself, a modified second snippet quoting another error).

Every case goes through the service's real path on a scratch SQLite database, as `run_repro
OWNER/NAME#N --approve` runs it: extraction of the script, the reported failure and versions,
an attempt on the current Triton and on the reporter's release in its per-version environment
(the sandbox, the canary check), the comparison targets for a compile error, and the bisection
when the two disagree. Scored:

- unrelated failures called reproduced or counted as passes (target 0): on an `unrelated` case
  any reproduced, flaky or not_reproduced attempt; on an `environment` case any attempt on a
  release where the script's API is missing that is not environment_mismatch;
- reported failures found: `wrong_result` / `crash` / `compile_error` / `environment` cases
  reproduced on the reporter's release;
- bisection: the first good (or bad) release found equals the corpus's, within
  ceil(log2(n)) + 2 steps;
- judged unobservable (target 0): an attempt, the case's own or a comparison, on a backend that
  cannot show the case's class of failure (a compile-only backend and a wrong result, the
  interpreter and an AMD compile error) whose passes are called not_reproduced; they must be
  cannot_observe (what it did show, a failure, is still judged). A case whose own backend
  cannot show it (`observable: false` in its meta) is asked only that: it cannot be found
  there;
- cost: each per-version environment built (seconds, MB) and the cached reuse; each case's
  wall time, and its bisection's.

    python benchmarks/repro_verdicts.py --corpus benchmarks/repro_corpus [--env-dir DIR]
        [--runs 1] [--only NAME,NAME] [--json]

--env-dir defaults to a fresh temporary folder, so that the first build of each release is
measured; pass a kept folder to measure a warm runner.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.harness import base_env, migrate, scratch_database  # noqa: E402

REAL = {"wrong_result", "crash", "compile_error"}
CALLED_A_RESULT = {"reproduced", "flaky", "not_reproduced"}


def _gpu_devices(body: str) -> str:
    """The script as a GPU user writes it: its device a module constant, "cuda"."""
    start = body.index("```python\n") + len("```python\n")
    script = body[start:].replace('device="cpu"', "device=DEVICE")
    return body[:start] + 'DEVICE = "cuda"\n' + script


def _self_interpreting(body: str) -> str:
    """The script turns Triton's interpreter on itself, as many reporters' scripts do."""
    start = body.index("```python\n") + len("```python\n")
    return body[:start] + 'import os\n\nos.environ["TRITON_INTERPRET"] = "1"\n' + body[start:]


def _second_snippet(body: str) -> str:
    """After the report: a modified copy of the kernel and the (other) error it gives."""
    return (
        body
        + "\nIf I change `apply_relu` to a `tl.constexpr` the flag works, but then this variant"
        + " does not compile:\n\n```python\n@triton.jit\ndef bias_act_kernel(x_ptr, n, "
        + "apply_relu: tl.constexpr):\n    y = tl.load(x_ptr + tl.arange(0, 100))\n```\n\n"
        + "```\ntriton.compiler.errors.CompilationError: at 2:32:\n    y = tl.load(x_ptr + "
        + "tl.arange(0, 100))\n                                ^\narange's range must be a "
        + "power of 2\n```\n"
    )


# A case's meta may name a `variant` of the report it takes (`report_of`): the same bug written
# the ways real reports write it, which the service must read through.
VARIANTS = {
    "gpu_devices": _gpu_devices,
    "self_interpreting": _self_interpreting,
    "second_snippet": _second_snippet,
}


def load_corpus(folder: Path, only: set[str]) -> list[dict]:
    cases = []
    for path in sorted(p for p in folder.iterdir() if (p / "meta.json").exists()):
        if only and path.name not in only:
            continue
        meta = json.loads((path / "meta.json").read_text())
        report = folder / meta.get("report_of", path.name) / "issue.md"  # another case's report
        title, _, body = report.read_text().partition("\n")
        body = VARIANTS[meta["variant"]](body) if meta.get("variant") else body
        cases.append({"name": path.name, "title": title.strip(), "body": body, "meta": meta})
    return cases


def _setup(database_url: str, env_dir: str) -> None:
    os.environ.update(base_env(DATABASE_URL=database_url, KERNELS_CI_ENV_DIR=env_dir))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def run_case(case: dict, number: int, runs: int) -> dict:
    from django.core.management import call_command

    from kernels_ci.models import Bisection, ReproRun
    from kernels_ci.services.cases import case_refresh
    from triage.models import Issue, Repository

    repository, _ = Repository.objects.get_or_create(full_name="bench/triton")
    issue = Issue.objects.create(
        repository=repository,
        number=number,
        title=case["title"],
        body=case["body"],
        created_at="2026-01-01T00:00:00Z",
        updated_at="2026-01-01T00:00:00Z",
    )
    found = case_refresh(issue=issue)
    row = {"name": case["name"], "class": case["meta"]["class"], "extracted": bool(found)}
    if found is None or not found.script:
        row["problem"] = "no reproducer extracted"
        return row
    options = ["--approve", "--runs", str(runs), "--json"]
    backend = case["meta"].get("backend", "")
    if backend and backend != found.backend:
        options += ["--backend", backend]
    arch = case["meta"].get("arch", "")
    if arch and arch != "cpu":
        options += ["--arch", arch]
    started = time.perf_counter()
    out = StringIO()
    try:
        call_command("run_repro", f"bench/triton#{number}", *options, stdout=out)
    except Exception as exc:  # a refusal is a finding of its own
        row["problem"] = f"{type(exc).__name__}: {exc}"
        return row
    row["seconds"] = round(time.perf_counter() - started, 1)
    runs_ = ReproRun.objects.filter(case=found).order_by("pk")
    row["attempts"] = [
        {
            "backend": r.backend,
            "arch": r.arch,
            "purpose": r.purpose,
            "pinned": bool(r.versions),
            "triton": (r.ran_versions or {}).get("triton", ""),
            "outcome": r.outcome,
            "signature": r.signature[:120],
            "seconds": r.duration_s,
            "environment": next((n for n in r.log.splitlines() if "built in" in n), ""),
            "environment_failure": any(e.get("kind") == "environment" for e in r.executions),
        }
        for r in runs_
    ]
    bisection = Bisection.objects.filter(case=found).first()
    if bisection is not None:
        steps = bisection.runs.all()
        row["bisection"] = {
            "result": bisection.result,
            "first": bisection.first_version,
            "direction": bisection.direction,
            "steps": bisection.steps,
            "max_steps": bisection.max_steps,
            "seconds": round(sum(r.duration_s or 0 for r in steps), 1),
        }
    return row


def score(case: dict, row: dict) -> dict:
    """What the row says about the case: failures misjudged, real ones found, bisection right.

    Misjudged (target 0): on an `unrelated` case, any attempt called reproduced, flaky or not
    reproduced; on any case, an attempt whose executions failed because of the versions but
    that is called flaky or not reproduced (reproduced it can only be by matching the error the
    report quotes: a report about that very error); on an `environment` case, an attempt on a
    release that fails called anything but reproduced or environment mismatch."""
    from kernels_ci.backends import describe

    meta, attempts = case["meta"], row.get("attempts", [])
    verdict = {"misjudged": [], "found": None, "bisected": None, "unobservable": []}
    per_version = meta.get("per_version", {})
    kind = meta["class"] if meta["class"] in REAL else ""
    for attempt in attempts:
        unseen = kind and not describe(attempt["backend"]).can_observe(kind)
        if unseen and attempt["outcome"] == "not_reproduced":  # its passes, taken for a result
            verdict["unobservable"].append(
                f"{attempt['backend']}@{attempt['triton']}: {attempt['outcome']}"
            )
    if meta.get("observable", True) is False:
        return verdict  # its own backend cannot find it: asked only the above
    for attempt in attempts:
        if attempt["backend"] != meta.get("backend", attempt["backend"]):
            continue  # a comparison target, judged by its own rules
        seen = per_version.get(attempt["triton"], "")
        outcome, where = attempt["outcome"], attempt["triton"]
        wrong = False
        if meta["class"] == "unrelated":
            wrong = outcome in CALLED_A_RESULT
        elif attempt["environment_failure"]:
            # reproduced only by matching the error the report quotes: a report about it
            allowed = {"environment_mismatch", "infra_error", "invalid", "failed_differently"}
            wrong = outcome not in allowed | {"reproduced"}
        elif meta["class"] == "environment" and seen and seen != "pass":
            wrong = outcome not in {"reproduced", "environment_mismatch"}
        if wrong:
            verdict["misjudged"].append(f"{where}: {outcome} ({seen or attempt['signature']})")
    if meta["class"] in REAL | {"environment"}:
        reported = meta.get("reported_triton", "")
        on_reported = [a for a in attempts if a["triton"] == reported and a["purpose"] == "repro"]
        verdict["found"] = any(a["outcome"] == "reproduced" for a in on_reported)
        expected = meta.get("first_good") or meta.get("first_bad")
        current = next((a["triton"] for a in attempts if not a["pinned"]), "")
        if expected and reported != current:  # on the current release: nothing to bisect
            found = row.get("bisection", {})
            verdict["bisected"] = bool(found) and found["first"] == expected
            verdict["expected_first"] = expected
    return verdict


def environments_built(rows: list[dict]) -> list[float]:
    seconds = []
    for row in rows:
        for attempt in row.get("attempts", []):
            note = attempt["environment"]
            if note:
                seconds.append(float(note.split("built in ")[1].split(" s")[0]))
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=ROOT / "benchmarks" / "repro_corpus")
    parser.add_argument("--env-dir", default="")
    parser.add_argument("--runs", type=int, default=1, help="executions per attempt")
    parser.add_argument("--only", default="", help="case names, comma-separated")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    cases = load_corpus(args.corpus, {n for n in args.only.split(",") if n})
    if not cases:
        raise SystemExit(f"no cases in {args.corpus}")
    env_dir = args.env_dir or tempfile.mkdtemp(prefix="bench-envs-", dir="/var/tmp")  # noqa: S108
    rows = []
    with scratch_database("sqlite") as url:
        migrate(url)
        _setup(url, env_dir)
        for number, case in enumerate(cases, start=1):
            row = run_case(case, number, args.runs)
            row["score"] = score(case, row)
            rows.append(row)
            if not args.json:
                print(_line(row), flush=True)
    built = environments_built(rows)
    summary = {
        "cases": len(rows),
        "misjudged_unrelated": sum(len(r["score"]["misjudged"]) for r in rows),
        "judged_unobservable": sum(len(r["score"]["unobservable"]) for r in rows),
        "cannot_observe_attempts": sum(
            1 for r in rows for a in r.get("attempts", []) if a["outcome"] == "cannot_observe"
        ),
        "reported_failures_found": sum(1 for r in rows if r["score"]["found"]),
        "reported_failures": sum(1 for r in rows if r["score"]["found"] is not None),
        "bisections_right": sum(1 for r in rows if r["score"]["bisected"]),
        "bisections_expected": sum(1 for r in rows if r["score"]["bisected"] is not None),
        "environments_built": len(built),
        "environment_build_median_s": round(statistics.median(built), 1) if built else None,
        "bisection_seconds": [r["bisection"]["seconds"] for r in rows if "bisection" in r],
        "env_dir": env_dir,
    }
    if args.json:
        print(json.dumps({"summary": summary, "cases": rows}, indent=2))
    else:
        print(json.dumps(summary, indent=2))
    if not args.env_dir:
        shutil.rmtree(env_dir, ignore_errors=True)


def _line(row: dict) -> str:
    attempts = ", ".join(
        f"{a['backend'].removeprefix('triton-')}/{a['arch']}@{a['triton']}"
        f"{'*' if a['pinned'] else ''}={a['outcome']}"
        for a in row.get("attempts", [])
    )
    bisection = row.get("bisection", {}).get("result", "")
    score_ = row["score"]
    marks = []
    if score_["misjudged"]:
        marks.append(f"MISJUDGED {score_['misjudged']}")
    if score_["unobservable"]:
        marks.append(f"JUDGED WHAT IT CANNOT SEE {score_['unobservable']}")
    if score_["found"] is False:
        marks.append("NOT FOUND")
    if score_["bisected"] is False:
        marks.append(f"BISECTION WRONG (expected {score_.get('expected_first')})")
    head = f"{row['name']} [{row['class']}] {row.get('seconds', '-')} s"
    return (
        f"{head}: {attempts or row.get('problem')}"
        + (f"\n    bisection: {bisection}" if bisection else "")
        + (f"\n    {'; '.join(marks)}" if marks else "")
    )


if __name__ == "__main__":
    main()
