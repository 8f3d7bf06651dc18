"""The scheduled sync task: rate limits first, its own retry bounds, countdowns the broker keeps."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.utils import timezone

from tests.fakes.github_api import github_for_settings
from triage.models import Issue, SyncState
from triage.services import tracking
from triage.sources.github import sync
from triage.sources.github.client import TransientGitHubError
from triage.tasks import TRANSIENT_RETRIES, sync_repository

pytestmark = pytest.mark.django_db(transaction=True)

REPO = "ROCm/HIP"


@pytest.fixture
def emulator(settings):
    with github_for_settings(settings, token="task-token", retries=0) as emu:  # a 502 reaches it
        emu.add_repo(REPO)
        for n in range(1, 31):
            emu.add_issue(REPO, title=f"hipMalloc fails {n}")
        yield emu


def test_syncs_are_skipped_while_the_token_is_rate_limited(emulator):
    repository = tracking.repository_track(full_name=REPO)
    other = tracking.repository_track(full_name="ROCm/ROCm")  # the limit is the token's
    reset = timezone.now() + timedelta(minutes=40)
    SyncState.objects.create(
        repository=other, resource="comments", rate_limit_remaining=0, rate_limit_reset_at=reset
    )
    result = sync_repository.apply(kwargs={"repository_id": repository.pk}).get()
    assert "rate-limited until" in result and "skipped" in result
    assert emulator.requests == [], "beat's run costs nothing while the limit holds"

    SyncState.objects.update(rate_limit_reset_at=timezone.now() - timedelta(seconds=1))
    sync_repository.apply(kwargs={"repository_id": repository.pk}).get()
    assert Issue.objects.count() == 30


def test_a_rate_limit_marks_the_repository_until_its_reset(emulator):
    repository = tracking.repository_track(full_name=REPO)
    emulator.inject_fault(429, retry_after=600, path_contains="/issues")
    result = sync_repository.apply(kwargs={"repository_id": repository.pk}).get()
    assert "the next sync resumes" in result  # in-process tasks: no retry loop
    until = sync.rate_limited_until()
    assert until is not None and until > timezone.now() + timedelta(minutes=9)


def test_rate_limit_reschedules_do_not_use_up_the_5xx_retries(emulator):
    repository = tracking.repository_track(full_name=REPO)
    emulator.inject_fault(502, path_contains="/issues")
    # nine reschedules for rate limits so far; the first 502 is still retried
    result = sync_repository.apply(
        kwargs={"repository_id": repository.pk}, retries=9, throw=False
    )  # in-process, the retry runs at once
    assert result.state == "SUCCESS"
    assert Issue.objects.count() == 30
    assert emulator.count(status=502) == 1


def test_5xx_retries_are_bounded(emulator):
    repository = tracking.repository_track(full_name=REPO)
    emulator.inject_fault(502, path_contains="/issues", times=None)
    with pytest.raises(TransientGitHubError):
        sync_repository.apply(
            kwargs={"repository_id": repository.pk, "transient_attempts": TRANSIENT_RETRIES}
        ).get()
    assert emulator.count(status=502) == 1


def test_a_repository_github_does_not_know_ends_the_task_and_its_schedule(emulator):
    from django_celery_beat.models import PeriodicTask

    repository = tracking.repository_track(full_name="ROCm/HlP")
    result = sync_repository.apply(kwargs={"repository_id": repository.pk}).get()
    assert "not found on GitHub" in result
    assert not PeriodicTask.objects.filter(task="triage.tasks.sync_repository").exists()


def test_retry_countdowns_stay_under_the_brokers_visibility_timeout():
    visibility = django_settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    assert visibility >= 2 * 3600, "a rate limit resets within the hour: room to wait for it"
    assert sync.retry_countdown(3 * 3600) < visibility
    assert sync.retry_countdown(3700) == 3700
    assert sync.retry_countdown(0) == 1


def _beat_entry(repository):
    """The entry Celery beat (django-celery-beat's scheduler) makes of the repository's row."""
    from django_celery_beat.models import PeriodicTask
    from django_celery_beat.schedulers import ModelEntry

    from config.celery import app

    return ModelEntry(PeriodicTask.objects.get(name=f"sync GitHub {repository.full_name}"), app)


def test_a_newly_tracked_repository_is_synced_at_beats_next_tick_then_on_its_interval():
    repository = tracking.repository_track(full_name="ROCm/rocBLAS")
    due, _ = _beat_entry(repository).is_due()
    assert due, "its first sync starts now, not one interval after it was tracked"

    entry = next(_beat_entry(repository))  # beat sent it: the row records the run
    entry.save()
    tracking.repository_track(full_name="ROCm/rocBLAS")  # a restart of beat tracks it again
    due, wait = _beat_entry(repository).is_due()
    assert not due and wait > 60, "a repository already synced keeps its interval"

    repository.tracked = False
    repository.save()
    tracking.repository_schedule_sync(repository=repository)  # untracked: disabled
    tracking.repository_track(full_name="ROCm/rocBLAS")  # tracked again: due at once
    assert _beat_entry(repository).is_due()[0]
