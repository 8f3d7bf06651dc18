"""Images in untrusted text (issue 15, item 6): never an <img> to the author's host.

By default an image is a link, "image: alt text", to its URL (through the same http(s) check as
every link); with IMAGE_PROXY_URL and IMAGE_PROXY_KEY it is an <img> through the camo-compatible
proxy, and the Content-Security-Policy allows images from that proxy's origin.
"""

from __future__ import annotations

import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from tests.security.corpus import hostile_texts, html_problems
from triage.text.rendering import render_markdown
from triage.views.image_proxy import camo_url

ROOT = Path(__file__).resolve().parents[2]
PROXY = "https://camo.example.org"
KEY = "proxy-test-key"
FOREIGN = [
    "![screenshot](https://evil.example/track.png?who=maintainer)",
    '<img src="https://github.com/user-attachments/assets/0a1b2c3d" alt="crash log" width="600">',
    '<img src="https://private-user-images.githubusercontent.com/1/2.png?jwt=x" alt="private">',
    "![](http://93.184.215.14/pixel.gif)",
    '<p><img src="https://evil.example/a.png" onerror="alert(1)" title="t"></p>',
]


class _Elements(HTMLParser):
    def __init__(self):
        super().__init__()
        self.elements: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))


def elements(html: str, tag: str) -> list[dict]:
    parser = _Elements()
    parser.feed(html)
    return [attrs for name, attrs in parser.elements if name == tag]


@pytest.fixture
def no_proxy(settings):
    settings.IMAGE_PROXY_URL, settings.IMAGE_PROXY_KEY = "", ""


@pytest.fixture
def proxy(settings):
    settings.IMAGE_PROXY_URL, settings.IMAGE_PROXY_KEY = PROXY, KEY


@pytest.mark.parametrize("text", FOREIGN)
def test_it_shows_a_foreign_image_as_a_link_to_it_by_default(no_proxy, text):
    html = render_markdown(text)
    assert elements(html, "img") == []
    (link,) = elements(html, "a")
    assert link["href"].startswith(("https://", "http://"))
    assert link["rel"] == "nofollow noopener noreferrer"
    assert "image: " in html and "onerror" not in html


def test_the_link_says_what_the_image_was(no_proxy):
    assert ">image: crash log</a>" in render_markdown(FOREIGN[1])
    assert ">image: pixel.gif</a>" in render_markdown(FOREIGN[3])  # no alt: the file name
    assert "image: a &lt;b&gt; &amp; c" in render_markdown(
        '<img src="https://e.x/i" alt="a <b> & c">'
    )


def test_an_image_inside_a_link_is_text_in_that_link(no_proxy):
    html = render_markdown("[![build](https://ci.example/badge.svg)](https://ci.example/run/1)")
    assert [a["href"] for a in elements(html, "a")] == ["https://ci.example/run/1"]
    assert "image: build" in html and elements(html, "img") == []


def test_an_image_with_a_refused_url_is_text_without_a_link(no_proxy):
    for src in (
        "//evil.example/x.png",
        "/admin/logout/",
        "data:image/png;base64,AA",
        " https://e.x/",
    ):
        text = f'<img src="{src}" alt="x">'
        html = render_markdown(text)
        assert elements(html, "a") == [] and elements(html, "img") == [], text
        assert "image: x" in html, text
    # markdown-it leaves a javascript: image as its text
    assert render_markdown("![x](javascript:alert(1))") == "<p>![x](javascript:alert(1))</p>\n"


def test_camo_urls_match_the_published_vector():
    # the digest camo's documentation gives for this key and URL (HMAC-SHA1, hex)
    url = "http://farm5.static.flickr.com/4116/4857328881_fefb8e2134_z.jpg"
    proxied = camo_url(url, base="https://camo.example/", key="0x24FEEDFACEDEADBEEFCAFE")
    digest, encoded = proxied.removeprefix("https://camo.example/").split("/")
    assert digest == "2731d77b436b8a78f4cbe3624d8088fd5262f996"
    assert bytes.fromhex(encoded).decode() == url


@pytest.mark.parametrize("text", FOREIGN)
def test_with_a_proxy_every_image_goes_through_it(proxy, text):
    html = render_markdown(text)
    (image,) = elements(html, "img")
    digest, encoded = image["src"].removeprefix(PROXY + "/").split("/")
    original = bytes.fromhex(encoded).decode()
    assert image["src"] == camo_url(original, base=PROXY, key=KEY)
    assert original in text  # the image's own URL, signed
    assert set(image) <= {"src", "alt", "title", "width", "height"}


def test_with_a_proxy_attributes_are_kept_and_refused_urls_stay_text(proxy):
    html = render_markdown(FOREIGN[1])
    (image,) = elements(html, "img")
    assert (image["alt"], image["width"]) == ("crash log", "600")
    assert elements(render_markdown("![x](javascript:alert(1))"), "img") == []


IMAGE_SYNTAX = st.sampled_from(
    [
        "![{t}]({u})", '<img src="{u}" alt="{t}">', "<img src={u}>", "[![{t}]({u})]({u})",
        '<a href="{u}"><img src="{u}"></a>', '<abbr title="<img src={u}>">{t}</abbr>',
        "<p><img alt='{t}' src='{u}'/></p>", "<details><summary><img src=\"{u}\"></summary>",
    ]
)  # fmt: skip
URLS = st.sampled_from(
    ["https://evil.example/x.png", "http://a.b/c d.png", "//evil.example/x", "javascript:x()",
     "https://e.x/\"onerror=alert(1)", "https://e.x/>", "https://e.x/a?b=<c>&d='e'"]
) | st.text(max_size=30)  # fmt: skip


@hypothesis_settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(IMAGE_SYNTAX, URLS, st.text(max_size=20)), min_size=1, max_size=6))
def test_no_text_makes_an_img_to_a_foreign_host(parts):
    from django.conf import settings

    text = "\n\n".join(syntax.format(t=t, u=u) for syntax, u, t in parts)
    settings.IMAGE_PROXY_URL, settings.IMAGE_PROXY_KEY = "", ""
    html = render_markdown(text)
    assert elements(html, "img") == [] and html_problems(html) == []
    assert not any(elements(a_html, "a") for a_html in _link_texts(html))  # no nested links
    settings.IMAGE_PROXY_URL, settings.IMAGE_PROXY_KEY = PROXY, KEY
    try:
        proxied = render_markdown(text)
    finally:
        settings.IMAGE_PROXY_URL, settings.IMAGE_PROXY_KEY = "", ""
    assert all(i["src"].startswith(PROXY + "/") for i in elements(proxied, "img"))
    assert [p for p in html_problems(proxied) if "an image from another host" not in p] == []


def _link_texts(html: str) -> list[str]:
    """The markup inside each <a>...</a> (links never nest in nh3's output)."""
    parts, position = [], 0
    while (start := html.find("<a ", position)) != -1:
        end = html.find("</a>", start)
        parts.append(html[html.find(">", start) + 1 : end])
        position = end + 4
    return parts


def test_no_corpus_text_renders_an_img(no_proxy):
    for name, text in hostile_texts().items():
        assert "<img" not in render_markdown(text), name


def _settings_of(tmp_path, **env) -> subprocess.CompletedProcess:
    code = (
        "from django.conf import settings; "
        "print(settings.CONTENT_SECURITY_POLICY['DIRECTIVES']['img-src'])"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={
            "PATH": "/usr/bin:/bin",
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "SECRET_KEY": "k",
            "VAR_DIR": str(tmp_path),
            **env,
        },
    )


def test_the_policy_allows_images_from_the_proxy_origin_only(tmp_path):
    default = _settings_of(tmp_path)
    assert default.stdout.strip() == "[\"'self'\"]", default.stderr
    proxied = _settings_of(
        tmp_path, IMAGE_PROXY_URL="https://camo.example.org:8443/camo/", IMAGE_PROXY_KEY="k"
    )
    assert proxied.stdout.strip() == "[\"'self'\", 'https://camo.example.org:8443']"


@pytest.mark.parametrize(
    "env",
    [{"IMAGE_PROXY_URL": "https://camo.example.org"}, {"IMAGE_PROXY_KEY": "k"},
     {"IMAGE_PROXY_URL": "javascript:alert(1)", "IMAGE_PROXY_KEY": "k"}],
)  # fmt: skip
def test_a_half_or_bad_proxy_setting_is_refused_at_start(tmp_path, env):
    result = _settings_of(tmp_path, **env)
    assert result.returncode != 0
    assert "IMAGE_PROXY" in result.stderr


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/admin/",
        "http://169.254.169.254/latest/meta-data/iam/",
        "http://10.1.2.3/x.png",
        "http://[::1]/x.png",
        "http://[fd00::1]/x.png",
        "http://localhost/x.png",
        "http://redis/x.png",
        "http://grafana.internal/x.png",
        "http://printer.local/x.png",
        "http://2130706433/x.png",
    ],
)
def test_the_proxy_is_never_asked_to_fetch_from_our_own_network(proxy, url):
    html = render_markdown(f"![internal]({url})")
    assert elements(html, "img") == [], "signed, the proxy would fetch it from inside"
    assert "image: internal" in html


def test_a_public_host_still_goes_through_the_proxy(proxy):
    (image,) = elements(render_markdown("![ok](https://8.8.8.8/a.png)"), "img")
    assert image["src"].startswith(PROXY)
