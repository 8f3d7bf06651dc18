"""What a reviewer found walking the demo, in Chromium: readiness reasons that link, counts that
follow an in-place nomination, and home-page tables that show every column."""

from datetime import timedelta

import pytest
from django.utils import timezone

from releases import calendar
from tests.browser.conftest import log_in
from tests.conftest import user_with_role
from tests.releases.conftest import series  # noqa: F401  (a fixture)
from triage.models import IssuePrediction, SyncState


@pytest.mark.django_db(transaction=True)
def test_readiness_reasons_open_our_issue_page(
    browser_page,
    django_user_model,
    make,
    series,  # noqa: F811
):
    from releases.services.targets import target_set

    user_with_role(django_user_model, "rm", "release managers")
    train = calendar.train_current(series.spec(), timezone.now())
    blocker = make.issue(number=4840, title="hipErrorNoBinaryForGpu on gfx1151 <b>again</b>")
    target_set(issue=blocker, series=series, version=train.version, flags=["blocker"])
    page = browser_page
    log_in(page, "rm", "pw-rm-1")

    reason = page.get_by_role("region", name="Next train").locator("li", has_text="open blocker")
    assert reason.inner_text() == "1 open blocker(s): ROCm/ROCm#4840"
    link = reason.get_by_role("link", name="ROCm/ROCm#4840")
    assert link.get_attribute("href") == "/issues/ROCm/ROCm/4840/"

    page.goto(f"/releases/{train.version}/?series=rocm")
    reason = page.locator("#readiness-reasons li", has_text="open blocker")
    assert reason.inner_text() == "1 open blocker(s): ROCm/ROCm#4840"
    reason.get_by_role("link", name="ROCm/ROCm#4840").click()
    page.wait_for_url("**/issues/ROCm/ROCm/4840/")
    assert page.errors == []


def _count(page, name: str) -> str:
    return page.locator("section.readiness table tr", has_text=name).locator("td").inner_text()


@pytest.mark.django_db(transaction=True)
def test_nominating_and_approving_in_place_update_the_readiness_counts(
    browser_page,
    django_user_model,
    make,
    series,  # noqa: F811
):
    user_with_role(django_user_model, "rm", "release managers")
    make.issue(number=31, title="rocprof hangs when tracing HIP graphs")
    page = browser_page
    log_in(page, "rm", "pw-rm-1")
    page.goto("/releases/7.9/?series=rocm")
    assert _count(page, "Pending backports") == "0"

    section = page.locator("section#backports")
    section.get_by_label("Nominate an issue's fix").fill("ROCm/ROCm#31")
    section.get_by_label("Reason").fill("the hang blocks profiling on MI300X")
    section.get_by_role("button", name="Nominate").click()
    section.get_by_role("status").wait_for()

    assert _count(page, "Pending backports") == "1"
    readiness = page.locator("section.readiness")
    assert readiness.get_by_text("1 backport(s) awaiting a decision").is_visible()
    section.get_by_role("button", name="Approve").click()
    readiness.get_by_text("1 approved backport(s) not merged yet").wait_for()
    assert readiness.get_by_text("awaiting a decision").count() == 0
    assert page.locator("section.readiness").count() == 1
    assert page.errors == []


def _home_with_wide_tables(make):
    now = make.now
    repository = make.repository("ROCm/ROCm", tracked=True)
    SyncState.objects.create(
        repository=repository,
        resource=SyncState.Resource.ISSUES,
        rate_limit_remaining=4211,
        rate_limit_reset_at=now + timedelta(minutes=40),
        last_run_at=now,
    )
    for number, (component, target) in enumerate(
        [("hipblaslt", "gfx942"), ("miopen", "gfx90a"), ("rccl", "gfx1100")], 1
    ):
        issue = make.issue(
            repository=repository,
            number=number,
            title=f"{component} fails on {target}",
            author="reporter",
            author_association="NONE",
            created_at=now - timedelta(days=9),
        )
        IssuePrediction.objects.create(issue=issue, model_name="component", label=component)
        IssuePrediction.objects.create(issue=issue, model_name="environment", label=target)


WIDE_PANELS = ("Models", "GitHub rate budgets", "Response times")


@pytest.mark.django_db(transaction=True)
def test_the_home_pages_wide_tables_show_every_column_on_a_desktop(
    browser_page, django_user_model, make
):
    user_with_role(django_user_model, "viewer", "viewers")
    _home_with_wide_tables(make)
    page = browser_page
    page.set_viewport_size({"width": 1440, "height": 900})
    log_in(page, "viewer", "pw-viewer-1")

    for name in WIDE_PANELS:
        panel = page.get_by_role("region", name=name)
        for wrap in panel.locator(".table-wrap").all():
            hidden = wrap.evaluate("w => w.scrollWidth - w.clientWidth")
            assert hidden <= 1, f"{name}: {hidden}px of its table are cut off at 1440 px"
    assert page.evaluate("() => document.documentElement.scrollWidth") == 1440
    assert page.errors == []


@pytest.mark.django_db(transaction=True)
def test_on_a_phone_the_home_pages_wide_tables_scroll_inside_their_card(
    browser_page, django_user_model, make
):
    user_with_role(django_user_model, "viewer", "viewers")
    _home_with_wide_tables(make)
    page = browser_page
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, "viewer", "pw-viewer-1")

    assert page.evaluate("() => document.documentElement.scrollWidth") == 390
    wrap = page.get_by_role("region", name="Response times").locator(".table-wrap").first
    assert wrap.evaluate("w => w.scrollWidth > w.clientWidth")  # it scrolls, inside its card
    assert page.errors == []
