"""Needs-info on the triage queue: its cell (state and clock) and its filter (wiring)."""

from __future__ import annotations

from automation.needs_info.models import NeedsInfo
from triage.panels import Panel


def needs_info_queue_cells(*, issue_ids: list[int], request) -> dict[int, Panel]:
    """The triage queue's needs-info cell (wiring QUEUE_ROW_CELLS): state and clock."""
    return {
        state.issue_id: Panel(
            title="Needs info",
            template="triage/github/_needs_info_cell.html",
            slug="needs-info",
            context={"state": state, "next": state.next_step()},
        )
        for state in NeedsInfo.objects.filter(issue_id__in=issue_ids)
        if state.waiting
    }


def waiting_issue_ids():
    """The queue's "needs info" filter (wiring QUEUE_FILTERS): issues waiting for the reporter."""
    return NeedsInfo.objects.filter(
        state__in=[NeedsInfo.State.ASKING, NeedsInfo.State.REMINDED]
    ).values("issue_id")
