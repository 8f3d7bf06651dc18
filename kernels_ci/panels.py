"""The issue page's repro panel (settings.ISSUE_PANELS)."""

from __future__ import annotations

from kernels_ci import selectors
from triage.panels import Panel


def repro_panel(*, issue, request) -> Panel | None:
    case = selectors.case_for_issue(issue.id)
    if case is None:
        return None
    runs = selectors.runs_for_case(case)
    can_approve = request.user.has_perm("kernels_ci.change_reprocase")
    related = {}
    for run in runs:
        if run.signature_hash and run.signature_hash not in related:
            related[run.signature_hash] = list(
                selectors.cases_with_signature(run.signature_hash, exclude_case_id=case.pk)[:5]
            )
    return Panel(
        title="Kernel reproduction",
        template="kernels_ci/panels/_repro.html",
        slug="repro",
        context={
            "case": case,
            "runs": runs,
            "can_approve": can_approve,
            "verification": selectors.verification_for_issue(issue.id),
            "related": related,
        },
    )
