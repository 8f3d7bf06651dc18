"""What the service does on GitHub, where maintainers look: the queue's needs-info cell, the issue
page's "On GitHub" panel (needs-info, its clock, a pull request's owners by path, each write and
command with its outcome), and
the settings page's switch and opt-ins (triage.services.outbox)."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from triage.models import (
    CommentCommand,
    GitHubWrite,
    KnownErrorMatch,
    NeedsInfo,
    PullRequestFiles,
    Repository,
)
from triage.panels import Panel
from triage.permissions import may
from triage.services import issue_acts, known_errors, needs_info, outbox, ownership

ISSUE_WRITES_SHOWN = 30
FAILED_SHOWN = 10
OWNED_FILES_SHOWN = 5


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


def known_error_proposed_issue_ids():
    """The queue's "known error to confirm" filter (wiring QUEUE_FILTERS): a match proposed."""
    return KnownErrorMatch.objects.filter(state=KnownErrorMatch.State.PROPOSED).values("issue_id")


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


def github_writes_settings_panel(*, request) -> Panel:
    since = timezone.now() - timedelta(days=7)
    counts = dict.fromkeys(GitHubWrite.Status.values, 0)
    for status in GitHubWrite.objects.filter(created_at__gte=since).values_list(
        "status", flat=True
    ):
        counts[status] += 1
    return Panel(
        title="Writes to GitHub",
        template="triage/github/settings_panel.html",
        slug="github-writes",
        context={
            "stopped": outbox.writes_stopped(),
            "counts": counts,
            "failed": [
                (w, outbox.describe(w), outbox.ACTIONS.get(w.action, w.action))
                for w in GitHubWrite.objects.filter(
                    status=GitHubWrite.Status.FAILED
                ).select_related("issue__repository", "repository")[:FAILED_SHOWN]
            ],
            "repositories": [
                (r, [text for a, text in outbox.ACTIONS.items() if a in (r.github_actions or [])])
                for r in Repository.objects.on_github().filter(tracked=True)
            ],
        },
    )


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
