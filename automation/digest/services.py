"""The weekly response-times digest: one plain-text e-mail per component of each repository, to
its owners, with the component's figures (automation.digest.response_times) and the issues waiting
past the goal.

Issue text is untrusted and never leaves in an e-mail beyond titles (control and formatting
characters removed, shortened) and GitHub's links. A week's digest is claimed once in the cache
before it is sent, so a retried task does not send it twice (all sends failing releases the
claim, and the next run tries again).
"""

from __future__ import annotations

import logging
import smtplib
import unicodedata
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.utils import timezone

from automation.digest import response_times as selectors
from config import beat_schedules

logger = logging.getLogger(__name__)

TITLE_CHARS = 100
LATE_LISTED = 25  # issues waiting past the goal, per e-mail
CLAIM_TTL_S = 8 * 24 * 3600
TASK = "triage.tasks.response_digest_send"

Recipients = Callable[[str, str], list[str]]


@dataclass
class DigestReport:
    week: str
    sent: list[str] = field(default_factory=list)  # "OWNER/NAME component → n recipients"
    no_recipients: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    already_sent: bool = False

    def summary(self) -> str:
        if self.already_sent:
            return f"response digest {self.week}: already sent"
        return (
            f"response digest {self.week}: {len(self.sent)} sent, "
            f"{len(self.no_recipients)} without recipients, {len(self.failed)} failed"
        )


def default_recipients(repository: str, component: str) -> list[str]:
    return list(settings.RESPONSE_DIGEST_RECIPIENTS)


def response_digest_send(
    *, now: datetime | None = None, recipients_of: Recipients | None = None
) -> DigestReport:
    """Send this week's digest, one e-mail per (repository, component) with issues to show."""
    now = now or timezone.now()
    recipients_of = recipients_of or default_recipients
    year, week, _ = now.isocalendar()
    report = DigestReport(week=f"{year}-W{week:02d}")
    claim = f"triage:response-digest:{report.week}"
    if not cache.add(claim, now.isoformat(), CLAIM_TTL_S):
        report.already_sent = True
        return report

    figures = selectors.response_times(now=now)
    groups = defaultdict(list)
    for record in figures.records:
        groups[(record.repository, record.component)].append(record)
    for (repository, component), members in sorted(groups.items()):
        group = selectors.figures_of(component, members, goal=figures.goal)
        what = f"{repository} {component}"
        recipients = _valid(recipients_of(repository, component))
        if not recipients:
            report.no_recipients.append(what)
            continue
        late = selectors.waiting_past_goal(members, goal=figures.goal)
        try:
            send_mail(
                subject=_clean(f"[ROCm triage] response times: {repository} {component}"),
                message=digest_text(
                    repository=repository,
                    component=component,
                    group=group,
                    late=late,
                    figures=figures,
                ),
                from_email=None,
                recipient_list=recipients,
            )
        except (smtplib.SMTPException, OSError) as exc:
            logger.error("response digest for %s failed: %s", what, type(exc).__name__)
            report.failed.append(what)
            continue
        report.sent.append(f"{what} → {len(recipients)} recipients")
    if report.failed and not report.sent:
        cache.delete(claim)
    return report


def digest_text(*, repository, component, group, late, figures) -> str:
    goal = figures.goal_days
    lines = [
        f"Response times of {repository}, component {component}, "
        f"week {figures.now.isocalendar()[1]} of {figures.now.isocalendar()[0]}.",
        f"Goal: a maintainer answers within {goal} working days (Monday to Friday, UTC).",
        "",
        f"Issues opened by others than maintainers in the last {figures.window_days} days: "
        f"{group.issues}, {group.answered} answered.",
        f"  first response: median {_days(group.median_days)}, "
        f"90th percentile {_days(group.p90_days)} (working days)",
        f"  answered within the goal: {_percent(group)}",
        f"  needs-info: {group.needs_info_asked} asked, "
        f"median {_days(group.needs_info_median_days)} days until answered or closed",
        f"Open now: {group.backlog} issues, {group.waiting} waiting for a first response, "
        f"{group.past_goal} of them past the goal.",
    ]
    if late:
        lines += ["", "Waiting past the goal, longest first:"]
        for record in late[:LATE_LISTED]:
            lines.append(
                f"- {record.reference} ({record.waited_days:.1f} working days): "
                f"{_clean(record.title)[:TITLE_CHARS]}"
            )
            if record.html_url.startswith("https://"):
                lines.append(f"  {_clean(record.html_url)}")
        if len(late) > LATE_LISTED:
            lines.append(f"... and {len(late) - LATE_LISTED} more.")
    return "\n".join(lines) + "\n"


def _days(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def _percent(group: selectors.Figures) -> str:
    if group.percent_within_goal is None:
        return "no issue due yet"
    return f"{group.percent_within_goal}% ({group.met} of {group.met + group.missed} due)"


def _clean(text: str) -> str:
    """One line of text without control or invisible formatting characters (bidi overrides)."""
    kept = "".join(
        " " if unicodedata.category(c) in ("Cc", "Zl", "Zp") else c
        for c in text or ""
        if unicodedata.category(c) != "Cf"
    )
    return " ".join(kept.split())


def _valid(addresses) -> list[str]:
    valid = []
    for address in addresses or []:
        try:
            validate_email(address)
        except ValidationError:
            logger.warning("response digest: not an e-mail address, skipped")
            continue
        if address not in valid:
            valid.append(address)
    return valid


def schedules_install():
    """Mondays 07:00 UTC (wiring BEAT_START); an admin's change to it stays."""
    return beat_schedules.crontab_jobs_install(
        [
            beat_schedules.CrontabJob(
                name="response times: weekly digest",
                task=TASK,
                cron={"minute": "0", "hour": "7", "day_of_week": "1"},
                description="One e-mail per component of each repository to its owners "
                "(RESPONSE_DIGEST_RECIPIENTS where none is known): time to first maintainer "
                "response, needs-info, backlog, and the issues waiting past "
                "RESPONSE_GOAL_WORKING_DAYS.",
            )
        ]
    )
