import pytest

from tests.browser.conftest import log_in, screenshot
from tests.conftest import user_with_role

HOSTILE_TITLE = '<script>window.__pwned = "title"</script><img src=x onerror="window.__pwned=1">'
HOSTILE_BODY = """Steps:

<script>window.__pwned = "body"; alert("body")</script>
<img src="x" onerror="window.__pwned = 'img'; alert('img')">
<a href="javascript:window.__pwned='link'">click me</a>
<a href="data:text/html,<script>alert(1)</script>">data link</a>
<div onmouseover="window.__pwned='hover'" style="width:500px;height:50px">hover</div>
[markdown js](javascript:alert('md'))
<svg><script>alert('svg')</script></svg>
<iframe src="javascript:alert('iframe')"></iframe>
"""


@pytest.mark.django_db(transaction=True)
def test_it_logs_in_through_the_form(browser_page, django_user_model):
    user_with_role(django_user_model, "viewer", "viewers")
    page = browser_page
    page.goto("/issues/")
    assert "/accounts/login/" in page.url  # anonymous: the login page only
    log_in(page, "viewer", "pw-viewer-1")
    assert page.get_by_role("heading", name="Today").is_visible()
    screenshot(page, "home")
    assert page.errors == []


@pytest.mark.django_db(transaction=True)
def test_an_issue_with_script_tags_and_handlers_runs_none_of_them(
    browser_page, django_user_model, make
):
    user_with_role(django_user_model, "viewer", "viewers")
    issue = make.issue(number=66, title=HOSTILE_TITLE, body=HOSTILE_BODY)
    make.comment(issue, body=HOSTILE_BODY)
    page = browser_page
    log_in(page, "viewer", "pw-viewer-1")

    for url in ("/issues/", "/issues/ROCm/ROCm/66/", "/triage/", "/issues/?q=%3Cscript%3E"):
        page.goto(url)
        page.mouse.move(100, 400)
        for link in page.locator("main a").all():
            href = link.get_attribute("href") or ""
            assert not href.strip().lower().startswith(("javascript:", "data:")), href
        assert page.evaluate("window.__pwned") is None, url
    page.goto("/issues/ROCm/ROCm/66/")
    page.get_by_text("hover", exact=True).first.hover()
    assert page.evaluate("window.__pwned") is None
    assert page.dialogs == []
    # the text is shown, as text
    assert "<script>" in page.locator("h1").inner_text()
