"""The home page's "Response times": how far the project is from the maintainers' goal for a
first response, per component and per GPU family (automation.digest.response_times)."""

from __future__ import annotations

from automation.digest import response_times as selectors
from triage.panels import Panel

ROWS_SHOWN = 12  # per table: the groups with the most issues waiting past the goal


def response_times_panel(*, request) -> Panel | None:
    figures = selectors.response_times()
    if not figures.records:
        return None
    return Panel(
        title="Response times",
        template="triage/home/response_times.html",
        slug="response-times",
        wide=True,
        context={
            "goal_days": figures.goal_days,
            "window_days": figures.window_days,
            "overall": figures.overall,
            "tables": [
                _table("Component", "component", figures.components),
                _table("GPU family", "GPU family", figures.families),
            ],
        },
    )


def _table(heading: str, noun: str, rows: list) -> dict:
    return {"heading": heading, "noun": noun, "rows": rows[:ROWS_SHOWN], "total": len(rows)}
