"""Assigning issues from the dashboard: through the outbox to GitHub (action dashboard.assign,
opted in per repository), recorded like every dashboard decision (TriageAction, who, before and
after). GitHub holds assignees; our copy follows its answer (and every sync)."""

from __future__ import annotations

from django.db import transaction

from automation.outbox import services as outbox
from automation.outbox.models import GitHubWrite
from config import linear_re
from triage.models import Issue, TriageAction

LOGIN = linear_re.compile(r"^@?([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))$")
MAX_ASSIGNEES = 10  # GitHub's limit per issue


class AssignmentError(ValueError):
    pass


def logins_parse(text: str) -> list[str]:
    """The logins named, in order and once each (`@` optional, commas or spaces between);
    AssignmentError says what is wrong: the dashboard's form and the `/assign` command."""
    logins = []
    for word in (text or "").replace(",", " ").split():
        match = LOGIN.match(word)
        if not match:
            raise AssignmentError(f"{word!r} is not a GitHub login")
        logins.append(match.group(1))
    if not logins:
        raise AssignmentError("name at least one GitHub login")
    if len(logins) > MAX_ASSIGNEES:
        raise AssignmentError(f"at most {MAX_ASSIGNEES} assignees")
    return list(dict.fromkeys(logins))


@transaction.atomic
def issue_assignees_change(*, issue: Issue, logins: list[str], user, unassign: bool = False):
    """Assign (or unassign) these logins on GitHub; the write (done later, planned in a dry
    run, or skipped with why) and the audit row."""
    before = sorted(issue.assignees.values_list("login", flat=True))
    verb = "unassign" if unassign else "assign"
    action = TriageAction.objects.create(
        issue=issue,
        actor=user,
        action=f"issue.{verb}",
        before={"assignees": before},
        after={verb: logins},
    )
    write = outbox.write_plan(
        issue=issue,
        action="dashboard.assign",
        operation=GitHubWrite.Operation.UNASSIGN if unassign else GitHubWrite.Operation.ASSIGN,
        key=f"dashboard:{verb}:{action.pk}",
        payload={"assignees": logins},
        reason=f"{verb} {', '.join(logins)} from the dashboard",
        decided_by=user.get_username(),
        actor=user,
        asked=True,
    )
    action.after = {**action.after, "write": write.status}
    action.save(update_fields=["after"])
    return write
