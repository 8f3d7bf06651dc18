"""The maintainer's day, walked in Chromium: what the home page and the issue list tell a viewer."""

import pytest

from tests.browser.conftest import log_in
from tests.conftest import user_with_role


@pytest.mark.django_db(transaction=True)
def test_home_says_no_runner_has_registered_when_none_has(browser_page, django_user_model):
    user_with_role(django_user_model, "viewer", "viewers")
    page = browser_page
    log_in(page, "viewer", "pw-viewer-1")

    repro = page.get_by_role("region", name="Kernel repros")
    assert repro.get_by_text("No runner has registered").is_visible()
    assert page.get_by_text("All runners healthy").count() == 0
    assert page.errors == []


@pytest.mark.django_db(transaction=True)
def test_searching_two_words_finds_the_issue_that_has_both(browser_page, django_user_model, make):
    user_with_role(django_user_model, "viewer", "viewers")
    make.issue(number=1, title="hipBLASLt GEMM fails", body="seen on gfx942 with ROCm 6.4")
    make.issue(number=2, title="hipBLASLt tuning", body="gfx90a only")
    make.issue(number=3, title="gfx942 hang in rccl")
    page = browser_page
    log_in(page, "viewer", "pw-viewer-1")

    page.goto("/issues/")
    page.get_by_label("Search").fill("hipblaslt gfx942")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url("**/issues/?*q=hipblaslt*")

    assert page.locator(".result-count").inner_text() == "1 result"
    assert page.locator(".ref").all_inner_texts() == ["ROCm/ROCm#1"]
    assert page.errors == []
