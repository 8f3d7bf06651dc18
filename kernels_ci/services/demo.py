"""Demo data of kernels_ci: synthetic issues with Triton reproducers, approved and run.

Four issues in a synthetic repository (written by us in GitHub's REST shape, ingested through
triage's upsert): a kernel with a wrong mask that really fails, a correct one that passes, one
that hangs, and one that fails to compile for gfx90a but compiles for gfx942. When the optional
`kernels` extra is missing the cases are created and approved, and the summary says how to
install it instead of running them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction

from config import github_web
from kernels_ci.backends import backend_get
from kernels_ci.backends.base import EXTRA_MISSING
from kernels_ci.models import ReproCase
from kernels_ci.services.cases import case_approve, case_refresh
from kernels_ci.services.runs import run_execute, runs_queue
from triage.models import Issue
from triage.sources.github import ingest

REPOSITORY = "rocm-demo/triton-kernels"
KERNELS = Path(__file__).resolve().parent.parent / "fixtures" / "kernels"
DEMO_RUNS = 3
DEMO_TIMEOUT_S = 6
ISSUES = [
    {
        "number": 1,
        "title": "[Triton] vector add gives wrong results on MI300X for the last element",
        "script": "wrong_mask.py",
        "text": "The output of my add kernel does not match torch: the last element is wrong "
        "(AssertionError: Tensor-likes are not close!, mismatched elements: 1 / 1000).",
        "archs": None,
    },
    {
        "number": 2,
        "title": "[Triton] masked add: is this kernel right on gfx942?",
        "script": "correct_mask.py",
        "text": "I suspect wrong results from this kernel on MI300X, can someone check?",
        "archs": None,
    },
    {
        "number": 3,
        "title": "[Triton] kernel hangs forever waiting on a flag",
        "script": "spin_wait.py",
        "text": "This kernel hangs and never returns on MI300X; I have to kill the process.",
        "archs": None,
    },
    {
        "number": 4,
        "title": "[Triton] inline asm fp8 pack fails to compile for gfx90a",
        "script": "fp8_pack_asm.py",
        "text": "Compiling this kernel for MI250X (gfx90a) fails to compile with a compiler error "
        "(AMD assembler rejected generated AMDGCN); it compiles on MI300X (gfx942).",
        "archs": ["gfx90a", "gfx942"],
    },
]


@dataclass
class KernelsDemoReport:
    cases: int = 0
    outcomes: list[str] = field(default_factory=list)
    missing: str = ""

    def summary(self) -> str:
        if self.missing:
            return f"{self.cases} repro cases approved, not run: {self.missing}"
        return f"{self.cases} repro cases approved and run: " + "; ".join(self.outcomes)


def _body(entry: dict) -> str:
    script = (KERNELS / entry["script"]).read_text()
    return (
        f"### Problem Description\n\n{entry['text']}\n\n"
        f"<details><summary>Reproducer</summary>\n\n```python\n{script}```\n\n</details>\n\n"
        "### Operating System\n\nUbuntu 22.04\n\n### GPU\n\nAMD Instinct MI300X\n\n"
        "### ROCm Version\n\nROCm 6.3.1\n\n### Additional Information\n\n"
        "torch 2.6.0+rocm6.3.1, triton 3.2.0\n"
    )


def _items() -> list[dict]:
    created = datetime(2025, 5, 1, tzinfo=UTC)
    user = {"id": 990001, "login": "demo-kernel-dev", "type": "User"}
    return [
        {
            "id": 990100 + entry["number"],
            "number": entry["number"],
            "title": entry["title"],
            "body": _body(entry),
            "state": "open",
            "user": user,
            "author_association": "NONE",
            "labels": [],
            "comments": 0,
            "html_url": f"{github_web.DEMO_WEB_URL}/{REPOSITORY}/issues/{entry['number']}",
            "created_at": (created + timedelta(days=entry["number"])).isoformat(),
            "updated_at": (created + timedelta(days=entry["number"], hours=1)).isoformat(),
        }
        for entry in ISSUES
    ]


def demo_issues_load() -> str:
    """The demo's kernel-bug issues, before the models train (config/wiring.py DEMO_LOADERS): a
    second `load_demo` then trains on the same issues as the first and retrains nothing."""
    with transaction.atomic():
        repository = ingest.repository_get_or_create(full_name=REPOSITORY, tracked=False)
        result = ingest.issues_upsert(repository=repository, items=_items())
    return f"{REPOSITORY}: {result.created} kernel-bug issues created, {result.unchanged} unchanged"


def demo_load(*, progress=None) -> KernelsDemoReport:
    """The demo's repro cases approved and run in-process (each run a real backend);
    `progress(done, total, what)` after each case (load_demo's bar)."""
    report = KernelsDemoReport()
    demo_issues_load()  # idempotent: in place already when load_demo ran the loaders in order
    repository = ingest.repository_get_or_create(full_name=REPOSITORY, tracked=False)
    missing = backend_get("triton-interpreter").available()
    if not settings.KERNELS_CI_DEMO_RUN:
        missing = "KERNELS_CI_DEMO_RUN is off"
    for done_cases, entry in enumerate(ISSUES):
        if progress:
            progress(done_cases, len(ISSUES), "repro cases")
        issue = Issue.objects.get(repository=repository, number=entry["number"])
        case = case_refresh(issue=issue)
        ReproCase.objects.filter(pk=case.pk).update(
            runs_per_attempt=DEMO_RUNS, timeout_s=DEMO_TIMEOUT_S
        )
        case.refresh_from_db()
        if not case.is_approved:
            case_approve(case=case, login="demo", via="demo")
        report.cases += 1
        if missing or case.runs.exists():
            continue
        # the current Triton only: the reporter's 3.2.0 would be fetched from the package index
        # (run_repro rocm-demo/triton-kernels#1 runs it, and the bisection after it)
        queued = runs_queue(
            case=case, archs=entry["archs"], dispatch=False, reported_versions=False
        )
        for run in queued:
            done = run_execute(run_id=run.pk, runner_name="load_demo")
            report.outcomes.append(f"#{entry['number']} {done.backend} {done.arch}: {done.outcome}")
    if missing:
        report.missing = missing if settings.KERNELS_CI_DEMO_RUN is False else EXTRA_MISSING
    return report
