"""The settings page's "Writes to GitHub": the one switch, the week's writes, the failed ones and
each repository's opt-ins (automation.outbox.services)."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from automation.outbox import services as outbox
from automation.outbox.models import GitHubWrite
from triage.models import Repository
from triage.panels import Panel

FAILED_SHOWN = 10


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
