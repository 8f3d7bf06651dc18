"""What follows ingestion on a real worker: commit messages of a merged PR, rate-limit waits."""

from __future__ import annotations

import pytest
import requests

from tests.fakes.github_webhooks import delivery_headers, fixture_body, fixture_payload
from tests.processes import wait_for
from triage.models import Issue, SyncState
from triage.services import tracking
from triage.tasks import sync_repository

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SECRET = "integration-webhook-secret"


def test_a_merged_delivery_is_answered_then_its_commit_messages_are_read_on_the_worker(
    celery_worker_process, github_emulator, live_server, settings
):
    settings.GITHUB_WEBHOOK_SECRET = SECRET
    payload = fixture_payload("pull_request__closed_merged")
    repo = payload["repository"]["full_name"]
    number = payload["pull_request"]["number"]
    github_emulator.add_repo(repo)
    github_emulator.add_pull(
        repo, number=number, merged=True, commits=["Backport: guard the tile size", "Fixes #4321"]
    )
    body = fixture_body("pull_request__closed_merged")
    reads_before = github_emulator.count(path_contains=f"/pulls/{number}/commits")
    response = requests.post(
        f"{live_server.url}/webhooks/github/",
        data=body,
        headers=delivery_headers("pull_request", body, SECRET, "it-merged-commits"),
        timeout=10,
    )
    assert response.status_code == 202
    pr = wait_for(
        lambda: (
            Issue.objects.filter(repository__full_name=repo, number=number)
            .exclude(commit_messages=[])
            .first()
        )
    )
    assert pr.commit_messages == ["Backport: guard the tile size", "Fixes #4321"]
    assert github_emulator.count(path_contains=f"/pulls/{number}/commits") == reads_before + 1


def test_beats_runs_are_skipped_while_a_rate_limited_sync_waits_for_the_reset(
    celery_worker_process, github_emulator
):
    repo = "ROCm/rocprofiler"
    github_emulator.add_repo(repo)
    for n in range(1, 121):
        github_emulator.add_issue(repo, title=f"rocprofv3 hangs {n}")
    github_emulator.inject_fault(
        403, after_requests=1, path_contains=f"/{repo}/issues", retry_after=4
    )
    repository = tracking.repository_track(full_name=repo)

    first = sync_repository.apply_async(kwargs={"repository_id": repository.pk})
    wait_for(
        lambda: SyncState.objects.filter(
            repository=repository, rate_limit_remaining=0, rate_limit_reset_at__isnull=False
        ).exists()
    )
    requests_before = github_emulator.count(path_contains=f"/{repo}/")
    skipped = sync_repository.apply_async(kwargs={"repository_id": repository.pk}).get(timeout=30)
    # skipped: its own sync goes on in the queued retry (or, a moment before that retry is
    # queued, the budget's limit holds it)
    assert "goes on in a queued task" in skipped or "rate-limited until" in skipped, skipped
    assert github_emulator.count(path_contains=f"/{repo}/") == requests_before

    assert first.get(timeout=60).startswith(f"{repo}: fetched")
    assert Issue.objects.filter(repository=repository).count() == 120
