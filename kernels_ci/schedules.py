"""Beat jobs of kernels_ci (on `ingest`: a repro queue holds long runs, and a heartbeat check
waiting behind them would see runners stale). Installed by migration 0002 and again whenever beat
starts (config/beat_schedules.py)."""

from __future__ import annotations

from config.beat_schedules import CrontabJob, crontab_jobs_install

JOBS = [
    CrontabJob(
        "kernels_ci: nightly re-run of reproduced cases",
        "kernels_ci.tasks.verification_nightly",
        {"minute": "30", "hour": "2"},
        description="Re-run every open reproduced case on its architecture.",
    ),
    CrontabJob(
        "kernels_ci: runners heartbeat check",
        "kernels_ci.tasks.runners_check",
        {"minute": "*"},
        description="Mark runners without a recent heartbeat down, and lost runs as such.",
    ),
]


def schedules_install():
    return crontab_jobs_install(JOBS)
