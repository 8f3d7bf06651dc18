"""The issue page's "Fixed in" panel (config/wiring.py ISSUE_PANELS)."""

from __future__ import annotations

from releases import selectors
from triage.panels import Panel


def fixed_in_panel(*, issue, request) -> Panel | None:
    if issue.is_pull_request:
        return None
    chain = selectors.issue_fix_chain(issue.id)
    if not chain:
        return None
    trains = [row for row in chain if row["train"]]
    return Panel(
        title=f"Fixed in {trains[0]['train']}" if trains else "Fixed by",
        template="releases/panels/fixed_in.html",
        slug="fixed-in",
        context={"chain": chain},
    )
