"""Beat jobs of releases (queue `releases`). Installed by migration 0004 and again whenever beat
starts (config/beat_schedules.py)."""

from __future__ import annotations

from config.beat_schedules import CrontabJob, crontab_jobs_install

JOBS = [
    CrontabJob(
        "releases: punt trains at branch cut",
        "releases.tasks.punt_due_trains",
        {"minute": "5"},
        "releases",
        "Move open issues of trains whose branch cut passed to the next train (idempotent).",
    ),
    CrontabJob(
        "releases: burndown snapshot",
        "releases.tasks.snapshot_trains",
        {"minute": "50"},
        "releases",
        "Record today's open issues per train (the burndown chart's data).",
    ),
    CrontabJob(
        "releases: tell issues their fix shipped",
        "releases.tasks.announce_released_fixes",
        {"minute": "35", "hour": "*/6"},
        "releases",
        "Each issue whose fix ships in a train released in the last 7 days gets one comment "
        "on GitHub and is closed if still open (repositories that opted in; idempotent).",
    ),
    CrontabJob(
        "releases: retrain the fix forecast",
        "releases.tasks.retrain_forecast",
        {"minute": "20", "hour": "4"},
        "releases",
        "Retrain the fix-by-branch-cut forecast on the replayed past trains.",
    ),
]


def schedules_install():
    return crontab_jobs_install(JOBS)
