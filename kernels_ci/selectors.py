"""Reads of kernels_ci for views, the API and other apps (releases). Nothing here writes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db.models import F, Q, QuerySet

from config import linear_re
from kernels_ci.backends import describe
from kernels_ci.bisection import BAD, SKIP, verdict_of
from kernels_ci.models import Bisection, ReproCase, ReproRun, Runner
from kernels_ci.verification import ArchVerification, verification_of_runs

ISSUE_REF_RE = linear_re.compile(r"^(?P<repo>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)#(?P<number>\d{1,9})$")


def parse_issue_reference(reference: str) -> tuple[str, int] | None:
    match = ISSUE_REF_RE.match(reference.strip())
    return (match.group("repo"), int(match.group("number"))) if match else None


def case_for_issue(issue_id: int) -> ReproCase | None:
    return ReproCase.objects.filter(issue_id=issue_id).select_related("issue").first()


def run_list(
    *, issue: str = "", outcome: str = "", arch: str = "", backend: str = "", status: str = ""
) -> QuerySet[ReproRun]:
    runs = ReproRun.objects.select_related("case__issue__repository")
    if issue:
        parsed = parse_issue_reference(issue)
        if parsed is None:
            return runs.none()
        runs = runs.filter(
            case__issue__repository__full_name__iexact=parsed[0], case__issue__number=parsed[1]
        )
    if outcome:
        runs = runs.filter(outcome=outcome)
    if arch:
        runs = runs.filter(arch=arch)
    if backend:
        runs = runs.filter(backend=backend)
    if status:
        runs = runs.filter(status=status)
    return runs.order_by("-created_at", "-id")


def runs_for_case(case: ReproCase) -> list[ReproRun]:
    return list(case.runs.order_by("arch", "backend", "-attempt"))


def bisections_for_case(case: ReproCase) -> list[Bisection]:
    """The case's bisections of its approved script, newest first."""
    if not case.approved_sha256:
        return []
    return list(case.bisections.filter(script_sha256=case.approved_sha256))


def bisection_results(*, issue_ids, as_of: datetime | None = None) -> dict[int, list[str]]:
    """For releases and the API: issue id -> each finished bisection's result of its case's
    approved script ("fixed in triton 3.3.0: reproduced on 3.2.0, passes on 3.3.0"), those
    finished by `as_of` (all when None)."""
    found: dict[int, list[str]] = {}
    rows = Bisection.objects.filter(
        case__issue_id__in=list(issue_ids), status__in=["done", "undecided"]
    ).select_related("case")
    if as_of is not None:
        rows = rows.filter(finished_at__lte=as_of)
    for bisection in rows.order_by("case_id", "arch", "backend"):
        if bisection.script_sha256 == bisection.case.approved_sha256:
            found.setdefault(bisection.case.issue_id, []).append(
                f"{bisection.result} ({bisection.backend}, {bisection.arch})"
            )
    return found


def runners_list() -> QuerySet[Runner]:
    return Runner.objects.order_by("-healthy", "name")


def cases_with_signature(signature_hash: str, *, exclude_case_id: int | None = None):
    """Other cases whose runs failed with this signature (grouping, as syzbot does)."""
    if not signature_hash:
        return ReproCase.objects.none()
    cases = ReproCase.objects.filter(runs__signature_hash=signature_hash).distinct()
    if exclude_case_id:
        cases = cases.exclude(pk=exclude_case_id)
    return cases.select_related("issue__repository")


def verification_by_target(issue_id: int) -> dict[tuple[str, str], ArchVerification]:
    """Per (arch, backend), for the case's approved script: never_reproduced | reproduces |
    verifying | verified_fixed (KERNELS_CI_VERIFY_PASSES consecutive passes). {} without a case
    or an approval. For releases: readiness per architecture and backend."""
    case = ReproCase.objects.filter(issue_id=issue_id).first()
    if case is None or not case.approved_sha256:
        return {}
    return verification_of_runs(list(case.runs.all()), script_sha256=case.approved_sha256)


def verification_of_issues(
    *, issue_ids, as_of: datetime | None = None
) -> dict[int, list[ArchVerification]]:
    """For releases (readiness): issue id -> one ArchVerification per (arch, backend), sorted,
    from the runs of each case's approved script finished by `as_of` (all when None). Two
    queries for any number of issues; issues without an approved case are absent."""
    cases = {
        case.pk: case
        for case in ReproCase.objects.filter(issue_id__in=list(issue_ids)).exclude(
            approved_sha256=""
        )
    }
    runs = ReproRun.objects.filter(case_id__in=list(cases), status=ReproRun.Status.DONE)
    if as_of is not None:
        runs = runs.filter(
            Q(finished_at__lte=as_of) | Q(finished_at__isnull=True, created_at__lte=as_of)
        )
    by_case: dict[int, list[ReproRun]] = {}
    for run in runs.order_by("finished_at", "attempt"):
        by_case.setdefault(run.case_id, []).append(run)
    result = {}
    for case_id, case_runs in by_case.items():
        case = cases[case_id]
        states = verification_of_runs(case_runs, script_sha256=case.approved_sha256)
        if states:
            result[case.issue_id] = [states[key] for key in sorted(states)]
    return result


def verification_for_issue(issue_id: int) -> dict[str, ArchVerification]:
    """The same keyed by architecture ("gfx942"), or "gfx942 (backend)" when an architecture
    was verified with more than one backend."""
    by_target = verification_by_target(issue_id)
    archs = [arch for arch, _ in by_target]
    return {
        (arch if archs.count(arch) == 1 else f"{arch} ({backend})"): state
        for (arch, backend), state in sorted(by_target.items())
    }


def issue_ids_with_reproducer():
    """The triage queue's "has a reproducer" filter (config/wiring.py QUEUE_FILTERS): issue ids."""
    return ReproCase.objects.exclude(script="").values("issue_id")


def cases_awaiting_approval():
    """Open issues' reproducers not approved as they are now (new, or edited since approval)."""
    return (
        ReproCase.objects.exclude(script="")
        .filter(issue__state="open", issue__deleted_at__isnull=True)
        .exclude(approved_sha256=F("sha256"))
    )


def issue_ids_awaiting_approval():
    """The triage queue's "reproducer awaiting approval" filter (config/wiring.py QUEUE_FILTERS):
    the same cases the home page counts."""
    return cases_awaiting_approval().values("issue_id")


def cases_of_issues(issue_ids: list[int]) -> dict[int, ReproCase]:
    """{issue id: its case} with the latest outcome of each, in two queries."""
    cases = {
        c.issue_id: c
        for c in ReproCase.objects.filter(issue_id__in=issue_ids).select_related(
            "issue__repository"
        )
    }
    latest: dict[int, ReproRun] = {}
    for run in (
        ReproRun.objects.filter(case__in=cases.values(), status=ReproRun.Status.DONE)
        .only("case_id", "outcome", "arch", "finished_at")
        .order_by("case_id", "-finished_at", "-id")
    ):
        latest.setdefault(run.case_id, run)
    for case in cases.values():
        case.latest_run = latest.get(case.pk)
    return cases


@dataclass
class Scope:
    """Whose failure it is, from the latest attempt per backend and target on the current
    versions: "fails on gfx942 and gfx950 only; compiles for sm_90; passes in the
    interpreter". `amd_specific` is None until a failure on an AMD target and at least one
    other vendor's or the interpreter's verdict are known."""

    text: str
    amd_specific: bool | None
    route: str = ""


def _joined(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def case_scope(case: ReproCase) -> Scope | None:
    """None without a failure on the case's approved script."""
    if not case.approved_sha256:
        return None
    latest: dict[tuple[str, str], ReproRun] = {}
    runs = case.runs.filter(
        status=ReproRun.Status.DONE,
        script_sha256=case.approved_sha256,
        bisection__isnull=True,
        versions={},
    ).order_by("finished_at", "id")
    for run in runs:
        latest[(run.backend, run.arch)] = run
    failing, passing = {}, {}
    for (backend, arch), run in sorted(latest.items()):
        verdict = verdict_of(run.outcome)
        if verdict != SKIP:
            vendor = describe(backend).vendor
            (failing if verdict == BAD else passing).setdefault(vendor, []).append((backend, arch))
    if not failing:
        return None
    others_fail = [v for v in failing if v != "amd"]
    others_pass = [v for v in passing if v != "amd"]
    amd_specific = None
    if "amd" in failing and (others_fail or others_pass):
        amd_specific = not others_fail
    parts = []
    for vendor, entries in sorted(failing.items(), key=lambda kv: kv[0] != "amd"):
        also = " too" if vendor != "amd" and "amd" in failing else ""
        only = " only" if vendor == "amd" and amd_specific else ""
        parts.append(f"fails {_where(vendor, entries)}{only}{also}")
    for vendor, entries in sorted(passing.items()):
        parts.extend(_passes(vendor, backend, arch) for backend, arch in entries)
    route = settings.KERNELS_CI_AMD_BACKEND_COMPONENT if amd_specific else ""
    return Scope(text="; ".join(parts), amd_specific=amd_specific, route=route)


def _where(vendor: str, entries: list[tuple[str, str]]) -> str:
    if vendor == "cpu":  # the backends that run kernels on the CPU: the interpreter
        return "in the interpreter"
    return f"on {_joined([arch for _, arch in entries])}"


def _passes(vendor: str, backend: str, arch: str) -> str:
    if vendor == "cpu":
        return "passes in the interpreter"
    return f"passes on {arch}" if describe(backend).executes else f"compiles for {arch}"
