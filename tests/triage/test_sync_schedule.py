"""How repositories share a rate budget: a backfill in slices, webhook-fed repositories
reconciled rarely, one turn at a time for a repository whose sync goes on in a queued task."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.utils import timezone

from tests.fakes.github_api import github_for_settings
from triage.models import Issue, SyncState, WebhookDelivery
from triage.services import tracking
from triage.sources.github import schedule, sync
from triage.sources.github.client import SliceSpent
from triage.tasks import sync_repository

pytestmark = pytest.mark.django_db(transaction=True)

REPO = "ROCm/rocBLAS"


@pytest.fixture
def emulator(settings):
    cache.clear()
    with github_for_settings(settings, token="schedule-token", retries=0) as emu:
        emu.add_repo(REPO)
        for n in range(1, 451):  # five pages of issues
            emu.add_issue(REPO, title=f"gemm gives wrong results with batch {n}")
        yield emu
    cache.clear()


def test_a_backfill_stops_after_its_slice_and_the_next_turn_goes_on(emulator, settings):
    settings.GITHUB_BACKFILL_SLICE_REQUESTS = 3
    repository = tracking.repository_track(full_name=REPO)

    with pytest.raises(SliceSpent):
        sync.repository_sync(repository=repository, sliced=True)
    first_turn = emulator.count()
    assert first_turn == 3
    stored = Issue.objects.count()
    assert 0 < stored < 450
    issues_state = SyncState.objects.get(repository=repository, resource="issues")
    assert issues_state.last_error == "", "a turn taken is not an error on the settings page"

    turns = 1
    while True:
        turns += 1
        try:
            sync.repository_sync(repository=repository, sliced=True)
            break
        except SliceSpent:
            assert turns < 20
    assert Issue.objects.count() == 450
    listed = emulator.count(path_contains="/issues")
    assert listed <= 5 + turns, "each turn goes on from its watermark, nothing read twice"


def test_in_process_the_task_runs_a_backfill_to_its_end_in_turns(emulator, settings):
    settings.GITHUB_BACKFILL_SLICE_REQUESTS = 2
    repository = tracking.repository_track(full_name=REPO)
    sync_repository.apply(kwargs={"repository_id": repository.pk}).get()
    assert Issue.objects.count() == 450


def test_an_incremental_sync_is_not_sliced(emulator, settings):
    repository = tracking.repository_track(full_name=REPO)
    sync.repository_sync(repository=repository)  # the backfill, in one turn
    for n in range(451, 651):
        emulator.add_issue(REPO, title=f"new report {n}")
    settings.GITHUB_BACKFILL_SLICE_REQUESTS = 1
    sync.repository_sync(repository=repository, sliced=True)
    assert Issue.objects.count() == 650


def test_a_backfill_run_by_hand_goes_to_its_end_in_one_run(emulator, settings):
    """Slices are the queue's turns: `sync_github --full` has no queue to step aside for."""
    settings.GITHUB_BACKFILL_SLICE_REQUESTS = 2
    tracking.repository_track(full_name=REPO)
    out = io.StringIO()
    call_command("sync_github", REPO, "--full", "--no-wait", stdout=out)
    assert Issue.objects.count() == 450
    assert "450" in out.getvalue()
    listed = emulator.count(path_contains="/issues")
    assert listed <= 6, "one pass: no page read twice, no turn started over"


def test_the_beat_skips_a_repository_whose_sync_goes_on_in_a_queued_task(emulator):
    repository = tracking.repository_track(full_name=REPO)
    schedule.continuation_queued(repository=repository, countdown=0)

    skipped = sync_repository.apply(kwargs={"repository_id": repository.pk}).get()
    assert "goes on in a queued task" in skipped
    assert emulator.requests == [], "a second turn of the same backfill costs nothing"

    # the queued continuation itself (a retry of the task) runs, and clears the mark
    sync_repository.apply(kwargs={"repository_id": repository.pk}, retries=1).get()
    assert Issue.objects.count() == 450
    assert schedule.continuation_pending(repository) is None


def _synced_then_webhook_fed(emulator, repository):
    sync.repository_sync(repository=repository)
    WebhookDelivery.objects.create(
        delivery_id="d-1", event="issues", action="opened", repository_full_name=REPO.lower()
    )
    emulator.requests.clear()


def test_a_webhook_fed_repository_is_only_reconciled_every_few_hours(emulator, settings):
    settings.GITHUB_WEBHOOK_FED_SYNC_MINUTES = 360
    repository = tracking.repository_track(full_name=REPO)
    _synced_then_webhook_fed(emulator, repository)

    skipped = sync_repository.apply(kwargs={"repository_id": repository.pk}).get()
    assert "webhook-fed" in skipped and "next reconciliation" in skipped
    assert emulator.requests == []

    SyncState.objects.update(last_success_at=timezone.now() - timedelta(hours=7))
    emulator.add_issue(REPO, title="missed by a lost delivery")
    sync_repository.apply(kwargs={"repository_id": repository.pk}).get()
    assert Issue.objects.filter(title="missed by a lost delivery").exists()


def test_an_installations_repository_is_webhook_fed_and_a_repository_without_hooks_is_not(
    emulator,
):
    repository = tracking.repository_track(full_name=REPO)
    sync.repository_sync(repository=repository)
    assert not schedule.webhook_fed(repository)
    assert schedule.scheduled_sync_skip(repository) is None, "polled: every beat run syncs"

    repository.installation_id = 77
    assert schedule.webhook_fed(repository)
    assert "webhook-fed" in schedule.scheduled_sync_skip(repository)


def test_a_webhook_fed_repository_still_backfills_until_its_first_complete_sync(emulator):
    repository = tracking.repository_track(full_name=REPO)
    repository.installation_id = 77
    assert schedule.last_complete_sync(repository) is None
    assert schedule.scheduled_sync_skip(repository) is None


def test_a_turn_with_a_queue_steps_aside_and_the_next_turn_goes_on(emulator, settings):
    settings.GITHUB_BACKFILL_SLICE_REQUESTS = 3
    repository = tracking.repository_track(full_name=REPO)

    turn = schedule.sync_turn(repository, continuation=False)
    assert turn.again_in is not None and turn.again_in <= 2, "at once, behind the queue"
    assert schedule.continuation_pending(repository) is not None
    assert schedule.sync_turn(repository, continuation=False).again_in is None  # beat: skipped

    turns = 1
    while turn.again_in is not None:
        turn = schedule.sync_turn(repository, continuation=True)
        turns += 1
    assert Issue.objects.count() == 450 and turns > 2
    assert schedule.continuation_pending(repository) is None
