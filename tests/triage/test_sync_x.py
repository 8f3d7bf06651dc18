"""X ingestion through the real tweepy client, against our X API v2 emulator."""

from __future__ import annotations

import io
import json
import logging
from datetime import datetime, timedelta

import pytest
from celery.exceptions import Retry
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from tests.fakes.x_api import XEmulator
from triage import tasks
from triage.models import Person, Post, SavedSearch
from triage.services import social
from triage.sources.x import sync as x_sync
from triage.sources.x.client import XError, XRateLimited, XSource, XUnavailable

pytestmark = pytest.mark.django_db

TOKEN = "x-bearer-secret-token-123"


@pytest.fixture
def x_api(settings):
    with XEmulator(bearer_token=TOKEN) as emu:
        settings.X_API_URL = emu.url
        settings.X_BEARER_TOKEN = TOKEN
        yield emu


@pytest.fixture
def sucks():
    return SavedSearch.objects.create(name="ROCm sucks", query='"ROCm sucks" -is:retweet')


def test_it_fetches_every_matching_post_once_in_pages_of_100(x_api, sucks):
    x_api.add_user("angry_dev", followers=120)
    for n in range(230):
        x_api.add_post(f"ROCm sucks, attempt {n} to run on MI300X", username="angry_dev")
    x_api.add_post("ROCm is fine actually", username="angry_dev")
    x_api.add_post("RT ROCm sucks", username="angry_dev", retweet_of="1")

    report = x_sync.saved_search_sync(search=sucks)

    assert report.created == 230
    assert report.requests == 3
    assert Post.objects.count() == 230
    assert Person.objects.get(source="x").login == "angry_dev"
    searches = [r for r in x_api.requests if r["path"].endswith("/search/recent")]
    assert all(r["query"]["max_results"] == "100" for r in searches)
    assert "author_id" in searches[0]["query"]["expansions"]


def test_each_post_keeps_its_address_on_x(x_api, sucks):
    x_api.add_user("angry_dev", followers=120)
    x_api.add_post("ROCm sucks on my 7900 XTX", username="angry_dev")

    x_sync.saved_search_sync(search=sucks)

    post = Post.objects.get()
    assert post.url == f"https://x.com/angry_dev/status/{post.external_id}"


def test_a_second_sync_fetches_only_newer_posts(x_api, sucks):
    for n in range(5):
        x_api.add_post(f"ROCm sucks #{n}")
    x_sync.saved_search_sync(search=sucks)
    x_api.clear_log()

    sucks.refresh_from_db()
    watermark = sucks.since_id
    assert watermark == str(max(int(i) for i in Post.objects.values_list("external_id", flat=True)))
    x_api.add_post("ROCm sucks, still")
    report = x_sync.saved_search_sync(search=sucks)

    assert x_api.requests[0]["query"]["since_id"] == watermark
    assert report.created == 1 and report.fetched == 1
    assert Post.objects.count() == 6


def test_a_post_matched_by_two_searches_is_stored_once_with_both(x_api, sucks):
    hang = SavedSearch.objects.create(name="hangs", query="ROCm hang -is:retweet")
    x_api.add_post("ROCm sucks: MI300X hang in all_reduce, ROCm 7.0.2")
    x_sync.saved_search_sync(search=sucks)
    x_sync.saved_search_sync(search=hang)
    post = Post.objects.get()
    assert set(post.searches.values_list("name", flat=True)) == {"ROCm sucks", "hangs"}


def test_a_429_raises_with_the_reset_time_and_keeps_the_watermark(x_api, sucks):
    for n in range(150):
        x_api.add_post(f"ROCm sucks {n}")
    x_api.inject_fault(429, after_requests=1, reset_in=30)
    with pytest.raises(XRateLimited) as raised:
        x_sync.saved_search_sync(search=sucks)
    assert 20 < raised.value.seconds_to_wait() <= 32
    sucks.refresh_from_db()
    assert sucks.since_id == "", "the watermark moves only when the whole run is committed"
    assert Post.objects.count() == 100
    x_sync.saved_search_sync(search=sucks)
    assert Post.objects.count() == 150


def test_the_monthly_budget_stops_a_search(x_api, sucks):
    sucks.monthly_budget = 100
    sucks.save()
    for n in range(150):
        x_api.add_post(f"ROCm sucks {n}")
    x_sync.saved_search_sync(search=sucks)
    sucks.refresh_from_db()
    assert sucks.posts_this_month == 100
    with pytest.raises(x_sync.BudgetExhausted):
        x_sync.saved_search_sync(search=sucks)


def test_the_bearer_token_never_reaches_a_log_line(x_api, sucks, caplog):
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="tweepy.client")  # restored after the test
    x_api.add_post("ROCm sucks")
    x_sync.saved_search_sync(search=sucks)
    assert "Making API request" in caplog.text, "tweepy logged its request headers at DEBUG"
    assert "Bearer [redacted]" in caplog.text
    assert TOKEN not in caplog.text


def test_sync_x_seeds_the_default_searches(x_api):
    x_api.add_post("ROCm sucks on Strix Halo")
    out = io.StringIO()
    call_command("sync_x", stdout=out)
    assert SavedSearch.objects.count() == 4
    assert Post.objects.count() == 1
    assert "ROCm sucks: fetched 1" in out.getvalue()


def test_sync_x_with_a_query(x_api):
    x_api.add_post("hipErrorNoBinaryForGpu on my 7900 XTX")
    call_command("sync_x", "--query", "hipErrorNoBinaryForGpu", stdout=io.StringIO())
    assert SavedSearch.objects.get().query == "hipErrorNoBinaryForGpu"
    assert Post.objects.count() == 1


def test_sync_x_without_a_token_says_so(settings):
    settings.X_BEARER_TOKEN = ""
    with pytest.raises(CommandError):
        call_command("sync_x", stdout=io.StringIO(), stderr=io.StringIO())


def test_sync_x_with_a_query_named_like_another_search_makes_a_new_scheduled_one(x_api):
    other = SavedSearch.objects.create(name="hipErrorNoBinaryForGpu", query="hipErrorInvalidValue")
    x_api.add_post("hipErrorNoBinaryForGpu on my 7900 XTX")
    call_command("sync_x", "--query", "hipErrorNoBinaryForGpu", stdout=io.StringIO())
    search = SavedSearch.objects.get(query="hipErrorNoBinaryForGpu")
    assert search.name == "hipErrorNoBinaryForGpu (2)"
    entry = PeriodicTask.objects.get(name=f"sync X search {search.pk}")
    assert json.loads(entry.kwargs) == {"search_id": search.pk}
    assert entry.enabled and entry.queue == "ingest"
    call_command("sync_x", "--query", "hipErrorNoBinaryForGpu", stdout=io.StringIO())
    assert SavedSearch.objects.count() == 2  # the same query reuses its search
    other.refresh_from_db()
    assert other.query == "hipErrorInvalidValue"


def test_a_watermark_older_than_x_allows_is_replaced_by_a_start_time(x_api, sucks):
    now = timezone.now()
    old = x_api.add_post("ROCm sucks, a week ago", created_at=now - timedelta(days=8))
    x_sync.posts_upsert(search=sucks, posts=[old], users={})
    sucks.since_id = old["id"]
    sucks.save()
    with pytest.raises(XError, match="refused"):  # sent as since_id: 400, as X answers
        list(XSource().search_pages(sucks.query, since_id=old["id"]))
    x_api.clear_log()
    x_api.add_post("ROCm sucks, today")

    report = x_sync.saved_search_sync(search=sucks)

    [request] = x_api.requests
    assert "since_id" not in request["query"]
    start = datetime.fromisoformat(request["query"]["start_time"].replace("Z", "+00:00"))
    assert now - timedelta(days=7) < start < now - timedelta(days=6, hours=23)
    assert (report.created, request["status"]) == (1, 200)
    sucks.refresh_from_db()
    assert int(sucks.since_id) > int(old["id"]) and sucks.last_error == ""


def test_a_fresh_watermark_is_still_sent(x_api, sucks):
    recent = x_api.add_post("ROCm sucks, 6 days ago", created_at=timezone.now() - timedelta(days=6))
    x_sync.posts_upsert(search=sucks, posts=[recent], users={})
    sucks.since_id = recent["id"]
    sucks.save()
    x_sync.saved_search_sync(search=sucks)
    assert x_api.requests[0]["query"]["since_id"] == recent["id"]


# --- without a bearer token ------------------------------------------------------------------


def test_without_a_token_a_run_records_why_and_the_task_skips(settings, sucks):
    settings.X_BEARER_TOKEN = ""
    result = tasks.sync_saved_search.apply(kwargs={"search_id": sucks.pk})
    assert result.successful()
    assert "X_BEARER_TOKEN is not set; skipped" in result.get()
    sucks.refresh_from_db()
    assert sucks.last_error == "X_BEARER_TOKEN is not set"
    assert sucks.last_run_at is not None and sucks.last_success_at is None


def test_beat_seeds_and_schedules_searches_only_with_a_token(settings, sucks):
    settings.X_BEARER_TOKEN = ""
    social.saved_searches_install()
    assert SavedSearch.objects.count() == 1
    assert not PeriodicTask.objects.get(name=f"sync X search {sucks.pk}").enabled
    settings.X_BEARER_TOKEN = TOKEN
    social.saved_searches_install()
    assert SavedSearch.objects.count() == 4  # "ROCm sucks" was already there
    entries = PeriodicTask.objects.filter(task="triage.tasks.sync_saved_search")
    assert entries.count() == 4 and all(entry.enabled for entry in entries)


# --- the Celery task: rate limits and outages free the worker --------------------------------


def test_the_task_reschedules_itself_for_the_rate_limit_reset(x_api, sucks):
    for n in range(150):
        x_api.add_post(f"ROCm sucks {n}")
    x_api.inject_fault(429, after_requests=1, reset_in=300)
    with pytest.raises(Retry) as raised:
        tasks.sync_saved_search.apply(kwargs={"search_id": sucks.pk})
    assert 290 < raised.value.when <= 302  # the countdown is the x-rate-limit-reset
    assert raised.value.sig.options["countdown"] == raised.value.when
    assert raised.value.sig.kwargs == {"search_id": sucks.pk}
    assert x_api.count() == 2  # no waiting on the limit: the worker is free at once
    sucks.refresh_from_db()
    assert "rate limit" in sucks.last_error and sucks.since_id == ""
    assert Post.objects.count() == 100


@pytest.mark.parametrize(("retries", "countdown"), [(0, 15), (2, 60), (7, 600)])
def test_the_task_backs_off_on_5xx(x_api, sucks, retries, countdown):
    x_api.add_post("ROCm sucks")
    x_api.inject_fault(503)
    with pytest.raises(Retry) as raised:
        tasks.sync_saved_search.apply(kwargs={"search_id": sucks.pk}, retries=retries)
    assert raised.value.when == countdown
    sucks.refresh_from_db()
    assert "unavailable" in sucks.last_error


def test_the_task_gives_up_after_eight_5xx_retries(x_api, sucks):
    x_api.inject_fault(503)
    with pytest.raises(XUnavailable):
        tasks.sync_saved_search.apply(kwargs={"search_id": sucks.pk}, retries=8)
