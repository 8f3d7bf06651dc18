"""Every page under the Content-Security-Policy, in headless Chromium (issue 15, items 2 and 6).

An admin walks the dashboard, the API docs (Swagger UI, its init script a file), the browsable
API, the admin (the periodic task form's script moved out of the page) and an error page: no
page reports a policy violation (conftest turns each into a console error) or another error,
what the pages draw from script still works (label colours, Swagger's operations, the crontab
help), and no request leaves for another host: an issue's images are links to them.
"""

from __future__ import annotations

import pytest
from django_celery_beat.models import CrontabSchedule

from tests.browser.conftest import log_in
from tests.browser.test_accessibility import PAGES as ACCESSIBILITY_PAGES
from tests.releases.conftest import series  # noqa: F401  (a fixture)

PAGES = [
    *ACCESSIBILITY_PAGES,  # the dashboard
    "/releases/7.9/?series=rocm",
    "/releases/7.9/notes/?series=rocm",
    "/api/issues/",
    "/api/releases/7.9/readiness/",
    "/admin/",
    "/admin/triage/issue/",
    "/admin/triage/label/",
    "/admin/auth/user/add/",
    "/admin/django_celery_beat/periodictask/",
]


@pytest.fixture
def world(make, series):  # noqa: F811
    label = make.label("bug", color="d73a4a")
    issue = make.issue(
        number=7,
        title="A kernel hangs on gfx942",
        labels=[label],
        body="![the hang](https://images.example.net/hang.png)\n\n"
        '<img src="https://github.com/user-attachments/assets/abc" alt="trace">',
    )
    issue.html_url = "javascript:window.__pwned='html_url'"  # as a hostile delivery would set it
    issue.save(update_fields=["html_url"])
    make.comment(issue, body="same here ![me too](https://tracker.example.net/p.gif)")
    CrontabSchedule.objects.create(minute="0", hour="4")
    return issue


@pytest.mark.django_db(transaction=True)
def test_every_page_runs_under_the_policy_without_a_violation(watched, world, django_user_model):
    django_user_model.objects.create_superuser("root", password="pw-root-1")
    page = watched
    log_in(page, "root", "pw-root-1")
    for url in PAGES:
        page.goto(url)
        page.wait_for_load_state("networkidle")
        assert page.errors == [], url
    page.goto("/no/such/page/")  # the error page: only its own 404 is reported
    page.wait_for_load_state("networkidle")
    assert [e for e in page.errors if "status of 404" not in e] == []
    page.errors.clear()

    # the label chip has its colour, set from app.js, with no style attribute in the page served
    page.goto("/issues/ROCm/ROCm/7/")
    chip = page.locator(".label").first
    assert chip.evaluate("el => getComputedStyle(el).backgroundColor") == "rgb(215, 58, 74)"
    assert "style=" not in page.evaluate("fetch(location.href).then(r => r.text())")
    # images are links to where they are, none loaded; the javascript: html_url is no link
    assert page.locator("main img").count() == 0
    assert page.get_by_role("link", name="image: the hang").get_attribute("href") == (
        "https://images.example.net/hang.png"
    )
    assert page.get_by_role("link", name="image: trace").count() == 1
    assert page.get_by_role("link", name="View on GitHub").count() == 0

    # Swagger UI draws the operations from its split-out init script
    page.goto("/api/docs/")
    page.wait_for_selector(".opblock", timeout=30_000)
    assert page.locator(".opblock").count() > 10

    # the periodic task form shows the chosen crontab in words (our script, not an inline one)
    page.goto("/admin/django_celery_beat/periodictask/add/")
    page.select_option("#id_crontab", index=1)
    page.wait_for_function(
        "document.querySelector('.field-crontab .help').textContent.includes('Translation')"
    )
    assert page.errors == []
    assert page.external == []
    assert page.evaluate("typeof window.__pwned") == "undefined"

    # the policy is in force: a script element with inline code, added to a page, does not run
    # (and conftest's listener reports the violation)
    page.goto("/")
    with page.expect_console_message(lambda m: m.text.startswith("CSP violation: script-src")):
        ran = page.evaluate(
            """() => { const s = document.createElement("script");
                       s.textContent = "window.__inline = 1"; document.body.appendChild(s);
                       return typeof window.__inline !== "undefined"; }"""
        )
    assert ran is False
