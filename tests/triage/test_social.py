"""Understanding posts (sentiment, mentions, links to issues), the feed, the API and the panel."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import Permission
from django.utils import timezone

from classifiers import training
from triage.models import Post, PostIssueLink, SavedSearch
from triage.services import post_understanding, social

pytestmark = pytest.mark.django_db

ids = itertools.count(1_861_000_000_000_000_000)

NEGATIVE = [
    "this is broken and awful, I hate it",
    "worst release ever, everything crashes",
    "terrible docs, wasted my whole day",
    "so frustrating, it hangs again",
    "garbage driver, nothing works",
    "awful experience, crashes constantly",
]
POSITIVE = [
    "great release, works perfectly",
    "love it, so fast now",
    "excellent work, thank you team",
    "amazing speedup, really happy",
    "fantastic, installation was smooth",
    "works great, nice job",
]
NEUTRAL = [
    "which version should I install",
    "reading the release notes today",
    "trying it on my machine tonight",
    "is this card on the support list",
    "what is the default install path",
    "benchmarks coming next week",
]


def post(text, **fields):
    return Post.objects.create(
        x_id=next(ids), text=text, created_at=datetime(2026, 11, 20, tzinfo=UTC), **fields
    )


@pytest.fixture
def trained(make):
    texts = NEGATIVE + POSITIVE + NEUTRAL
    labels = ["negative"] * 6 + ["positive"] * 6 + ["neutral"] * 6
    training.model_train(name="sentiment", texts=texts * 2, labels=labels * 2, source="test")
    hang = make.issue(
        number=4321,
        title="RCCL all_reduce hangs on MI300X with ROCm 7.0.2",
        body="Distributed training hangs in all_reduce on 8x MI300X.",
    )
    other = make.issue(number=4322, title="Docs: wrong install path for hipcc", body="typo")
    closed = make.issue(
        number=4323, title="all_reduce hang MI300X old report", body="old", state="closed"
    )
    training.model_train(
        name="duplicates",
        texts=[f"{i.title}\n{i.body}" for i in (hang, other, closed)],
        labels=[hang.pk, other.pk, closed.pk],
        source="test",
    )
    return {"hang": hang, "other": other, "closed": closed}


def test_it_finds_the_issue_a_post_links_by_url(trained):
    p = post(
        "see https://t.co/abc",
        entities={
            "urls": [{"expanded_url": "https://github.com/ROCm/ROCm/issues/4321", "url": "x"}]
        },
    )
    post_understanding.posts_understand(ids=[p.pk])
    link = PostIssueLink.objects.get(post=p, kind="explicit")
    assert link.issue == trained["hang"]
    assert link.status == PostIssueLink.Status.CONFIRMED


def test_a_url_to_an_issue_we_do_not_hold_links_nothing(trained):
    p = post("https://github.com/ROCm/ROCm/issues/99999 and https://github.com/foo/bar/pull/1")
    post_understanding.posts_understand(ids=[p.pk])
    assert not PostIssueLink.objects.filter(kind="explicit").exists()


def test_it_suggests_similar_open_issues_only(trained):
    p = post("all_reduce hangs on my MI300X cluster, ROCm 7.0.2, RCCL is broken")
    post_understanding.posts_understand(ids=[p.pk])
    suggested = PostIssueLink.objects.filter(post=p, kind="suggested")
    assert [link.issue for link in suggested] == [trained["hang"]]
    assert suggested[0].score > 0.25


def test_a_triager_confirms_or_rejects_a_suggestion_and_it_sticks(trained, user):
    p = post("all_reduce hangs on MI300X, ROCm 7.0.2")
    post_understanding.posts_understand(ids=[p.pk])
    link = PostIssueLink.objects.get(post=p, kind="suggested")
    social.post_link_decide(link=link, user=user, confirm=False)
    post_understanding.posts_understand(ids=[p.pk])
    link.refresh_from_db()
    assert link.status == PostIssueLink.Status.REJECTED
    assert link.decided_by == user


def test_it_records_sentiment_and_mentions(trained):
    p = post("ROCm 7.0.2 on MI300X: hipBLASLt crashes constantly, awful")
    report = post_understanding.posts_understand(ids=[p.pk])
    p.refresh_from_db()
    assert report.sentiment == 1
    assert p.sentiment == "negative"
    assert 0.34 < p.sentiment_confidence <= 1
    assert "hipBLASLt" in p.mentions["components"]
    assert "gfx942" in p.mentions["architectures"]
    assert p.mentions["rocm_versions"] == ["7.0.2"]
    assert "|hipBLASLt|" in p.component_tags


def test_without_trained_models_posts_still_get_mentions_and_explicit_links(make):
    issue = make.issue(number=7)
    p = post("RCCL hang https://github.com/ROCm/ROCm/issues/7")
    report = post_understanding.posts_understand(ids=[p.pk])
    p.refresh_from_db()
    assert p.sentiment == ""
    assert p.mentions["components"] == ["RCCL"]
    assert PostIssueLink.objects.get().issue == issue
    assert report.skipped


def test_confirmed_posts_count_toward_the_issue_reach(trained):
    from triage.models import IssuePriority

    p = post("see https://github.com/ROCm/ROCm/issues/4321")
    post_understanding.posts_understand(ids=[p.pk])
    parts = IssuePriority.objects.get(issue=trained["hang"]).parts
    reach = next(part for part in parts if part["name"] == "reach")
    assert "1 linked posts on X" in reach["why"]


# --- dashboard and API ---------------------------------------------------------------------


@pytest.fixture
def feed(make):
    search = SavedSearch.objects.create(name="ROCm sucks", query='"ROCm sucks" -is:retweet')
    issue = make.issue(number=4321, title="Hang")
    angry = post("ROCm sucks <script>alert(1)</script>", sentiment="negative")
    angry.searches.add(search)
    happy = post("ROCm is great now", sentiment="positive")
    PostIssueLink.objects.create(post=angry, issue=issue, kind="explicit", status="confirmed")
    return {"search": search, "issue": issue, "angry": angry, "happy": happy}


def test_the_feed_shows_posts_sanitized_with_their_links(logged_in_client, feed):
    page = logged_in_client.get("/social/").content.decode()
    assert "ROCm sucks &lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>alert(1)</script>" not in page
    assert "ROCm/ROCm#4321" in page


def test_the_feed_filters_by_sentiment(logged_in_client, feed):
    page = logged_in_client.get("/social/", {"sentiment": "positive"}).content.decode()
    assert "ROCm is great now" in page
    assert "alert(1)" not in page


def test_the_budget_shown_is_this_months(logged_in_client, feed):
    search = feed["search"]
    last_month = (timezone.now().date().replace(day=1) - timedelta(days=1)).replace(day=1)
    SavedSearch.objects.filter(pk=search.pk).update(
        budget_month=last_month, posts_this_month=9000, monthly_budget=10000
    )
    page = logged_in_client.get(f"/social/searches/{search.pk}/").content.decode()
    assert "0 of 10000 posts used this month, 10000 left" in page
    assert "<td>0 / 10000</td>" in logged_in_client.get("/social/").content.decode()
    SavedSearch.objects.filter(pk=search.pk).update(
        budget_month=timezone.now().date().replace(day=1)
    )
    page = logged_in_client.get(f"/social/searches/{search.pk}/").content.decode()
    assert "9000 of 10000 posts used this month, 1000 left" in page


def test_the_search_page_draws_its_chart_from_local_static_files(logged_in_client, feed):
    response = logged_in_client.get(f"/social/searches/{feed['search'].pk}/")
    page = response.content.decode()
    assert response.status_code == 200
    assert "vendor/chart.umd.min.js" in page
    assert 'id="chart-data"' in page
    assert "cdn" not in page.lower()


def test_the_issue_page_lists_its_posts(logged_in_client, feed):
    page = logged_in_client.get("/issues/ROCm/ROCm/4321/").content.decode()
    assert "Posts on X (1)" in page
    assert "&lt;script&gt;" in page


@pytest.fixture
def triager(user):
    user.user_permissions.add(
        Permission.objects.get(content_type__app_label="triage", codename="triage_issue")
    )
    return user


@pytest.fixture
def suggestion(feed):
    return PostIssueLink.objects.create(
        post=feed["happy"], issue=feed["issue"], kind="suggested", status="suggested", score=0.5
    )


def test_a_suggested_link_is_confirmed_from_the_issue_page(logged_in_client, triager, suggestion):
    page = logged_in_client.get("/issues/ROCm/ROCm/4321/").content.decode()
    assert f'hx-post="/social/links/{suggestion.pk}/decide/"' in page
    response = logged_in_client.post(
        f"/social/links/{suggestion.pk}/decide/",
        {"confirm": "1", "next": "/issues/ROCm/ROCm/4321/"},
    )
    assert response.status_code == 302 and response["Location"] == "/issues/ROCm/ROCm/4321/"
    suggestion.refresh_from_db()
    assert (suggestion.status, suggestion.decided_by) == ("confirmed", triager)
    reach = next(p for p in suggestion.issue.priority.parts if p["name"] == "reach")
    assert "2 linked posts on X" in reach["why"]  # the explicit link and the confirmed one


def test_from_htmx_a_decision_answers_the_updated_list(logged_in_client, triager, suggestion):
    response = logged_in_client.post(
        f"/social/links/{suggestion.pk}/decide/",
        {"confirm": "0", "next": "/issues/ROCm/ROCm/4321/"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    fragment = response.content.decode()
    assert fragment.lstrip().startswith('<div id="linked-posts">')
    assert "ROCm is great now" not in fragment  # rejected: gone from the list
    assert "ROCm sucks &lt;script&gt;" in fragment
    assert "<html" not in fragment


def test_deciding_a_link_needs_the_triage_permission(logged_in_client, suggestion):
    page = logged_in_client.get("/issues/ROCm/ROCm/4321/").content.decode()
    assert "Confirm link" not in page
    response = logged_in_client.post(f"/social/links/{suggestion.pk}/decide/", {"confirm": "1"})
    assert response.status_code == 403
    suggestion.refresh_from_db()
    assert suggestion.status == "suggested"


def test_deciding_a_link_needs_a_login_and_a_post(logged_in_client, triager, feed):
    from django.test import Client

    link = PostIssueLink.objects.get()
    assert Client().post(f"/social/links/{link.pk}/decide/", {"confirm": "0"}).status_code == 302
    assert logged_in_client.get(f"/social/links/{link.pk}/decide/").status_code == 405
    link.refresh_from_db()
    assert link.status == "confirmed"


def test_the_posts_api_lists_and_filters(api_client, feed):
    data = api_client.get("/api/posts/", {"sentiment": "negative"}).json()
    assert data["count"] == 1
    [item] = data["results"]
    assert item["id"] == str(feed["angry"].x_id)
    assert item["searches"] == ["ROCm sucks"]
    assert item["linked_issues"][0]["issue"] == "ROCm/ROCm#4321"
    by_search = api_client.get("/api/posts/", {"search": feed["search"].pk}).json()
    assert by_search["count"] == 1


def test_the_posts_api_refuses_bad_filters(api_client, feed):
    assert api_client.get("/api/posts/", {"sentiment": "furious"}).status_code == 400
    assert api_client.get("/api/posts/", {"since": "yesterday"}).status_code == 400


def test_the_issue_api_carries_its_linked_posts(api_client, feed):
    data = api_client.get("/api/issues/ROCm/ROCm/4321/").json()
    assert data["linked_posts"][0]["post"]["id"] == str(feed["angry"].x_id)


@pytest.mark.django_db(transaction=True)
def test_the_demo_posts_load_with_a_spike(monkeypatch):
    from triage import pipeline
    from triage.models import Spike
    from triage.services import demo

    monkeypatch.setattr(pipeline, "AFTER_ISSUES_CHANGED", [])  # only the posts' own steps
    monkeypatch.setattr(pipeline, "AFTER_COMMENTS_CHANGED", [])
    demo.demo_load()
    report = demo.demo_posts_load()
    assert report.posts > 250
    assert Spike.objects.filter(hour=datetime(2026, 11, 24, 15, tzinfo=UTC)).exists()
    assert PostIssueLink.objects.filter(kind="explicit").exists()


def test_the_demo_posts_arrive_after_the_models_and_get_sentiment_and_suggestions(settings):
    from triage import selectors_social
    from triage.models import Spike
    from triage.services import classification, demo

    loaders = settings.DEMO_LOADERS
    assert loaders.index("triage.services.classification.demo_train_and_classify") < (
        loaders.index("triage.services.demo.demo_posts_load")
    )
    demo.demo_load()  # (the pipeline's on-commit steps do not run inside the test transaction)
    assert demo.demo_sentiment_train().activated
    classification.classifier_train_from_database(model_name="duplicates")
    report = demo.demo_posts_load()

    assert report.understood.sentiment == report.posts
    assert not Post.objects.filter(sentiment="").exists()
    assert PostIssueLink.objects.filter(kind="suggested").count() > 20
    charts = {
        search.name: selectors_social.posts_per_day_by_sentiment(
            search=search, days=30, end=datetime(2026, 11, 26, tzinfo=UTC)
        )
        for search in SavedSearch.objects.all()
    }
    assert all("unknown" not in chart["series"] for chart in charts.values())
    mi300x = charts["MI300X and Strix Halo"]
    assert set(mi300x["series"]) == {"negative", "neutral", "positive"}
    assert "2026-11-24" in mi300x["spikes"]
    assert set(charts["ROCm sucks"]["series"]) <= {"negative", "neutral"}
    spike_sentiment = Post.objects.filter(
        created_at__gte=datetime(2026, 11, 24, 15, tzinfo=UTC),
        created_at__lt=datetime(2026, 11, 24, 16, tzinfo=UTC),
    ).values_list("sentiment", flat=True)
    assert list(spike_sentiment).count("negative") > 0.8 * len(spike_sentiment)
    assert Spike.objects.filter(search=None, component="RCCL").exists()  # per component too
