"""The issue page's "On GitHub": what every feature of the app did or waits for on one issue
(needs-info and its clock, a pull request's owners by path, each write and command)."""

from __future__ import annotations

from automation.commands.models import CommentCommand
from automation.needs_info import services as needs_info
from automation.needs_info.models import NeedsInfo
from automation.outbox import services as outbox
from automation.outbox.models import GitHubWrite
from automation.ownership import services as ownership
from triage.models import PullRequestFiles
from triage.panels import Panel

ISSUE_WRITES_SHOWN = 30
OWNED_FILES_SHOWN = 5


def _path_owners(issue) -> dict | None:
    """A pull request's changed files as last read and their owners by path rules."""
    files = PullRequestFiles.objects.filter(issue=issue).first() if issue.is_pull_request else None
    if files is None:
        return None
    found = ownership.pull_request_owners(issue)
    return {
        "files": files,
        "stale": files.head_sha != issue.head_sha,
        "owners": [
            (owner, found.files_of(owner)[:OWNED_FILES_SHOWN], len(found.files_of(owner)))
            for owner in found.owners
        ],
        "rules": found.rules,
        "unowned": found.unowned,
    }


def github_panel(*, issue, request) -> Panel | None:
    """The issue page's "On GitHub": needs-info, a pull request's owners by path, and every
    write and command, newest first."""
    state = NeedsInfo.objects.filter(issue=issue).first()
    writes = list(GitHubWrite.objects.filter(issue=issue)[:ISSUE_WRITES_SHOWN])
    commands = list(CommentCommand.objects.filter(issue=issue)[:ISSUE_WRITES_SHOWN])
    path_owners = _path_owners(issue)
    if state is None and not writes and not commands and path_owners is None:
        return None
    reading = needs_info.completeness(issue) if state is not None and state.waiting else None
    return Panel(
        title="On GitHub",
        template="triage/github/issue_panel.html",
        slug="github",
        context={
            "state": state,
            # what the report names that the extraction could not read: never asked, for a person
            "unclear": sorted(reading.unclear.items()) if reading else [],
            "next": state.next_step() if state else ("", None),
            "writes": [(w, outbox.describe(w)) for w in writes],
            "commands": commands,
            "path_owners": path_owners,
        },
    )
