"""The maintainer's day, part two (issue 34): nothing in the queue that misleads, in Chromium."""

import pytest

from kernels_ci.models import ReproCase
from kernels_ci.services.cases import case_refresh
from tests.browser.conftest import log_in
from tests.conftest import user_with_role
from tests.kernels_ci.factories import issue_body
from tests.releases.conftest import series  # noqa: F401  (a fixture)
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


def test_at_1280_px_every_column_of_the_queue_shows_without_scrolling_sideways(
    browser_page, django_user_model, make
):
    from triage.models import IssuePrediction as Prediction

    user_with_role(django_user_model, "triager", "triagers")
    original = make.issue(number=1, title="hipMalloc fails")
    issue = queued(
        make, 3785, "Kernel hangs on gfx90a with hipMallocManaged memory", body=issue_body()
    )
    case_refresh(issue=issue)
    for model, label in (
        ("symptom", "wrong-result"),
        ("component", "composable_kernel"),
        ("severity", "critical"),
        ("environment", "gfx90a gfx942 gfx1100"),
    ):
        Prediction.objects.create(issue=issue, model_name=model, label=label, confidence=0.9)
    Prediction.objects.create(
        issue=issue,
        model_name="duplicates",
        label="ROCm/rocm-libraries#36940",
        confidence=0.9,
        evidence={
            "candidates": [
                {
                    "issue_id": original.pk,
                    "reference": "ROCm/rocm-libraries#36940",
                    "title": "x",
                    "score": 0.9,
                }
            ]
        },
    )
    page = browser_page
    log_in(page, "triager", "pw-triager-1")
    page.goto("/triage/?has_repro=on")

    table = page.locator("table.triage-queue").bounding_box()
    wrap = page.locator("table.triage-queue").locator("xpath=..").bounding_box()
    assert table["width"] <= wrap["width"] + 1
    for name in ("Duplicate", "Repro"):
        cell = page.locator(f"#queue-row-{issue.pk} td[data-label={name}]").bounding_box()
        assert cell["x"] + cell["width"] <= 1280, name
    assert page.errors == []


def test_on_a_phone_every_control_of_the_queue_is_a_tap_target_of_24_px(
    browser_page, django_user_model, make
):
    user_with_role(django_user_model, "triager", "triagers")
    issue = queued(make, 1, "Crash in rocBLAS", body=issue_body())
    case_refresh(issue=issue)
    page = browser_page
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, "triager", "pw-triager-1")
    page.goto("/triage/")

    small = page.evaluate(
        """() => [...document.querySelectorAll('main :is(input, select, button, summary)')]
            .map(e => [e, e.getBoundingClientRect()])
            .filter(([e, r]) => r.width > 0 && (r.width < 24 || r.height < 24))
            .map(([e, r]) => `${e.tagName} ${e.name || e.textContent.trim()} ${r.height}`)
        """
    )
    assert small == []
    assert page.errors == []


def test_the_train_page_says_its_verdict_before_its_forms_and_folds_long_lists(
    browser_page,
    django_user_model,
    make,
    series,  # noqa: F811
):
    from releases.services.targets import target_set

    user_with_role(django_user_model, "rm", "release managers")
    for number in range(100, 115):
        issue = make.issue(number=number, title=f"blocker {number}")
        target_set(issue=issue, series=series, version="7.9", flags=["blocker"])
    page = browser_page
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, "rm", "pw-rm-1")
    page.goto("/releases/7.9/?series=rocm")

    readiness = page.get_by_role("heading", name="Readiness of rocm 7.9.0").bounding_box()
    manage = page.get_by_role("heading", name="Manage the train").bounding_box()
    assert readiness["y"] < manage["y"]
    blockers = page.locator("#readiness li", has_text="blocker 1")
    assert blockers.count() == 15
    assert sum(1 for i in range(15) if blockers.nth(i).is_visible()) == 10
    page.get_by_text("5 more").first.click()
    assert sum(1 for i in range(15) if blockers.nth(i).is_visible()) == 15
    assert page.errors == []


def test_the_repro_anchor_lands_on_the_repro_panel(browser_page, django_user_model, make):
    user_with_role(django_user_model, "triager", "triagers")
    for number in range(1, 20):
        make.comment(make.issue(number=number + 100), body="same here")
    issue = make.issue(number=7, title="Wrong mask", body=issue_body() + "\n\nmore text\n" * 40)
    case_refresh(issue=issue)
    for n in range(12):
        make.comment(issue, body=f"Same on my MI300X, attempt {n}.\n\n" + "log line\n" * 30)
    page = browser_page
    log_in(page, "triager", "pw-triager-1")
    page.goto("/")
    page.goto("/issues/ROCm/ROCm/7/#repro")

    panel = page.locator("#repro")
    assert panel.get_by_role("heading", name="Kernel reproduction").is_visible()
    assert page.evaluate("() => window.scrollY") > 0
    box = panel.bounding_box()
    assert -5 <= box["y"] < 900  # at the top of the window, give or take a rounding
    assert page.errors == []


def test_slash_g_and_the_command_palette_reach_search_pages_and_row_actions(
    browser_page, django_user_model, make
):
    user_with_role(django_user_model, "triager", "triagers")
    issue = queued(make, 1, "Crash in rocBLAS")
    page = browser_page
    log_in(page, "triager", "pw-triager-1")
    page.goto("/triage/")

    page.keyboard.press("/")
    assert page.evaluate("() => document.activeElement.name") == "q"
    page.keyboard.press("Escape")
    page.locator("h1").click()

    page.keyboard.press("j")
    page.keyboard.press("Control+k")
    palette = page.get_by_role("dialog", name="Command palette")
    assert palette.is_visible()
    page.keyboard.type("accept kind")
    options = palette.get_by_role("option").all_inner_texts()
    assert options and all("kind" in o.lower() for o in options)
    page.keyboard.press("Enter")
    page.locator(f"#queue-row-{issue.pk} [role=status]").wait_for()
    from triage.models import PredictionCorrection

    assert PredictionCorrection.objects.filter(issue=issue, model_name="kind").exists()

    page.locator("h1").click()
    page.keyboard.press("g")
    page.keyboard.press("i")
    page.wait_for_url("**/issues/")
    page.keyboard.press("Control+k")
    page.keyboard.type("go to releases")
    page.keyboard.press("Enter")
    page.wait_for_url("**/releases/")
    assert page.errors == []


def test_a_bulk_action_is_previewed_then_applied_then_undone(browser_page, django_user_model, make):
    from triage.models import PredictionCorrection

    user_with_role(django_user_model, "triager", "triagers")
    first, second = queued(make, 1, "Crash one"), queued(make, 2, "Crash two")
    page = browser_page
    log_in(page, "triager", "pw-triager-1")
    page.goto("/triage/")
    for issue in (first, second):
        page.locator(f"#queue-row-{issue.pk} [data-bulk-select]").check()
    page.get_by_label("With the selected issues").select_option("accept")
    page.get_by_role("button", name="Preview").click()

    assert page.get_by_text("Nothing has been done yet").is_visible()
    rows = page.locator("table.bulk-preview tbody tr").all_inner_texts()
    assert len(rows) == 2 and all("accepted kind bug" in row for row in rows)
    assert not PredictionCorrection.objects.exists()
    page.get_by_role("button", name="Apply to these 2 issues").click()
    page.get_by_text("Accept the predictions: 2 done").wait_for()
    assert PredictionCorrection.objects.count() == 2

    page.get_by_role("button", name="Undo it").click()
    page.get_by_text("Undone: 2 done").wait_for()
    assert not PredictionCorrection.objects.exists()
    assert page.errors == []


def test_a_row_decided_out_of_the_view_says_so_and_the_count_follows_without_a_reload(
    browser_page, django_user_model, make
):
    user_with_role(django_user_model, "triager", "triagers")
    first, second = queued(make, 1, "Crash one"), queued(make, 2, "Crash two")
    page = browser_page
    log_in(page, "triager", "pw-triager-1")
    page.goto("/triage/?kind=bug")
    loads = page.evaluate("() => performance.getEntriesByType('navigation').length")
    assert page.locator("#result-count").inner_text() == "2 issues"

    row = page.locator(f"#queue-row-{first.pk}")
    row.locator("select[id^=correct-kind-]").select_option("docs")
    row.get_by_text("No longer in this view").wait_for()
    assert page.locator("#result-count").inner_text() == "1 issue"
    assert page.locator(f"#queue-row-{second.pk}").get_by_text("No longer").count() == 0
    assert page.evaluate("() => performance.getEntriesByType('navigation').length") == loads
    assert page.errors == []


def test_a_mention_delivered_by_webhook_shows_in_the_inbox_within_one_poll(
    browser_page, django_user_model, settings
):
    from django.test import Client

    from tests.triage.test_inbox import deliver_comment
    from triage.models import UserPreference

    settings.INBOX_POLL_SECONDS = 2
    settings.GITHUB_WEBHOOK_SECRET = "inbox-secret"
    member = user_with_role(django_user_model, "triager", "triagers")
    UserPreference.objects.create(user=member, github_login="maint-alice")
    page = browser_page
    log_in(page, "triager", "pw-triager-1")
    page.goto("/inbox/")
    assert page.get_by_text("Nothing new.").is_visible()
    loads = page.evaluate("() => performance.getEntriesByType('navigation').length")

    deliver_comment(Client(), "@maint-alice can you repro?", "inbox-secret")

    page.locator("#inbox-count .inbox-count").wait_for(timeout=5_000)  # the menu's count
    assert page.locator("#inbox-count").inner_text() == "1"
    page.locator(".inbox-item").wait_for(timeout=5_000)  # and the row, without a reload
    assert "can you repro?" in page.locator(".inbox-item").inner_text()
    assert page.evaluate("() => performance.getEntriesByType('navigation').length") == loads
    assert page.errors == []
