"""A sync task and webhook deliveries end with the right rows, through Redis and a real worker."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.fakes.github_webhooks import delivery_headers, fixture_body
from tests.processes import wait_for
from triage.models import Comment, Issue, SyncState, WebhookDelivery
from triage.services import tracking
from triage.tasks import sync_repository

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SECRET = "integration-webhook-secret"


def test_a_sync_task_on_the_worker_stores_every_issue_once(celery_worker_process, github_emulator):
    repo = "ROCm/rocm-libraries"
    github_emulator.add_repo(repo)
    for n in range(1, 231):
        github_emulator.add_issue(repo, title=f"rocBLAS gemm wrong result {n}", labels=["bug"])
    github_emulator.add_pull(repo, title="Fix gemm", body="Fixes #4", merged=True)
    github_emulator.add_comment(repo, 4, body="Confirmed on gfx942")
    github_emulator.inject_fault(502, after_requests=1, path_contains="/issues")

    repository = tracking.repository_track(full_name=repo)
    result = sync_repository.apply_async(kwargs={"repository_id": repository.pk})
    summary = result.get(timeout=60)

    assert summary.startswith(f"{repo}: fetched")
    assert Issue.objects.filter(repository=repository).count() == 231
    assert Issue.objects.get(repository=repository, is_pull_request=True).merged is True
    assert Comment.objects.filter(issue__repository=repository).count() == 1
    assert SyncState.objects.get(repository=repository, resource="issues").backfill_done


def test_a_rate_limited_sync_task_reschedules_itself_and_finishes(
    celery_worker_process, github_emulator
):
    repo = "ROCm/TheRock"
    github_emulator.clear_log()  # the emulator serves the whole session: count this test's only
    github_emulator.add_repo(repo)
    for n in range(1, 151):
        github_emulator.add_issue(repo, title=f"Build failure {n}")
    github_emulator.inject_fault(403, after_requests=1, path_contains="/issues")

    repository = tracking.repository_track(full_name=repo)
    sync_repository.apply_async(kwargs={"repository_id": repository.pk})

    wait_for(lambda: Issue.objects.filter(repository=repository).count() == 150, timeout=60)
    assert github_emulator.count(status=403) == 1


def test_a_webhook_delivery_is_processed_by_the_worker(
    celery_worker_process, live_server, settings
):
    settings.GITHUB_WEBHOOK_SECRET = SECRET
    body = fixture_body("pull_request__closed_merged")
    response = requests.post(
        f"{live_server.url}/webhooks/github/",
        data=body,
        headers=delivery_headers("pull_request", body, SECRET, "it-merged-1"),
        timeout=10,
    )
    assert response.status_code == 202
    delivery = wait_for(
        lambda: WebhookDelivery.objects.filter(
            delivery_id="it-merged-1", status="processed"
        ).first()
    )
    assert delivery.attempts == 1
    pr = Issue.objects.get(repository__full_name="ROCm/ROCm", number=4402)
    assert pr.merged is True and pr.base_ref == "release/rocm-rel-7.1"


def test_the_same_delivery_five_times_concurrently_is_processed_once(
    celery_worker_process, live_server, settings
):
    settings.GITHUB_WEBHOOK_SECRET = SECRET
    body = fixture_body("issues__opened")
    headers = delivery_headers("issues", body, SECRET, "it-concurrent-1")

    def send(_):
        return requests.post(
            f"{live_server.url}/webhooks/github/", data=body, headers=headers, timeout=10
        ).status_code

    with ThreadPoolExecutor(max_workers=5) as pool:
        statuses = list(pool.map(send, range(5)))

    assert sorted(statuses) == [200, 200, 200, 200, 202]
    delivery = wait_for(
        lambda: WebhookDelivery.objects.filter(
            delivery_id="it-concurrent-1", status="processed"
        ).first()
    )
    assert WebhookDelivery.objects.filter(delivery_id="it-concurrent-1").count() == 1
    assert delivery.attempts == 1
    assert Issue.objects.filter(repository__full_name="ROCm/ROCm", number=4321).count() == 1


def test_a_small_backfill_is_not_held_behind_two_large_ones(celery_worker_process, github_emulator):
    """Two pool processes, two large backfills queued first: the small one runs between their
    turns (each a slice of GITHUB_BACKFILL_SLICE_REQUESTS, then a retry at the back of the queue)
    and ends first; the large ones still end with every issue, read once."""
    large = ["ROCm/rocm-systems", "ROCm/composable_kernel"]
    small = "ROCm/rocm-docs-core"
    github_emulator.clear_log()
    for repo in large:
        github_emulator.add_repo(repo)
        for n in range(1, 1201):
            github_emulator.add_issue(repo, title=f"ck tile kernel fails to compile {n}")
    github_emulator.add_repo(small)
    for n in range(1, 6):
        github_emulator.add_issue(small, title=f"Broken link in the install guide {n}")

    tracked = {repo: tracking.repository_track(full_name=repo) for repo in [*large, small]}
    results = {
        repo: sync_repository.apply_async(kwargs={"repository_id": repository.pk})
        for repo, repository in tracked.items()
    }
    for result in results.values():
        result.get(timeout=120)

    def ended(repo):
        return SyncState.objects.get(repository=tracked[repo], resource="commits").last_success_at

    assert ended(small) < min(ended(repo) for repo in large)
    for repo in large:
        assert Issue.objects.filter(repository=tracked[repo]).count() == 1200
        listed = github_emulator.count(path_contains=f"/repos/{repo}/issues")
        assert listed <= 12 + 12, "each turn goes on from its watermark"
        state = SyncState.objects.get(repository=tracked[repo], resource="issues")
        assert state.last_error == ""
