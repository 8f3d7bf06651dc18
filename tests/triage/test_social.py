"""Understanding posts (sentiment, mentions, links to issues), the feed, the API and the panel."""

from __future__ import annotations

import io
import itertools
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import Permission
from django.utils import timezone

from classifiers import training
from triage.models import Post, PostIssueLink, SavedSearch
from triage.services import post_understanding, social, upsert
from triage.sources.records import PostRecord

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
        external_id=str(next(ids)),
        text=text,
        created_at=datetime(2026, 11, 20, tzinfo=UTC),
        **fields,
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


def test_a_post_links_to_its_own_source_and_never_to_a_script(logged_in_client):
    forum = "https://community.amd.com/t/rocm-7-hangs-on-mi300x/77"
    when = datetime(2026, 11, 21, tzinfo=UTC)
    upsert.posts_upsert(
        search=None,
        records=[
            PostRecord(
                external_id="77", source="discourse", text="hangs", created_at=when, url=forum
            ),
            PostRecord(
                external_id="78",
                source="discourse",
                text="clicks",
                created_at=when,
                url="javascript:alert(1)",
            ),
        ],
    )

    assert Post.objects.get(external_id="77").url == forum
    assert Post.objects.get(external_id="78").url == ""
    page = logged_in_client.get("/social/").content.decode()
    assert f'href="{forum}"' in page and "javascript:" not in page


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
    assert item["id"] == feed["angry"].external_id
    assert item["searches"] == ["ROCm sucks"]
    assert item["sentiment_decided"] is False
    assert item["linked_issues"][0]["issue"] == "ROCm/ROCm#4321"
    by_search = api_client.get("/api/posts/", {"search": feed["search"].pk}).json()
    assert by_search["count"] == 1


def test_the_posts_api_refuses_bad_filters(api_client, feed):
    assert api_client.get("/api/posts/", {"sentiment": "furious"}).status_code == 400
    assert api_client.get("/api/posts/", {"since": "yesterday"}).status_code == 400
    assert api_client.get("/api/posts/", {"search": "one"}).status_code == 400


def test_the_posts_api_answers_404_for_a_saved_search_that_does_not_exist(api_client, feed):
    missing = feed["search"].pk + 1000
    answer = api_client.get("/api/posts/", {"search": missing})
    assert answer.status_code == 404
    assert answer.json() == {"detail": f"No saved search {missing}."}


def test_the_posts_api_reads_empty_filters_as_none(api_client, feed):
    everything = api_client.get("/api/posts/").json()["count"]
    blank = {"search": "", "sentiment": "", "since": "", "component": ""}
    assert api_client.get("/api/posts/", blank).json()["count"] == everything > 1


def test_the_issue_api_carries_its_linked_posts(api_client, feed):
    data = api_client.get("/api/issues/ROCm/ROCm/4321/").json()
    assert data["linked_posts"][0]["post"]["id"] == feed["angry"].external_id


@pytest.mark.django_db(transaction=True)
def test_the_demo_posts_load_with_a_spike(monkeypatch):
    from config import wiring
    from triage.models import Spike
    from triage.services import demo

    monkeypatch.setattr(wiring, "AFTER_ISSUES_CHANGED", [])  # only the posts' own steps
    monkeypatch.setattr(wiring, "AFTER_COMMENTS_CHANGED", [])
    demo.demo_load()
    report = demo.demo_posts_load()
    assert report.posts > 250
    assert Spike.objects.filter(hour=datetime(2026, 11, 24, 15, tzinfo=UTC)).exists()
    assert PostIssueLink.objects.filter(kind="explicit").exists()


def test_the_demo_posts_arrive_after_the_models_and_get_sentiment_and_suggestions():
    from config import wiring
    from triage.models import Spike
    from triage.selectors import social as selectors_social
    from triage.services import classification, demo

    loaders = wiring.DEMO_LOADERS
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


# --- triagers' sentiment decisions, and the model learning from them -------------------------


def test_a_triager_sets_a_posts_sentiment_and_a_new_model_version_keeps_it(trained, user):
    from triage.models import TriageAction

    p = post("so frustrating, MI300X hangs again")
    post_understanding.posts_understand(ids=[p.pk])
    p.refresh_from_db()
    assert p.sentiment == "negative"
    before_confidence = p.sentiment_confidence

    correction = social.post_sentiment_correct(post=p, label=" Neutral ", user=user)
    p.refresh_from_db()
    assert (p.sentiment, p.sentiment_confidence) == ("neutral", 1.0)
    assert p.sentiment_corrected_at == correction.created_at
    assert (correction.before, correction.after, correction.user) == ("negative", "neutral", user)
    assert correction.before_confidence == before_confidence
    action = TriageAction.objects.get(action="post.sentiment")
    assert action.before == {"post": p.external_id, "sentiment": "negative"}
    assert action.after == {"post": p.external_id, "sentiment": "neutral"}

    report = post_understanding.posts_understand(ids=[p.pk])  # e.g. a new sentiment version
    p.refresh_from_db()
    assert p.sentiment == "neutral" and report.sentiment == 0


def test_an_unknown_sentiment_is_refused_and_changes_nothing(feed, user):
    from triage.models import SentimentCorrection

    with pytest.raises(social.InvalidSentiment, match="negative, neutral, positive"):
        social.post_sentiment_correct(post=feed["angry"], label="furious", user=user)
    feed["angry"].refresh_from_db()
    assert feed["angry"].sentiment == "negative"
    assert not SentimentCorrection.objects.exists()


def write_base(tmp_path, rows):
    import csv

    path = tmp_path / "sentiment_base.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "label"])
        writer.writerows(rows)
    return path


@pytest.fixture
def base_csv(settings, tmp_path):
    rows = [(t, "negative") for t in NEGATIVE] + [(t, "positive") for t in POSITIVE]
    rows += [(t, "neutral") for t in NEUTRAL]
    settings.CLASSIFIER_SENTIMENT_CSV = str(write_base(tmp_path, rows))
    return rows


def test_the_sentiment_training_set_is_the_base_csv_with_the_corrections_on_top(base_csv, user):
    from triage.services import training_data

    sarcasm = post("love it, so fast now")  # a base text, positive there
    sarcasm_reply = post("great, another week of hangs. love it")
    social.post_sentiment_correct(post=sarcasm, label="neutral", user=user)
    social.post_sentiment_correct(post=sarcasm, label="negative", user=user)  # the latest counts
    social.post_sentiment_correct(post=sarcasm_reply, label="negative", user=user)

    data = training_data.training_set(model_name="sentiment")
    pairs = dict(zip(data.texts, data.labels, strict=True))
    assert len(data) == len(base_csv) + 1  # the base text is replaced, the reply is added
    assert pairs["love it, so fast now"] == "negative"
    assert pairs["great, another week of hangs. love it"] == "negative"
    assert pairs["excellent work, thank you team"] == "positive"
    assert data.sources == {"csv": len(base_csv) - 1, "correction": 2}


def test_the_weekly_retraining_learns_the_corrections_once(base_csv, user):
    from classifiers import artifacts
    from triage.services import classification

    first = classification.classifiers_retrain(reclassify=False)
    sentiment = next(r for r in first.reports if r.name == "sentiment")
    assert sentiment.activated and sentiment.n_samples == len(base_csv)

    social.post_sentiment_correct(post=post("great, hangs again"), label="negative", user=user)
    second = classification.classifiers_retrain(reclassify=False)
    sentiment = next(r for r in second.reports if r.name == "sentiment")
    assert sentiment.n_samples == len(base_csv) + 1 and sentiment.version
    loaded = artifacts.artifact_load("sentiment", version=sentiment.version)
    assert "correction 1" in loaded.metadata["source"]

    third = classification.classifiers_retrain(reclassify=False)
    sentiment = next(r for r in third.reports if r.name == "sentiment")
    assert not sentiment.version and "unchanged training data" in sentiment.reason


def test_without_the_base_csv_sentiment_is_not_trained_from_the_database(settings, feed, user):
    from classifiers import artifacts
    from classifiers.text_classifier import TrainingDataError
    from triage.services import classification

    settings.CLASSIFIER_SENTIMENT_CSV = ""
    social.post_sentiment_correct(post=feed["happy"], label="neutral", user=user)
    with pytest.raises(TrainingDataError, match="CLASSIFIER_SENTIMENT_CSV is not set"):
        classification.classifier_train_from_database(model_name="sentiment")
    result = classification.classifiers_retrain(reclassify=False)
    sentiment = next(r for r in result.reports if r.name == "sentiment")
    assert "CLASSIFIER_SENTIMENT_CSV is not set" in sentiment.reason
    with pytest.raises(artifacts.ArtifactError):
        artifacts.artifact_load("sentiment")


def test_a_bad_base_csv_is_reported_by_the_retraining(settings, tmp_path):
    from triage.services import classification

    settings.CLASSIFIER_SENTIMENT_CSV = str(write_base(tmp_path, []))
    result = classification.classifiers_retrain(reclassify=False)
    sentiment = next(r for r in result.reports if r.name == "sentiment")
    assert "no rows" in sentiment.reason and not sentiment.version


def test_the_feed_lets_a_triager_correct_a_sentiment_in_one_click(logged_in_client, triager, feed):
    from triage.models import SentimentCorrection

    angry = feed["angry"]
    page = logged_in_client.get("/social/").content.decode()
    assert f'hx-post="/social/posts/{angry.pk}/sentiment/"' in page
    response = logged_in_client.post(
        f"/social/posts/{angry.pk}/sentiment/",
        {"label": "neutral", "links": "1", "searches": "1"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    fragment = response.content.decode()
    assert fragment.lstrip().startswith("<article") and "<html" not in fragment
    assert "neutral, decided" in fragment
    assert "ROCm sucks &lt;script&gt;alert(1)&lt;/script&gt;" in fragment
    assert "ROCm/ROCm#4321" in fragment and "Matched:" in fragment  # links and searches kept
    assert SentimentCorrection.objects.get().after == "neutral"


def test_accepting_a_sentiment_without_javascript_records_it_and_goes_back(
    logged_in_client, triager, feed
):
    from triage.models import SentimentCorrection

    happy = feed["happy"]
    response = logged_in_client.post(
        f"/social/posts/{happy.pk}/sentiment/",
        {"label": ["positive", ""], "next": "/social/?sentiment=positive"},  # Accept, empty select
    )
    assert response.status_code == 302 and response["Location"] == "/social/?sentiment=positive"
    correction = SentimentCorrection.objects.get()
    assert (correction.before, correction.after) == ("positive", "positive")
    page = logged_in_client.get("/social/").content.decode()
    assert "positive, decided" in page
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(triager)
    [item] = api.get("/api/posts/", {"sentiment": "positive"}).json()["results"]
    assert item["sentiment_decided"] is True and item["sentiment_confidence"] == 1.0


def test_a_bad_sentiment_from_htmx_is_refused_and_a_viewer_cannot_decide(
    logged_in_client, feed, django_user_model
):
    from triage.models import SentimentCorrection

    angry = feed["angry"]
    page = logged_in_client.get("/social/").content.decode()
    assert "/sentiment/" not in page  # a viewer gets no form
    assert (
        logged_in_client.post(
            f"/social/posts/{angry.pk}/sentiment/", {"label": "neutral"}
        ).status_code
        == 403
    )
    user = django_user_model.objects.get(username="alice")
    user.user_permissions.add(
        Permission.objects.get(content_type__app_label="triage", codename="triage_issue")
    )
    response = logged_in_client.post(
        f"/social/posts/{angry.pk}/sentiment/", {"label": "furious"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 400
    assert "unknown sentiment" in response.content.decode()
    assert not SentimentCorrection.objects.exists()


def test_train_classifier_sentiment_trains_the_base_set_with_the_decisions(base_csv, feed, user):
    from django.core.management import call_command

    social.post_sentiment_correct(post=feed["happy"], label="neutral", user=user)
    out = io.StringIO()
    call_command("train_classifier", "sentiment", stdout=out)
    assert f"{len(base_csv) + 1} samples" in out.getvalue()  # of the feed's posts, the decided one
    assert "active" in out.getvalue()


def test_train_classifier_sentiment_says_what_is_missing(settings):
    from django.core.management import CommandError, call_command

    settings.CLASSIFIER_SENTIMENT_CSV = ""
    with pytest.raises(CommandError, match="CLASSIFIER_SENTIMENT_CSV is not set"):
        call_command("train_classifier", "sentiment")


def test_the_updated_post_shows_the_links_the_feed_shows(logged_in_client, triager, feed, make):
    rejected = make.issue(number=4399, title="Unrelated")
    PostIssueLink.objects.create(
        post=feed["angry"], issue=rejected, kind="suggested", status="rejected", score=0.4
    )
    feed_page = logged_in_client.get("/social/").content.decode()
    response = logged_in_client.post(
        f"/social/posts/{feed['angry'].pk}/sentiment/",
        {"label": "neutral", "links": "1"},
        HTTP_HX_REQUEST="true",
    )
    fragment = response.content.decode()
    assert "ROCm/ROCm#4321" in fragment and "ROCm/ROCm#4321" in feed_page
    assert "ROCm/ROCm#4399" not in fragment and "ROCm/ROCm#4399" not in feed_page
