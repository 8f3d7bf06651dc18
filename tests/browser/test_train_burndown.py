"""The burndown chart, drawn by the vendored Chart.js in headless Chromium."""

from datetime import UTC, datetime

import pytest

from tests.browser.conftest import log_in, screenshot
from tests.conftest import user_with_role
from tests.releases.conftest import series  # noqa: F401  (a fixture)


@pytest.mark.django_db(transaction=True)
def test_the_train_page_draws_the_burndown(browser_page, django_user_model, make, series):  # noqa: F811
    for number in (1, 2, 3):
        make.issue(number=number, created_at=datetime(2026, 11, 12 + number, tzinfo=UTC))
    user_with_role(django_user_model, "rm", "release managers")
    page = browser_page
    log_in(page, "rm", "pw-rm-1")
    page.goto("/releases/7.9/?series=rocm")
    page.wait_for_selector("canvas#burndown-chart[data-chart-drawn]", timeout=15000)
    drawn = int(page.get_attribute("canvas#burndown-chart", "data-chart-drawn"))
    box = page.locator("canvas#burndown-chart").bounding_box()
    assert page.errors == []
    assert drawn > 0  # points on the chart: the reconstructed days so far and the ideal line
    assert box["width"] > 100 and box["height"] > 50
    screenshot(page, "train")
