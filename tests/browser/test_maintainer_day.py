"""The maintainer's day, walked in Chromium: what the home page and the issue list tell a viewer."""

import pytest

from tests.browser.conftest import log_in
from tests.conftest import user_with_role
from tests.releases.conftest import series  # noqa: F401  (a fixture)
from triage.models import Post


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


@pytest.mark.django_db(transaction=True)
def test_the_readiness_counts_read_as_words(browser_page, django_user_model, series):  # noqa: F811
    user_with_role(django_user_model, "rm", "release managers")
    page = browser_page
    log_in(page, "rm", "pw-rm-1")
    page.goto("/releases/7.9/?series=rocm")

    counts = page.locator("section.readiness table th").all_inner_texts()
    assert "Open in train" in counts and "Pending backports" in counts
    assert not [name for name in counts if "_" in name]
    assert page.errors == []


@pytest.mark.django_db(transaction=True)
def test_a_post_that_names_only_a_gpu_mentions_it_without_a_stray_separator(
    browser_page, django_user_model, make
):
    user_with_role(django_user_model, "viewer", "viewers")
    Post.objects.create(
        external_id="9001",
        text="MI300X hangs again",
        created_at=make.now,
        mentions={"components": [], "gpus": ["MI300X"], "rocm_versions": ["6.4"]},
    )
    page = browser_page
    log_in(page, "viewer", "pw-viewer-1")
    page.goto("/social/")

    assert page.get_by_text("Mentions:").inner_text() == "Mentions: MI300X · ROCm 6.4"
    assert page.errors == []


@pytest.mark.django_db(transaction=True)
def test_an_approved_backport_is_not_called_pending(
    browser_page,
    django_user_model,
    make,
    series,  # noqa: F811
):
    from releases.services.backports import backport_approve, backport_nominate

    manager = user_with_role(django_user_model, "rm", "release managers")
    approved = backport_nominate(issue=make.issue(number=2), series=series, version="7.9")
    backport_approve(backport=approved, user=manager)
    page = browser_page
    log_in(page, "rm", "pw-rm-1")
    page.goto("/releases/7.9/?series=rocm")

    readiness = page.locator("section.readiness")
    assert readiness.get_by_text("1 approved backport(s) not merged yet").is_visible()
    assert readiness.get_by_text("backport(s) pending").count() == 0
    assert page.errors == []


@pytest.mark.django_db(transaction=True)
def test_nominating_an_issue_that_does_not_exist_shows_the_error_in_the_form(
    browser_page,
    django_user_model,
    make,
    series,  # noqa: F811
):
    from releases.services.backports import backport_nominate

    user_with_role(django_user_model, "rm", "release managers")
    backport_nominate(issue=make.issue(number=1, title="NaN in gemm"), series=series, version="7.9")
    page = browser_page
    log_in(page, "rm", "pw-rm-1")
    page.goto("/releases/7.9/?series=rocm")

    section = page.locator("section#backports")
    section.get_by_label("Nominate an issue's fix").fill("ROCm/ROCm#99")
    section.get_by_role("button", name="Nominate").click()

    alert = section.locator("form [role=alert]")
    alert.wait_for()
    assert "no issue ROCm/ROCm#99" in alert.inner_text()
    assert section.get_by_text("NaN in gemm").is_visible()  # the table stayed
    assert section.get_by_label("Nominate an issue's fix").input_value() == "ROCm/ROCm#99"
    section.get_by_label("Nominate an issue's fix").fill("ROCm/ROCm#1")  # and it can try again
    section.get_by_role("button", name="Nominate").click()
    section.locator("[role=status]").wait_for()
    assert page.errors == []


@pytest.mark.django_db(transaction=True)
def test_a_run_that_ended_as_an_infra_error_says_why_without_opening_the_log(
    browser_page, django_user_model, make
):
    from django.utils import timezone

    from kernels_ci.models import ReproRun
    from kernels_ci.services.cases import case_refresh
    from tests.kernels_ci.factories import issue_body

    user_with_role(django_user_model, "viewer", "viewers")
    case = case_refresh(issue=make.issue(number=7, title="wrong mask", body=issue_body()))
    ReproRun.objects.create(
        case=case,
        arch="gfx942",
        backend="triton-amd-compile",
        attempt=1,
        queue="repro.gfx942",
        script_sha256=case.sha256,
        status=ReproRun.Status.DONE,
        outcome=ReproRun.Outcome.INFRA_ERROR,
        detail="the runner's container image is not pulled",
        finished_at=timezone.now(),
    )
    page = browser_page
    log_in(page, "viewer", "pw-viewer-1")
    page.goto("/issues/ROCm/ROCm/7/")

    reason = page.get_by_text("Infra error: the runner's container image is not pulled")
    assert reason.is_visible()  # not folded inside the log
    assert page.errors == []


@pytest.mark.django_db(transaction=True)
def test_a_decision_in_the_queue_says_so_in_its_row_and_not_again_on_the_next_page(
    browser_page, django_user_model, make
):
    from triage.models import IssuePrediction

    user_with_role(django_user_model, "triager", "triagers")
    issue = make.issue(number=1, title="Crash in rocBLAS")
    IssuePrediction.objects.create(issue=issue, model_name="kind", label="bug", confidence=0.6)
    page = browser_page
    log_in(page, "triager", "pw-triager-1")
    page.goto("/triage/")

    row = page.locator(f"#queue-row-{issue.pk}")
    row.locator("select[id^=correct-kind-]").select_option("docs")
    row.get_by_role("status").wait_for()
    assert "kind corrected to docs" in row.get_by_role("status").inner_text()

    page.goto("/issues/")
    assert page.locator("ul.messages").count() == 0
    assert page.errors == []


def _queue_issue(make, number, title):
    from triage.models import IssuePrediction

    issue = make.issue(number=number, title=title)
    IssuePrediction.objects.create(issue=issue, model_name="kind", label="bug", confidence=0.6)
    return issue


@pytest.mark.django_db(transaction=True)
def test_p_edits_the_priority_and_enter_saves_it_without_opening_the_issue(
    browser_page, django_user_model, make
):
    user_with_role(django_user_model, "triager", "triagers")
    issue = _queue_issue(make, 1, "Crash in rocBLAS")
    page = browser_page
    log_in(page, "triager", "pw-triager-1")
    page.goto("/triage/")

    page.keyboard.press("j")
    page.keyboard.press("p")
    field = page.locator(f"#priority-{issue.pk}")
    assert field.evaluate("el => el === document.activeElement")
    page.keyboard.type("80")
    page.keyboard.press("Enter")
    page.locator(f"#queue-row-{issue.pk} [role=status]").wait_for()

    assert page.url.endswith("/triage/")  # Enter saved the priority; it did not open the issue
    assert page.locator(f"#priority-{issue.pk}").input_value() == "80"
    assert page.errors == []


@pytest.mark.django_db(transaction=True)
def test_d_asks_to_be_pressed_again_before_it_marks_a_duplicate(
    browser_page, django_user_model, make
):
    from triage.models import IssuePrediction, PredictionCorrection

    user_with_role(django_user_model, "triager", "triagers")
    original = make.issue(number=1, title="hipMalloc fails on MI300X")
    copy = _queue_issue(make, 2, "hipMalloc fails on MI300X again")
    IssuePrediction.objects.create(
        issue=copy,
        model_name="duplicates",
        label="ROCm/ROCm#1",
        confidence=0.9,
        evidence={
            "candidates": [
                {"issue_id": original.pk, "reference": "ROCm/ROCm#1", "title": "x", "score": 0.9}
            ]
        },
    )
    page = browser_page
    log_in(page, "triager", "pw-triager-1")
    page.goto("/triage/")
    row = page.locator(f"#queue-row-{copy.pk}")
    row.click(position={"x": 5, "y": 5})

    page.keyboard.press("d")
    assert row.get_by_text("Press d again to mark it a duplicate of ROCm/ROCm#1").is_visible()
    assert not PredictionCorrection.objects.filter(issue=copy).exists()

    page.keyboard.press("d")
    page.locator(f"#queue-row-{copy.pk} [role=status]").wait_for()
    assert PredictionCorrection.objects.filter(issue=copy, model_name="duplicates").exists()
    assert page.errors == []


@pytest.mark.django_db(transaction=True)
def test_the_home_pages_untriaged_count_is_what_its_link_lists(
    browser_page, django_user_model, make
):
    from triage.models import IssuePrediction

    user_with_role(django_user_model, "viewer", "viewers")
    for number, kind, needs_triage in [(1, "bug", False), (2, "feature", True), (3, None, None)]:
        issue = make.issue(number=number, title=f"issue {number}")
        if kind:
            IssuePrediction.objects.create(
                issue=issue,
                model_name="kind",
                label=kind,
                confidence=0.5,
                needs_triage=needs_triage,
            )
    page = browser_page
    log_in(page, "viewer", "pw-viewer-1")

    stat = page.get_by_role("link", name="untriaged")
    count = int(stat.locator("strong").inner_text())
    stat.click()
    page.wait_for_url("**/triage/?needs_triage=on")

    assert count == 2
    assert page.locator("tbody[data-keynav] tr").count() == count
    assert page.errors == []


@pytest.mark.django_db(transaction=True)
def test_the_train_pages_issue_links_open_our_issue_page_first(
    browser_page,
    django_user_model,
    make,
    series,  # noqa: F811
):
    from releases.services.targets import target_set

    user_with_role(django_user_model, "rm", "release managers")
    blocker = make.issue(number=12, title="Hang on MI300X")
    target_set(issue=blocker, series=series, version="7.9", flags=["blocker"])
    page = browser_page
    log_in(page, "rm", "pw-rm-1")
    page.goto("/releases/7.9/?series=rocm")

    readiness = page.locator("section.readiness")
    ours = readiness.get_by_role("link", name="ROCm/ROCm#12").first
    assert ours.get_attribute("href") == "/issues/ROCm/ROCm/12/"
    github = readiness.get_by_role("link", name="GitHub").first
    assert github.get_attribute("href") == "https://github.com/ROCm/ROCm/issues/12"
    ours.click()
    page.wait_for_url("**/issues/ROCm/ROCm/12/")
    assert page.errors == []


@pytest.mark.django_db(transaction=True)
def test_the_models_page_says_when_its_scores_come_from_the_synthetic_demo(
    browser_page, django_user_model, make
):
    user_with_role(django_user_model, "viewer", "viewers")
    page = browser_page
    log_in(page, "viewer", "pw-viewer-1")
    page.goto("/models/")
    assert page.get_by_text("Measured on the synthetic demo data").count() == 0

    make.repository("ROCm/HIP", html_url="https://github.demo.invalid/ROCm/HIP")
    page.goto("/models/")
    assert page.get_by_text("Measured on the synthetic demo data").is_visible()
    assert page.errors == []


@pytest.mark.django_db(transaction=True)
def test_a_spike_on_the_home_page_opens_its_posts(browser_page, django_user_model, make):
    from datetime import timedelta

    from django.utils import timezone

    from triage.models import SavedSearch, Spike

    user_with_role(django_user_model, "viewer", "viewers")
    search = SavedSearch.objects.create(name="HIP errors", query="hipErrorNoBinaryForGpu")
    hour = timezone.now().replace(minute=0, second=0, microsecond=0) - timedelta(hours=2)
    for n, at in enumerate([hour + timedelta(minutes=5), hour + timedelta(minutes=40)]):
        post = Post.objects.create(external_id=str(100 + n), text=f"spike post {n}", created_at=at)
        post.searches.add(search)
    outside = Post.objects.create(
        external_id="200", text="an older post", created_at=hour - timedelta(hours=3)
    )
    outside.searches.add(search)
    Spike.objects.create(
        search=search, hour=hour, count=2, baseline_mean=0.1, baseline_stdev=0.1, threshold=1.0
    )
    page = browser_page
    log_in(page, "viewer", "pw-viewer-1")

    page.get_by_role("link", name="HIP errors: 2 posts").click()
    page.wait_for_url("**/social/?*hour=*")
    assert page.get_by_text("spike post 0").is_visible()
    assert page.get_by_text("spike post 1").is_visible()
    assert page.get_by_text("an older post").count() == 0
    assert page.errors == []


@pytest.mark.django_db(transaction=True)
def test_the_timeline_shows_each_coming_trains_verdict(
    browser_page,
    django_user_model,
    make,
    series,  # noqa: F811
):
    from releases.services.targets import target_set

    user_with_role(django_user_model, "viewer", "viewers")
    target_set(issue=make.issue(number=12), series=series, version="7.9", flags=["blocker"])
    page = browser_page
    log_in(page, "viewer", "pw-viewer-1")
    page.goto("/releases/")

    current = page.locator("tr[aria-current=true]")
    assert "NO-GO" in current.locator(".verdict").inner_text()
    assert "open blocker" in current.inner_text()
    verdicts = page.locator("tbody tr .verdict").all_inner_texts()
    assert len(verdicts) >= 2 and set(verdicts) <= {"GO", "NO-GO"}
    assert page.errors == []


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path", ["/social/", "/releases/7.9/?series=rocm", "/settings/"])
def test_pages_fit_a_phone_without_scrolling_sideways(
    chromium_browser,
    live_server,
    django_user_model,
    make,
    series,  # noqa: F811
    path,
):
    from releases.services.targets import target_set
    from triage.models import SavedSearch
    from triage.services.social import saved_searches_seed

    user_with_role(django_user_model, "rm", "release managers")
    saved_searches_seed()  # the default searches, long queries and all
    search = SavedSearch.objects.get(name="ROCm breakage")
    for number, arch in enumerate(["gfx942", "gfx90a", "gfx1100", "gfx1151", "gfx950"], 100):
        issue = make.issue(
            number=number, title=f"regression on {arch}", labels=[arch, "regression"]
        )
        target_set(issue=issue, series=series, version="7.9", flags=["blocker"])
    post = Post.objects.create(
        external_id="1",
        text="ROCm 6.4 hipErrorNoBinaryForGpu on gfx1151 https://github.com/ROCm/ROCm/issues/4840",
        created_at=make.now,
        mentions={"components": ["HIP"], "gpus": ["Strix Halo"], "rocm_versions": ["6.4"]},
    )
    post.searches.add(search)
    make.issue(number=4840, title="hipErrorNoBinaryForGpu on gfx1151 with a long title " * 2)
    context = chromium_browser.new_context(
        base_url=live_server.url, viewport={"width": 390, "height": 844}, timezone_id="UTC"
    )
    page = context.new_page()
    log_in(page, "rm", "pw-rm-1")
    page.goto(path)

    wide = page.evaluate(
        """() => [...document.querySelectorAll('body *')]
            .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
            .filter(e => !e.closest('.table-wrap'))
            .map(e => e.tagName + '.' + e.className).slice(0, 8)"""
    )
    width = page.evaluate("() => document.documentElement.scrollWidth")
    context.close()
    assert (width, wide) == (390, [])


@pytest.mark.django_db(transaction=True)
def test_on_a_phone_the_queue_is_cards_and_the_menu_folds(browser_page, django_user_model, make):
    user_with_role(django_user_model, "triager", "triagers")
    issue = _queue_issue(make, 1, "Crash in rocBLAS gemm with a rather long title " * 2)
    page = browser_page
    log_in(page, "triager", "pw-triager-1")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/triage/")

    kind = page.locator(f"#queue-row-{issue.pk} select[id^=correct-kind-]")
    box = kind.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert page.evaluate("() => document.documentElement.scrollWidth") == 390
    assert not page.get_by_role("link", name="Releases").is_visible()
    page.get_by_role("button", name="Menu").click()
    assert page.get_by_role("link", name="Releases").is_visible()
    assert page.errors == []


@pytest.mark.django_db(transaction=True)
def test_checked_rows_get_one_bulk_action_and_u_undoes_a_decision(
    browser_page, django_user_model, make
):
    user_with_role(django_user_model, "triager", "triagers")
    first, second, third = (_queue_issue(make, n, f"Crash number {n}") for n in (1, 2, 3))
    page = browser_page
    log_in(page, "triager", "pw-triager-1")
    page.goto("/triage/")

    page.locator(f"#queue-row-{first.pk} [data-bulk-select]").click()
    page.locator(f"#queue-row-{third.pk} [data-bulk-select]").click(modifiers=["Shift"])
    assert page.locator("[data-bulk-count]").inner_text() == "3"
    page.get_by_label("With the selected issues").select_option("priority")
    page.get_by_label("Of / to").fill("90")
    page.get_by_role("button", name="Apply to 3 selected").click()
    page.get_by_text("Set priority: 3 done").wait_for()
    first.refresh_from_db()
    assert first.priority_score == 90

    row = page.locator(f"#queue-row-{second.pk}")
    row.locator("select[id^=correct-kind-]").select_option("docs")
    row.get_by_role("status").wait_for()
    row.click(position={"x": 5, "y": 5})
    page.keyboard.press("u")
    page.get_by_text("kind decision undone").wait_for()
    from triage.models import PredictionCorrection

    assert not PredictionCorrection.objects.filter(issue=second, model_name="kind").exists()
    assert page.errors == []


@pytest.mark.django_db(transaction=True)
def test_the_backports_table_opens_our_issue_page_first(
    browser_page,
    django_user_model,
    make,
    series,  # noqa: F811
):
    from releases.services.backports import backport_nominate

    user_with_role(django_user_model, "rm", "release managers")
    backport_nominate(
        issue=make.issue(number=31, title="rocprof hangs when tracing HIP graphs"),
        series=series,
        version="7.9",
    )
    page = browser_page
    log_in(page, "rm", "pw-rm-1")
    page.goto("/releases/7.9/?series=rocm")

    backports = page.locator("section#backports")
    ours = backports.get_by_role("link", name="ROCm/ROCm#31")
    assert ours.get_attribute("href") == "/issues/ROCm/ROCm/31/"
    github = backports.get_by_role("link", name="GitHub")
    assert github.get_attribute("href") == "https://github.com/ROCm/ROCm/issues/31"
    assert page.errors == []
