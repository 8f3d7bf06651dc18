"""Spike detection on crafted series, storage once, and announcement once."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest
from django.core import mail
from django.utils import timezone

from tests.fakes.slack_webhook import SlackWebhookReceiver
from triage.models import Post, SavedSearch, Spike
from triage.services import spikes

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 24, 15, 30, tzinfo=UTC)
ids = itertools.count(1_860_000_000_000_000_000)


def posts_at(search, moments, text="ROCm sucks", components=""):
    for moment in moments:
        post = Post.objects.create(
            external_id=str(next(ids)), text=text, created_at=moment, component_tags=components
        )
        post.searches.add(search)


def quiet_fortnight(search, per_day=6):
    start = NOW.replace(minute=0) - timedelta(days=14)
    posts_at(
        search,
        [start + timedelta(hours=h * 24 / per_day + 0.5) for h in range(14 * per_day)],
    )


@pytest.fixture
def search():
    return SavedSearch.objects.create(name="ROCm sucks", query='"ROCm sucks" -is:retweet')


def test_a_burst_far_above_the_baseline_is_a_spike():
    verdict = spikes.spike_verdict([0, 1, 0, 2, 1, 0] * 56, 25, min_count=10)
    assert verdict.is_spike
    assert verdict.threshold == pytest.approx(verdict.mean + 3 * verdict.stdev)


def test_three_posts_are_never_a_spike_even_on_a_silent_baseline():
    assert not spikes.spike_verdict([0] * 336, 3, min_count=10).is_spike


def test_an_hour_within_three_sigmas_is_not_a_spike():
    history = [10, 14, 8, 12, 16, 9] * 56
    assert not spikes.spike_verdict(history, 18, min_count=10).is_spike


def test_it_finds_and_stores_a_crafted_spike_once(search):
    quiet_fortnight(search)
    posts_at(search, [NOW.replace(minute=m) for m in range(0, 60, 2)])  # 30 in one hour
    found = spikes.spikes_detect(end=NOW)
    again = spikes.spikes_detect(end=NOW)
    assert len(found) == 1 and len(again) == 1
    assert Spike.objects.count() == 1
    spike = Spike.objects.get()
    assert (spike.search, spike.count, spike.hour) == (search, 30, NOW.replace(minute=0))


def test_a_quiet_series_has_no_spike(search):
    quiet_fortnight(search)
    assert spikes.spikes_detect(end=NOW) == []


def test_it_detects_spikes_per_component(search):
    quiet_fortnight(search)
    posts_at(search, [NOW.replace(minute=m) for m in range(20)], components="|RCCL|")
    found = spikes.spikes_detect(end=NOW, components=["RCCL", "MIOpen"])
    assert {(s.search_id, s.component) for s in found} == {(search.pk, ""), (None, "RCCL")}


def test_a_spike_is_announced_once_by_email_and_log(search, settings, caplog):
    settings.SPIKE_EMAIL_RECIPIENTS = ["rocm-triage@example.org"]
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    quiet_fortnight(search)
    posts_at(search, [NOW.replace(minute=m) for m in range(0, 60, 2)])
    [spike] = spikes.spikes_detect(end=NOW)
    assert spikes.spike_announce(spike=spike) is True
    assert spikes.spike_announce(spike=spike) is False
    assert len(mail.outbox) == 1
    assert "30 posts" in mail.outbox[0].body
    assert "X spike" in caplog.text


def test_a_component_spike_is_stored_once_though_it_has_no_search(search):
    quiet_fortnight(search)
    posts_at(search, [NOW.replace(minute=m) for m in range(20)], components="|RCCL|")
    spikes.spikes_detect(end=NOW, components=["RCCL"])
    spikes.spikes_detect(end=NOW, components=["RCCL"])
    assert Spike.objects.filter(search=None, component="RCCL").count() == 1


def test_the_scanned_components_are_the_tags_posts_get():
    from triage.services.post_understanding import components_in

    scopes = spikes.component_scopes()
    assert {"HIP", "RCCL", "MIOpen"} <= set(scopes)
    assert set(components_in("RCCL all_reduce hangs, MIOpen too")) <= set(scopes)


# --- the Slack-compatible webhook, over real HTTP ---------------------------------------------


@pytest.fixture
def slack(settings):
    with SlackWebhookReceiver() as hook:
        settings.SPIKE_SLACK_WEBHOOK_URL = hook.url
        yield hook


def burst(search):
    quiet_fortnight(search)
    posts_at(search, [NOW.replace(minute=m) for m in range(0, 60, 2)])
    [spike] = spikes.spikes_detect(end=NOW)
    return spike


def test_a_spike_goes_to_the_slack_webhook_once(search, slack):
    spike = burst(search)
    assert spikes.spike_announce(spike=spike) is True
    assert spikes.spike_announce(spike=spike) is False
    assert slack.requests == 1
    [message] = slack.messages
    assert "ROCm sucks: 30 posts in the hour from 2026-11-24 15:00 UTC" in message["text"]


def test_a_failing_webhook_is_logged_without_its_secret_url_and_not_retried(search, slack, caplog):
    slack.fail_with(500)
    spike = burst(search)
    assert spikes.spike_announce(spike=spike) is True
    assert "spike webhook answered HTTP 500" in caplog.text
    assert slack.url not in caplog.text and "/services/" not in caplog.text
    assert spikes.spike_announce(spike=spike) is False  # announced once, even if Slack failed
    assert slack.requests == 1


# --- the beat task, end to end --------------------------------------------------------------


def test_the_detect_spikes_task_finds_search_and_component_spikes_and_announces_once(search, slack):
    from triage import tasks

    hour = timezone.now().replace(minute=0, second=0, microsecond=0) - timedelta(hours=1)
    start = hour - timedelta(days=14)
    posts_at(search, [start + timedelta(hours=h * 4 + 0.5) for h in range(14 * 6)])
    posts_at(search, [hour + timedelta(minutes=m) for m in range(24)], components="|RCCL|")

    assert tasks.detect_spikes.apply().get() == 2
    stored = {(s.search_id, s.component, s.hour, s.count) for s in Spike.objects.all()}
    assert stored == {(search.pk, "", hour, 24), (None, "RCCL", hour, 24)}
    assert len(slack.messages) == 2
    assert any("component RCCL: 24 posts" in m["text"] for m in slack.messages)

    assert tasks.detect_spikes.apply().get() == 0
    assert len(slack.messages) == 2 and Spike.objects.count() == 2
