"""Headless Chromium (Debian's `chromium` package) driven by Playwright against live_server.

Playwright's own browser download does not work on our machines, so the tests launch the
system Chromium (CHROMIUM_PATH, default /usr/bin/chromium). Without it they are skipped on a
developer's machine and fail in CI (CI=true), like the integration tests.
Screenshots of the main pages go to var/test/screenshots/; with UPDATE_SCREENSHOTS=1 to
docs/screenshots/, which the README shows (so a test run leaves the checkout as it was).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in this thread; the ORM calls the tests make to set
# up rows are still synchronous and safe here.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = (
    ROOT / "docs" / "screenshots"
    if os.environ.get("UPDATE_SCREENSHOTS") == "1"
    else ROOT / "var" / "test" / "screenshots"
)
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


# Every Content-Security-Policy violation (what the policy blocked, or would block if report-only)
# becomes a console error, so a test that asserts page.errors == [] also asserts there was none.
# Playwright runs init scripts before the page's own and outside its policy.
REPORT_POLICY_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", function (e) {
  console.error("CSP violation: " + e.effectiveDirective + " blocked " + (e.blockedURI || "?")
    + " (" + e.disposition + ") at " + e.sourceFile + ":" + e.lineNumber);
});
"""


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser/" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def chromium_browser():
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        message = f"browser tests need Chromium at {CHROMIUM} (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def browser_page(chromium_browser, live_server):
    """A fresh page (its own cookies) whose relative URLs go to the live server."""
    context = chromium_browser.new_context(
        base_url=live_server.url, viewport={"width": 1280, "height": 900}, timezone_id="UTC"
    )
    context.add_init_script(REPORT_POLICY_VIOLATIONS)
    page = context.new_page()
    page.errors = []  # uncaught exceptions, console errors and CSP violations: none may happen
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))
    page.dialogs = []  # any alert()/confirm() an injected script might open
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    yield page
    context.close()


@pytest.fixture
def watched(browser_page, live_server):
    """The page, with every request to another host recorded (resource type, URL) and refused."""
    page = browser_page
    page.external = []

    def route(route):
        if route.request.url.startswith(live_server.url):
            route.continue_()
        else:
            page.external.append((route.request.resource_type, route.request.url))
            route.abort()

    page.route("**/*", route)
    return page


def log_in(page, username: str, password: str) -> None:
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/")


def screenshot(page, name: str, *, full_page: bool = False) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=full_page)
