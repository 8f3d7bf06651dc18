"""Reads of kernels_ci for views, the API and other apps (releases). Nothing here writes."""

from __future__ import annotations

import re

from django.db.models import QuerySet

from kernels_ci.models import ReproCase, ReproRun, Runner
from kernels_ci.services.verification import ArchVerification, verification_of_runs

ISSUE_REF_RE = re.compile(r"^(?P<repo>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)#(?P<number>\d{1,9})$")


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


def verification_for_issue(issue_id: int) -> dict[str, ArchVerification]:
    """Per architecture: never_reproduced | reproduces | verifying | verified_fixed (3 passes)."""
    case = ReproCase.objects.filter(issue_id=issue_id).first()
    if case is None:
        return {}
    return verification_of_runs(list(case.runs.all()))
