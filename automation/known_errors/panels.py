"""Known errors where triagers look: the issue page's panel, the queue's filter and their inbox
(each a wiring entry)."""

from __future__ import annotations

from collections import defaultdict

from automation.known_errors import services as known_errors
from automation.known_errors.models import KnownErrorMatch
from triage.models import InboxItem
from triage.panels import Panel
from triage.services.inbox import Concern


def known_error_proposed_issue_ids():
    """The queue's "known error to confirm" filter (wiring QUEUE_FILTERS): a match proposed."""
    return KnownErrorMatch.objects.filter(state=KnownErrorMatch.State.PROPOSED).values("issue_id")


def known_errors_panel(*, issue, request) -> Panel | None:
    """Known errors this issue shows (answer in one click), and, on a canonical issue, the
    reports its known errors collected by target and ROCm release."""
    matches = list(
        KnownErrorMatch.objects.filter(issue=issue).select_related("signature__canonical")
    )
    collected = (
        known_errors.collected_reports(issue) if issue.known_error_signatures.exists() else None
    )
    if not matches and not collected:
        return None
    return Panel(
        title="Known errors",
        template="triage/github/known_errors_panel.html",
        slug="known-errors",
        context={"matches": matches, "collected": collected},
    )


def inbox_concerns(*, issues) -> dict[int, list[Concern]]:
    """A known-error match to confirm reaches the inbox of those concerned who may accept it
    (wiring INBOX_CONCERNS)."""
    found: dict[int, list[Concern]] = defaultdict(list)
    for match in KnownErrorMatch.objects.filter(
        issue__in=issues, state=KnownErrorMatch.State.PROPOSED
    ).select_related("signature"):
        found[match.issue_id].append(
            Concern(
                InboxItem.Reason.KNOWN_ERROR,
                f"known-error:{match.pk}",
                match.signature.name,
                "accept",
            )
        )
    return found
