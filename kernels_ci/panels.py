"""The issue page's repro panel (config/wiring.py ISSUE_PANELS)."""

from __future__ import annotations

from kernels_ci import selectors
from kernels_ci.expectations import ExpectedError
from kernels_ci.services.runs import reporter_versions
from triage.panels import Panel
from triage.permissions import APPROVE_REPRO


def repro_panel(*, issue, request) -> Panel | None:
    case = selectors.case_for_issue(issue.id)
    if case is None:
        return None
    runs = selectors.runs_for_case(case)
    can_approve = request.user.has_perm(APPROVE_REPRO)
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
            "expected": ExpectedError.from_dict(case.expected_error),
            "reporter_versions": reporter_versions(case),
            "scope": selectors.case_scope(case),
            "bisections": selectors.bisections_for_case(case),
        },
    )


# The longest script the queue shows in full for approval; a longer one is reviewed on its page.
QUEUE_REVIEW_LIMIT = 20_000


def queue_cell_context(case, *, can_approve: bool) -> dict:
    return {"case": case, "can_approve": can_approve, "review_limit": QUEUE_REVIEW_LIMIT}


def queue_repro_cells(*, issue_ids: list[int], request) -> dict[int, Panel]:
    """The triage queue's "Repro" cell per issue (wiring QUEUE_ROW_CELLS): the case's state,
    and, for those who may approve, the script with its Approve button (x shows the script, x
    again approves: what runs is seen before it is approved)."""
    can_approve = request.user.has_perm(APPROVE_REPRO)
    return {
        issue_id: Panel(
            title="Repro",
            template="kernels_ci/panels/_queue_cell.html",
            slug="repro",
            context=queue_cell_context(case, can_approve=can_approve),
        )
        for issue_id, case in selectors.cases_of_issues(issue_ids).items()
        if case.script
    }
