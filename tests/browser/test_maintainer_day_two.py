"""The maintainer's day, part two (issue 34): nothing in the queue that misleads, in Chromium."""

import pytest

from kernels_ci.models import ReproCase
from kernels_ci.services.cases import case_refresh
from tests.browser.conftest import log_in
from tests.conftest import user_with_role
from tests.kernels_ci.factories import issue_body
from triage.models import IssuePrediction

pytestmark = pytest.mark.django_db(transaction=True)


def queued(make, number, title, **fields):
    issue = make.issue(number=number, title=title, **fields)
    IssuePrediction.objects.create(issue=issue, model_name="kind", label="bug", confidence=0.6)
    return issue


def selected(page):
    return page.locator("[data-keynav-item][aria-selected=true]")


def test_c_checks_the_row_and_the_keys_go_on_working_after_it(
    browser_page, django_user_model, make
):
    user_with_role(django_user_model, "triager", "triagers")
    first, second = queued(make, 1, "Crash one"), queued(make, 2, "Crash two")
    page = browser_page
    log_in(page, "triager", "pw-triager-1")
    page.goto("/triage/")
    rows = [page.locator(f"#queue-row-{i.pk}") for i in (first, second)]
    top = rows[0] if rows[0].bounding_box()["y"] < rows[1].bounding_box()["y"] else rows[1]
    below = rows[1] if top is rows[0] else rows[0]

    page.keyboard.press("j")
    page.keyboard.press("c")
    assert top.locator("[data-bulk-select]").is_checked()
    assert page.get_by_role("button", name="Apply to 1 selected").is_visible()

    page.keyboard.press("j")  # the checkbox has focus: j still moves
    assert selected(page).get_attribute("id") == below.get_attribute("id")
    page.keyboard.press("c")
    assert page.get_by_role("button", name="Apply to 2 selected").is_visible()
    page.keyboard.press("k")
    page.keyboard.press("c")  # and c again unchecks
    assert not top.locator("[data-bulk-select]").is_checked()
    page.keyboard.press("?")
    assert page.locator("#keynav-help").is_visible()
    assert page.errors == []


def test_a_bulk_result_is_said_once_on_the_page_not_in_every_row(
    browser_page, django_user_model, make
):
    user_with_role(django_user_model, "triager", "triagers")
    issues = [queued(make, n, f"Wrong mask {n}", body=issue_body()) for n in (1, 2, 3)]
    for issue in issues:
        case_refresh(issue=issue)
    page = browser_page
    log_in(page, "triager", "pw-triager-1")
    page.goto("/triage/?has_repro=on")
    page.locator(f"#queue-row-{issues[0].pk} [data-bulk-select]").click()
    page.get_by_label("With the selected issues").select_option("priority")
    page.get_by_label("Of / to").fill("90")
    page.get_by_role("button", name="Apply to 1 selected").click()
    page.wait_for_url("**/triage/?has_repro=on")

    assert page.locator(".repro-cell").count() == 3
    assert page.get_by_text("Set priority: 1 done").count() == 1
    assert page.locator(".repro-cell [role=status]").count() == 0
    assert page.errors == []


def test_x_shows_the_script_and_only_x_again_approves_it(browser_page, django_user_model, make):
    user_with_role(django_user_model, "triager", "triagers")
    issue = queued(make, 1, "Wrong mask", body=issue_body())
    case = case_refresh(issue=issue)
    page = browser_page
    log_in(page, "triager", "pw-triager-1")
    page.goto("/triage/")
    script = page.locator(f"#repro-review-{case.pk} .repro-script")
    assert not script.is_visible()  # folded until asked for

    page.keyboard.press("j")
    page.keyboard.press("x")
    assert script.is_visible()
    assert case.script.splitlines()[0] in script.inner_text()
    assert page.get_by_text("press x again to approve it").is_visible()
    assert not ReproCase.objects.get(pk=case.pk).is_approved

    page.keyboard.press("x")
    page.locator(f"#repro-cell-{case.pk} [role=status]").wait_for()
    assert ReproCase.objects.get(pk=case.pk).is_approved
    assert page.errors == []


@pytest.mark.parametrize(
    ("role", "offered", "not_offered"),
    [
        ("triagers", "Set priority", "Target a train"),
        ("release managers", "Target a train", "Set priority"),
    ],
)
def test_the_bulk_bar_offers_each_role_what_it_may_do(
    browser_page, django_user_model, make, role, offered, not_offered
):
    user_with_role(django_user_model, "member", role)
    queued(make, 1, "Crash one")
    page = browser_page
    log_in(page, "member", "pw-member-1")
    page.goto("/triage/")

    options = page.get_by_label("With the selected issues").locator("option").all_inner_texts()
    assert offered in options and not_offered not in options
    page.keyboard.press("j")
    page.keyboard.press("c")
    assert page.get_by_role("button", name="Apply to 1 selected").is_visible()
    assert page.errors == []
