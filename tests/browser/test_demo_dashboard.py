"""The dashboard on the demo data, in headless Chromium: the maintainers' main flows.

One test, because loading the demo (the bundled synthetic data, trained models, a release
series with a NO-GO train, posts with a spike, reproducers) is the expensive part. It also saves
the screenshots of the main pages that the README shows."""

import io

import pytest
from django.core.management import call_command
from django.utils import timezone

from classifiers import artifacts, datasets
from kernels_ci.models import ReproCase
from releases import calendar
from releases.models import ReleaseSeries
from tests.browser.conftest import log_in, screenshot
from triage.models import PredictionCorrection, SavedSearch, SentimentCorrection
from triage.services import classification, demo


@pytest.mark.django_db(transaction=True)
def test_the_demo_dashboard_flows(browser_page, settings):
    settings.KERNELS_CI_DEMO_RUN = False
    settings.CLASSIFIER_SENTIMENT_CSV = str(demo.DEMO_SENTIMENT)  # as `make demo` sets it
    settings.KERNELS_CI_RUNS_PER_ATTEMPT = 1
    call_command("load_demo", stdout=io.StringIO())
    page = browser_page
    log_in(page, "demo", "demo")
    assert page.get_by_role("heading", name="Next train").is_visible()
    page.wait_for_selector("canvas[data-chart='chart-activity'][data-chart-drawn]")
    screenshot(page, "home")

    # Correct a prediction in the queue: the row is replaced in place, the decision saved.
    page.goto("/triage/")
    first = page.locator("tbody[data-keynav] tr").first
    row_id = first.get_attribute("id")
    issue_pk = int(row_id.rsplit("-", 1)[1])
    before = page.evaluate("() => performance.getEntriesByType('navigation').length")
    first.locator("select[id^=correct-kind-]").select_option("docs")
    page.wait_for_selector(f"#{row_id} .badge:text('decided')")
    assert page.evaluate("() => performance.getEntriesByType('navigation').length") == before
    correction = PredictionCorrection.objects.get(issue_id=issue_pk, model_name="kind")
    assert correction.after == "docs"
    screenshot(page, "triage-queue")

    # Keyboard: j moves to the first row, a accepts its component ... here, approve a repro:
    # x shows the script, x again approves it.
    page.goto("/triage/?has_repro=on")
    row = page.locator("tbody[data-keynav] tr").first
    case_pk = int(row.locator(".repro-cell").get_attribute("id").rsplit("-", 1)[1])
    page.keyboard.press("j")
    assert row.get_attribute("aria-selected") == "true"
    page.keyboard.press("x")
    assert row.locator(".repro-script").is_visible()
    screenshot(page, "triage-queue-repro-review")
    page.keyboard.press("x")
    page.wait_for_selector(f"#repro-cell-{case_pk} .badge:text('approved')", timeout=120_000)
    assert ReproCase.objects.get(pk=case_pk).is_approved

    # The issue page: predictions with evidence, priority parts, duplicates, posts, fix chain.
    page.goto(row.locator("[data-keynav-open]").get_attribute("href"))
    assert page.get_by_role("heading", name="Classification and priority").is_visible()
    # the synthetic demo never links to a real issue: its GitHub pages are on a host that
    # cannot exist
    on_github = page.get_by_role("link", name="View on GitHub").get_attribute("href")
    assert on_github.startswith("https://github.demo.invalid/")
    screenshot(page, "issue")

    # The readiness page of the demo's NO-GO train, and its reasons.
    series = ReleaseSeries.objects.get()
    train = calendar.train_current(series.spec(), timezone.now())
    page.goto("/releases/")
    screenshot(page, "releases")
    page.goto(f"/releases/{train.version}/?series={series.name}")
    heading = page.locator("h2#readiness-title")
    assert "NO-GO" in heading.inner_text()
    reasons = page.locator("#readiness-reasons li").all_inner_texts()
    assert any("blocker" in r for r in reasons), reasons
    page.wait_for_selector("canvas#burndown-chart[data-chart-drawn]")
    screenshot(page, "train")

    # The social feed: correct a post's sentiment in place; the decision is saved.
    page.goto("/social/")
    screenshot(page, "social")
    article = page.locator("article.post").first
    post_id = article.get_attribute("id")
    before = page.evaluate("() => performance.getEntriesByType('navigation').length")
    article.locator("select[name=label]").select_option("positive")
    page.wait_for_selector(f"#{post_id} .badge.sentiment:text('positive, decided')")
    assert page.evaluate("() => performance.getEntriesByType('navigation').length") == before
    decided = SentimentCorrection.objects.get(post_id=int(post_id.rsplit("-", 1)[1]))
    assert (decided.after, decided.user.username) == ("positive", "demo")
    # ... and the next retraining learns it, on top of the demo's base set.
    retrained = classification.classifiers_retrain(reclassify=False)
    sentiment = next(r for r in retrained.reports if r.name == "sentiment")
    base = len(datasets.labelled_csv_read(demo.DEMO_SENTIMENT, name="sentiment"))
    assert sentiment.version and sentiment.n_samples in (base, base + 1)  # a base text: replaced
    assert (
        "correction 1" in artifacts.artifact_load("sentiment", sentiment.version).metadata["source"]
    )

    # The social chart draws its points.
    search = SavedSearch.objects.order_by("-id").filter(posts__isnull=False).first()
    page.goto(f"/social/searches/{search.pk}/")
    page.wait_for_selector("canvas#posts-chart[data-chart-drawn]")
    assert int(page.get_attribute("canvas#posts-chart", "data-chart-drawn")) > 0

    for url, name in (("/repro/", "repro-runs"), ("/runners/", "runners"), ("/models/", "models")):
        page.goto(url)
        screenshot(page, name)
    assert page.errors == []
    assert page.dialogs == []
