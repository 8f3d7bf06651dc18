"""Links from data (issue 15, item 2): one filter builds every link a template fills from data, and
a javascript: html_url delivered by a webhook reaches no page, report or release note as a link.

The walk reads every template of the project (templates/ and each of our apps' templates) for
href, src, action, formaction, srcset, poster and htmx's request attributes bound to data
({{ ... }}): each must be `{{ value|safe_url }}`, or start with {% url %}, {% static %} or
{% querystring %} (they fix the scheme and host; what follows is a path or a query). Links with
text go through {% safe_link %}, which renders the text alone when the URL is refused.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from io import StringIO
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.core.management import call_command

from releases.services.backports import backport_nominate
from releases.services.targets import target_set
from tests.fakes.github_api import github_for_settings
from tests.fakes.github_webhooks import delivery_headers, fixture_payload
from triage.models import Comment, Issue
from triage.text.safe_links import safe_link_url

URL_ATTRIBUTES = (
    "href", "src", "action", "formaction", "srcset", "poster", "data",
    "hx-get", "hx-post", "hx-put", "hx-patch", "hx-delete",
)  # fmt: skip
SAFE_PREFIXES = ("{% url ", "{% static ", "{% querystring")


def project_templates() -> list[Path]:
    root = Path(settings.BASE_DIR)
    folders = [Path(d) for d in settings.TEMPLATES[0]["DIRS"]]
    folders += [Path(c.path) / "templates" for c in apps.get_app_configs()]
    folders = [f for f in folders if f.is_dir() and root in f.parents and ".venv" not in f.parts]
    return sorted({path for folder in folders for path in folder.rglob("*.html")})


def _skip_tag(text: str, i: int) -> int:
    """Past the {{ ... }} or {% ... %} that starts at i."""
    end = text.find("}}" if text.startswith("{{", i) else "%}", i + 2)
    return len(text) if end == -1 else end + 2


def bound_url_attributes(text: str) -> list[tuple[int, str, str]]:
    """(line, attribute, value) of every URL attribute in a template's source, the value read up
    to its closing quote with template tags taken whole (their own quotes do not end it)."""
    found = []
    for name in URL_ATTRIBUTES:
        start = 0
        while (at := text.find(f"{name}=", start)) != -1:
            start = at + len(name) + 1
            if at and (text[at - 1].isalnum() or text[at - 1] in "-_"):
                continue  # part of a longer name (data-href=, hx-headers= ...)
            quote = text[start] if start < len(text) else ""
            if quote not in "\"'":
                continue
            i = start + 1
            while i < len(text) and text[i] != quote:
                i = _skip_tag(text, i) if text.startswith(("{{", "{%"), i) else i + 1
            value = text[start + 1 : i]
            if "{{" in value or "{%" in value:
                found.append((text.count("\n", 0, at) + 1, name, value))
    return found


def unsafe_bindings(text: str) -> list[str]:
    problems = []
    for line, name, value in bound_url_attributes(text):
        if value.startswith(SAFE_PREFIXES):
            continue
        filtered = value.startswith("{{") and value.endswith("}}") and value.count("{{") == 1
        if filtered and value[2:-2].replace(" ", "").endswith("|safe_url"):
            continue
        problems.append(f"line {line}: {name}={value!r}")
    return problems


def test_the_walk_finds_the_templates_and_the_links_it_must_refuse():
    names = {p.name for p in project_templates()}
    assert {"_backports.html", "_readiness.html", "fixed_in.html", "base.html"} <= names
    # what the release pages held before: each one is caught
    for bad in (
        '<a href="{{ b.issue.html_url }}">x</a>',
        "<a href='{{ row.url }}'>x</a>",
        '<img src="{{ avatar }}">',
        '<form action="{{ url }}" hx-post="{{ url }}">',
        '<a href="?{{ query }}&amp;page=2">',
        '<a href="{{ url|safe_url }}{{ more }}">',
        '<a href="{% if x %}{{ url }}{% endif %}">',
    ):
        assert unsafe_bindings(bad), bad
    for good in (
        '<a href="{{ b.url|safe_url }}">',
        "<a href=\"{% url 'release-train' v %}?series={{ s|urlencode }}\">",
        '<a href="{% querystring page=2 %}">',
        '<a href="#main" data-href="{{ x }}">',
    ):
        assert unsafe_bindings(good) == [], good


@pytest.mark.parametrize("path", project_templates(), ids=lambda p: p.name)
def test_every_link_a_template_builds_from_data_goes_through_the_filter(path):
    assert unsafe_bindings(path.read_text()) == []


@pytest.mark.parametrize("path", project_templates(), ids=lambda p: p.name)
def test_no_template_holds_inline_script_event_handlers_or_style(path):
    """What the Content-Security-Policy refuses: inline scripts (JSON data blocks are data),
    on* handler attributes, htmx's hx-on (inline script too), style attributes and elements."""
    source = _without_comments(path.read_text().lower())
    assert inline_code(source) == []
    assert "javascript:" not in source and "hx-on" not in source


def _without_comments(source: str) -> str:
    """The template without its {# ... #} and {% comment %} ... {% endcomment %} comments."""
    for start, end in (("{#", "#}"), ("{% comment %}", "{% endcomment %}")):
        while (at := source.find(start)) != -1:
            close = source.find(end, at)
            source = source[:at] + (source[close + len(end) :] if close != -1 else "")
    return source


class _StartTags(HTMLParser):
    """(tag, attributes, line) of every start tag."""

    def __init__(self, html: str):
        super().__init__()
        self.tags: list[tuple[str, dict, int]] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, {k: v or "" for k, v in attrs}, self.getpos()[0]))


def inline_code(source: str) -> list[str]:
    problems = []
    for tag, attributes, line in _StartTags(source).tags:
        data_block = attributes.get("type") == "application/json"  # json_script: not run
        if tag == "script" and not attributes.get("src") and not data_block:
            problems.append(f"inline <script> at line {line}")
        if tag == "style":
            problems.append(f"<style> at line {line}")
        problems += [
            f"<{tag} {name}=...> at line {line}"
            for name in attributes
            if name.startswith("on") or name == "style"
        ]
    return problems


# --- behaviour: a javascript: html_url through the webhook, then every page that shows it ------

SECRET = "links-webhook-secret"
HOSTILE = {
    "issue": "javascript:alert(document.cookie)",
    "fix": "JaVaScRiPt:alert('fix')",
    "unlinked": "vbscript:msgbox('unlinked')",
    "comment": "data:text/html,<script>alert('comment')</script>",
}


def _deliver(client, event: str, payload: dict) -> None:
    body = json.dumps(payload).encode()
    headers = delivery_headers(event, body, SECRET)
    headers.pop("Content-Type")
    response = client.post(
        "/webhooks/github/", data=body, content_type="application/json", headers=headers
    )
    assert response.status_code == 202, response.content


@pytest.fixture
def hostile_train(client, settings, series, django_capture_on_commit_callbacks):
    """Issue ROCm/ROCm#4321 (a blocker, its backport to 7.9 nominated), fixed by PR #4402 merged
    into release/rocm-rel-7.9, PR #4403 merged there with no issue, a comment: every html_url
    a script URL, each delivered as GitHub would and processed by the webhook path."""
    settings.GITHUB_WEBHOOK_SECRET = SECRET
    with (
        github_for_settings(settings, token="links-token"),
        django_capture_on_commit_callbacks(execute=True),  # the processing, as after a commit
    ):
        issue = fixture_payload("issues__opened")
        issue["issue"]["html_url"] = HOSTILE["issue"]
        _deliver(client, "issues", issue)
        comment = fixture_payload("issue_comment__created")
        comment["issue"]["html_url"] = HOSTILE["issue"]
        comment["comment"]["html_url"] = HOSTILE["comment"]
        _deliver(client, "issue_comment", comment)
        for number, key, body in ((4402, "fix", None), (4403, "unlinked", "No issue.")):
            merged = fixture_payload("pull_request__closed_merged")
            pr = merged["pull_request"]
            pr["html_url"] = HOSTILE[key]
            pr["base"]["ref"] = "release/rocm-rel-7.9"
            pr["number"], pr["id"], merged["number"] = number, pr["id"] + number, number
            if body is not None:
                pr["body"], pr["title"] = body, "An unlinked release-branch merge"
            _deliver(client, "pull_request", merged)
    stored = Issue.objects.get(number=4321)
    # ingestion stores no URL but http(s) (triage.services.upsert.web_url) ...
    assert stored.html_url == "" and Comment.objects.get(issue=stored).html_url == ""
    # ... and the pages hold at their own depth too: rows stored before that rule, or by a
    # path that forgets it, carry the script URLs the deliveries carried
    for number, key in ((4321, "issue"), (4402, "fix"), (4403, "unlinked")):
        Issue.objects.filter(number=number).update(html_url=HOSTILE[key])
    Comment.objects.filter(issue=stored).update(html_url=HOSTILE["comment"])
    stored.refresh_from_db()
    target_set(issue=stored, series=series, version="7.9", flags=["blocker"])
    backport_nominate(issue=stored, series=series, version="7.9")
    return stored


def script_links(html: str) -> list[str]:
    """Link targets a browser would not treat as http(s) or our own path."""
    same_page = ("#", "?")  # a fragment or a query of the page itself
    targets = [v for _, attrs, _ in _StartTags(html).tags for k, v in attrs.items()
               if k in URL_ATTRIBUTES]  # fmt: skip
    return [t for t in targets if not (safe_link_url(t) or t.startswith(same_page))]


def test_a_script_html_url_from_a_webhook_is_no_link_on_any_page(
    hostile_train, release_manager_client
):
    pages = {
        "train": "/releases/7.9/?series=rocm",
        "notes": "/releases/7.9/notes/?series=rocm",
        "issue": "/issues/ROCm/ROCm/4321/",
        "fix": "/issues/ROCm/ROCm/4402/",
        "queue": "/triage/",
        "issues": "/issues/?state=all",
    }
    for name, url in pages.items():
        response = release_manager_client.get(url)
        assert response.status_code == 200, name
        html = response.content.decode()
        assert script_links(html) == [], name
        for hostile in HOSTILE.values():
            assert hostile.lower() not in html.lower().replace("&#x27;", "'"), (name, hostile)
    train = release_manager_client.get(pages["train"]).content.decode()
    for shown in ("ROCm/ROCm#4321", "ROCm/ROCm#4402", "ROCm/ROCm#4403"):
        assert shown in train  # as text, in backports, blockers, fixes and release merges
    # the backports table as htmx answers it after a nomination
    partial = release_manager_client.post(
        "/releases/7.9/backports/",
        {"series": "rocm", "issue": "ROCm/ROCm#4321"},
        headers={"HX-Request": "true"},
    )
    assert partial.status_code == 200
    assert "ROCm/ROCm#4321" in partial.content.decode()
    assert script_links(partial.content.decode()) == []


def test_exported_reports_and_notes_carry_no_script_link(hostile_train, release_manager_client):
    exported = {}
    for fmt in ("md", "html", "json", "notes"):
        out = StringIO()
        call_command("readiness_report", "7.9", "--format", fmt, stdout=out)
        exported[fmt] = out.getvalue()
    exported["download"] = release_manager_client.get(
        "/releases/7.9/notes/?series=rocm&download=1"
    ).content.decode()
    exported["api"] = release_manager_client.get("/api/releases/7.9/readiness/").content.decode()
    for name, text in exported.items():
        for scheme in ("javascript:", "vbscript:", "data:"):
            assert scheme not in text.lower(), (name, scheme)
    assert "ROCm/ROCm#4321" in exported["md"] and "[ROCm/ROCm#4321](" not in exported["md"]
    assert script_links(exported["html"]) == []
    report = json.loads(exported["api"])
    assert {row["url"] for row in report["fixed"]} == {""}
    assert {link["pull_request_url"] for link in report["fixed"][0]["chain"]} == {""}
