"""Fixed in the release: when a train ships, each issue whose fix ships in it is told so on
GitHub ("fixed in ROCm 7.9.0; verified on gfx942 and gfx1100") and closed if still open.

A fix ships in a train when a merged pull request is linked to the issue (closing keyword or a
maintainer's link, not removed) and its merge lands on that train (releases.services.fixes).
The architectures named are those where kernels_ci verified the fix (its repro passed again).
Both writes go through triage's outbox, opted in per repository (releases.fixed_comment,
releases.fixed_close), once per issue and train (the comment carries a marker; a second pass
plans nothing new); like every rule's write, never on a maintainer's own issue. Run by beat
(every 6 hours) for trains released in the last ANNOUNCE_DAYS days.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from automation.outbox import reply_templates
from automation.outbox import services as outbox
from automation.outbox.models import GitHubWrite
from kernels_ci.selectors import verification_for_issue
from releases import calendar
from releases.models import ReleaseSeries
from releases.selectors import train_fixed_issues
from triage.models import Issue

ANNOUNCE_DAYS = 7


@dataclass
class AnnounceReport:
    lines: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return f"fixed-in-release: {len(self.lines)} issue(s) told"


def _released_trains(series: ReleaseSeries, now, days: int) -> list[calendar.Train]:
    past, _, _ = calendar.trains_window(series.spec(), now, past=4, upcoming=0)
    return [t for t in past if now - timedelta(days=days) <= t.release_at <= now]


def _verified_on(issue_id: int) -> list[str]:
    states = verification_for_issue(issue_id)
    return sorted({key.split(" ")[0] for key, state in states.items() if state.verified})


@transaction.atomic
def train_fixes_announce(*, series: ReleaseSeries, train: calendar.Train) -> AnnounceReport:
    report = AnnounceReport()
    fixed = train_fixed_issues(series, train.version)
    issues = Issue.objects.filter(pk__in=fixed, deleted_at__isnull=True).select_related(
        "repository", "author"
    )
    product = series.title or series.name
    for issue in issues:
        verified = _verified_on(issue.pk)
        body = reply_templates.render(
            "releases.fixed_in",
            product=product,
            release=train.label,
            verified_on=verified,
            pull_requests=sorted(fixed[issue.pk]),
            reporter=issue.author.login if issue.author else "",
        )
        reason = f"fixed by {', '.join(sorted(fixed[issue.pk]))}, shipped in {train.label}"
        key = f"fixed-in:{series.name}:{train.version}"
        outbox.write_plan(
            issue=issue,
            action="releases.fixed_comment",
            operation=GitHubWrite.Operation.COMMENT,
            key=key,
            payload={"body": body, "marker": f"fixed-in-{series.name}-{train.version}"},
            reason=reason,
            decided_by=f"rule fixed-in-release {series.name} {train.version}",
        )
        if issue.state == Issue.State.OPEN:
            outbox.write_plan(
                issue=issue,
                action="releases.fixed_close",
                operation=GitHubWrite.Operation.CLOSE,
                key=f"{key}:close",
                payload={"state_reason": "completed"},
                reason=reason,
                decided_by=f"rule fixed-in-release {series.name} {train.version}",
            )
        report.lines.append(f"{issue.reference}: {train.label}, verified on {verified or '-'}")
    return report


def released_fixes_announce(*, now=None, days: int = ANNOUNCE_DAYS) -> AnnounceReport:
    """Every series' trains released in the last `days` days (idempotent: daily from beat)."""
    now = now or timezone.now()
    report = AnnounceReport()
    for series in ReleaseSeries.objects.all():
        for train in _released_trains(series, now, days):
            report.lines += train_fixes_announce(series=series, train=train).lines
    return report
