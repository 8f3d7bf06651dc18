"""The issue page's "Act on GitHub": reply, close, reopen, lock and labels, for those who may."""

from __future__ import annotations

from automation.acts import services as issue_acts
from automation.outbox import services as outbox
from triage.panels import Panel
from triage.permissions import may


def issue_acts_panel(*, issue, request) -> Panel | None:
    """Reply, close, reopen and labels on GitHub, for those who may (through the outbox: what
    the repository has not opted in to is said, not hidden)."""
    if issue.is_pull_request or not may(request.user, "reply"):
        return None
    repository = issue.repository
    opted = set(repository.github_actions or [])
    return Panel(
        title="Act on GitHub",
        template="triage/github/acts_panel.html",
        slug="acts",
        context={
            "nonce": issue_acts.nonce(),
            "reasons": issue_acts.CLOSE_REASONS,
            "lock_reasons": issue_acts.LOCK_REASONS,
            "labels": list(repository.labels.order_by("name_key").values_list("name", flat=True)),
            "on_issue": list(issue.labels.order_by("name_key").values_list("name", flat=True)),
            "reporter": issue.author.login if issue.author else "",
            "not_opted": [
                outbox.action_words(a)
                for a in ("dashboard.reply", "dashboard.state", "dashboard.label")
                if a not in opted
            ],
            "dry_run": repository.github_dry_run,
            "stopped": outbox.writes_stopped(),
        },
    )
