"""The app's beat jobs (wiring BEAT_START), installed each time beat starts; an admin's changes
to them stay. Each names its task by the task object, so a job can never name no task."""

from __future__ import annotations

from automation.needs_info import tasks as needs_info_tasks
from automation.outbox import tasks as outbox_tasks
from automation.ownership import tasks as ownership_tasks
from config import beat_schedules


def schedules_install() -> None:
    """Needs-info's reminders, escalation past the response deadline, and the outbox's re-send."""
    beat_schedules.crontab_jobs_install(
        [
            beat_schedules.CrontabJob(
                name="needs-info: remind and close",
                task=needs_info_tasks.needs_info_sweep.name,
                cron={"minute": "15", "hour": "9"},
                description="Issues waiting for their reporter: one reminder after "
                "NEEDS_INFO_REMIND_DAYS, closed as not planned NEEDS_INFO_CLOSE_DAYS later "
                "(repositories that opted in; never regressions, critical or high issues).",
            ),
            beat_schedules.CrontabJob(
                name="escalate issues past their response deadline",
                task=ownership_tasks.escalate_overdue_issues.name,
                cron={"minute": "25"},
                description="Open issues without a maintainer's response RESPONSE_DEADLINE_HOURS "
                "(by severity) after opening escalate to their owners, once each.",
            ),
            beat_schedules.CrontabJob(
                name="re-send pending GitHub writes",
                task=outbox_tasks.resend_pending_github_writes.name,
                cron={"minute": "*/5"},
                description="Writes to GitHub left pending (their task lost while the broker "
                "was down, or a rate limit's wait over without a worker) are queued again, "
                "once each; none while every write is stopped.",
            ),
        ]
    )
