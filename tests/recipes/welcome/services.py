"""The recipe's act on GitHub (docs/ARCHITECTURE.md, "Add an act on GitHub"), as written there."""

from automation.outbox import services as outbox
from automation.outbox.models import GitHubWrite
from triage.models import Issue

ACTION = "welcome.thank"


def welcome_refresh(*, ids: list[int]) -> int:
    planned = 0
    for issue in Issue.objects.filter(pk__in=ids, is_pull_request=False):
        outbox.write_plan(
            issue=issue,
            action=ACTION,
            operation=GitHubWrite.Operation.COMMENT,
            key="welcome",  # once per issue, whatever redelivers it
            payload={"body": "Thank you for the report!"},
            reason="a first report",
            decided_by="rule welcome",
        )
        planned += 1
    return planned
