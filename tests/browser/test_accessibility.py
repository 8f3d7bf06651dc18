"""Usable by keyboard and at any width: labelled controls, a skip link first in the focus order,
no page wider than a narrow window, and the contrast of the dashboard's own colours."""

import pytest

from tests.browser.conftest import log_in
from tests.conftest import user_with_role

PAGES = [
    "/",
    "/triage/",
    "/issues/",
    "/issues/ROCm/ROCm/7/",
    "/social/",
    "/releases/",
    "/repro/",
    "/runners/",
    "/models/",
    "/settings/",
    "/preferences/",
]

UNLABELLED = """() => Array.from(document.querySelectorAll(
    'main input:not([type=hidden]), main select, main textarea'))
  .filter(el => el.offsetParent !== null)
  .filter(el => !(el.labels && el.labels.length) && !el.getAttribute('aria-label')
                && !el.getAttribute('aria-labelledby') && !el.closest('label'))
  .map(el => el.outerHTML.slice(0, 120))"""

CONTRAST = """() => {
  function rgb(c) { const m = c.match(/\\d+(\\.\\d+)?/g).map(Number); return m.slice(0, 3); }
  function lum(c) { return c.map(v => { v /= 255; return v <= 0.03928 ? v / 12.92
                     : Math.pow((v + 0.055) / 1.055, 2.4); })
                    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0); }
  function bg(el) { while (el) { const c = getComputedStyle(el).backgroundColor;
      if (!c.startsWith('rgba(0, 0, 0, 0)') && c !== 'transparent') return c;
      el = el.parentElement; }
    return 'rgb(255, 255, 255)'; }
  const low = [];
  for (const el of document.querySelectorAll('main *')) {
    const ownText = n => n.nodeType === 3 && n.textContent.trim();
    if (!el.childNodes.length || !Array.from(el.childNodes).some(ownText)) continue;
    if (el.offsetParent === null) continue;
    const a = lum(rgb(getComputedStyle(el).color)), b = lum(rgb(bg(el)));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const what = el.tagName + ' ' + ratio.toFixed(2) + ' ' + el.textContent.trim().slice(0, 40);
    if (ratio < 4.5) low.push(what);
  }
  return low;
}"""


@pytest.mark.django_db(transaction=True)
def test_every_page_is_labelled_keyboard_reachable_and_fits_a_narrow_window(
    browser_page, django_user_model, make
):
    user_with_role(django_user_model, "tri", "triagers")
    issue = make.issue(number=7, title="A kernel hangs on gfx942")
    make.comment(issue, body="same here")
    page = browser_page
    log_in(page, "tri", "pw-tri-1")
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        for url in PAGES:
            page.goto(url)
            assert page.evaluate(UNLABELLED) == [], (url, width)
            overflow = page.evaluate(
                "() => document.documentElement.scrollWidth - window.innerWidth"
            )
            assert overflow <= 1, (url, width, overflow)  # wide tables scroll in their own box
            assert page.evaluate(CONTRAST) == [], (url, width)
    page.goto("/")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent.trim()") == "Skip to content"
    assert page.errors == []


@pytest.mark.django_db(transaction=True)
def test_in_dark_mode_every_page_keeps_its_contrast_and_fits_a_phone(
    browser_page, django_user_model, make
):
    from triage.models import IssuePrediction

    user_with_role(django_user_model, "tri", "triagers")
    issue = make.issue(number=7, title="A kernel hangs on gfx942", labels=["bug"])
    IssuePrediction.objects.create(issue=issue, model_name="kind", label="bug", confidence=0.6)
    make.comment(issue, body="same here")
    page = browser_page
    page.emulate_media(color_scheme="dark")
    log_in(page, "tri", "pw-tri-1")
    assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
    background = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    assert background == "rgb(13, 17, 23)", "the dark palette is in use"
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        for url in PAGES:
            page.goto(url)
            assert page.evaluate(CONTRAST) == [], (url, width)
            overflow = page.evaluate(
                "() => document.documentElement.scrollWidth - window.innerWidth"
            )
            assert overflow <= 1, (url, width, overflow)
    assert page.errors == []
