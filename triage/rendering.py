"""Issue and comment text (untrusted GitHub-flavoured Markdown) to sanitized HTML.

Markdown-it renders with raw HTML allowed (GitHub allows <details>, <sub>, <img> ... in bodies),
then nh3 keeps only a safe set of tags and attributes. Pathological input is bounded: text above
MAX_MARKDOWN_CHARS is truncated with a note (GitHub itself caps a body at 65,536 characters), a
body with more raw HTML tags than MAX_RAW_HTML_TAGS is rendered with its HTML escaped (deeply
nested tags make any HTML5 parser slow), and a renderer that still fails falls back to the text
escaped inside <pre>.
"""

import logging

import nh3
from django.utils.html import escape
from markdown_it import MarkdownIt
from mdit_py_plugins.tasklists import tasklists_plugin

from triage.markdown_linkify import use_bounded_linkify

logger = logging.getLogger(__name__)

MAX_MARKDOWN_CHARS = 256 * 1024
MAX_RAW_HTML_TAGS = 2000
TRUNCATION_NOTE = "\n\n*[Text truncated: only the first {limit:,} characters are shown.]*\n"

ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "caption", "code", "dd", "del", "details", "div", "dl",
    "dt", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "input", "ins", "kbd", "li",
    "mark", "ol", "p", "pre", "q", "s", "samp", "small", "span", "strike", "strong", "sub",
    "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "tt", "u", "ul", "var",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title", "width", "height"},
    "ol": {"start"},
    "td": {"align", "colspan", "rowspan"},
    "th": {"align", "colspan", "rowspan"},
    "details": {"open"},
    "abbr": {"title"},
    "input": {"checked"},
}
# Task-list checkboxes: only ever a disabled checkbox.
FORCED_ATTRIBUTES = {"input": {"type": "checkbox", "disabled": "disabled"}}
URL_SCHEMES = {"http", "https", "mailto"}
IMAGE_SCHEMES = ("http://", "https://")
LINK_REL = "nofollow noopener noreferrer"


def _build_markdown(*, html: bool) -> MarkdownIt:
    md = MarkdownIt("gfm-like", {"html": html, "linkify": True})
    return md.use(tasklists_plugin).use(use_bounded_linkify)


_MARKDOWN = _build_markdown(html=True)
_MARKDOWN_NO_HTML = _build_markdown(html=False)


def _filter_attribute(tag: str, attribute: str, value: str) -> str | None:
    if tag == "img" and attribute == "src":
        return value if value.strip().lower().startswith(IMAGE_SCHEMES) else None
    return value


_CLEANER = nh3.Cleaner(
    tags=ALLOWED_TAGS,
    clean_content_tags={"script", "style"},
    attributes=ALLOWED_ATTRIBUTES,
    attribute_filter=_filter_attribute,
    set_tag_attribute_values=FORCED_ATTRIBUTES,
    link_rel=LINK_REL,
    url_schemes=URL_SCHEMES,
    url_relative="deny",
    strip_comments=True,
)


def _raw_html_tag_count(tokens) -> int:
    count = 0
    for token in tokens:
        if token.type in ("html_block", "html_inline"):
            count += token.content.count("<")
        if token.children:
            count += _raw_html_tag_count(token.children)
    return count


def _render_unsafe(text: str) -> str:
    env: dict = {}
    tokens = _MARKDOWN.parse(text, env)
    if _raw_html_tag_count(tokens) > MAX_RAW_HTML_TAGS:
        return _MARKDOWN_NO_HTML.render(text)
    return _MARKDOWN.renderer.render(tokens, _MARKDOWN.options, env)


def render_markdown(text: str | None) -> str:
    """Sanitized HTML for untrusted Markdown; safe to insert into a page as is."""
    if not text:
        return ""
    if not text.isascii():  # a lone surrogate (nh3 takes UTF-8 only) becomes "?"
        text = text.encode("utf-8", "replace").decode("utf-8")
    if len(text) > MAX_MARKDOWN_CHARS:
        text = text[:MAX_MARKDOWN_CHARS] + TRUNCATION_NOTE.format(limit=MAX_MARKDOWN_CHARS)
    try:
        html = _render_unsafe(text)
    except (RecursionError, ValueError, IndexError) as exc:
        logger.warning("markdown rendering failed, showing the text escaped: %r", exc)
        html = f"<pre>{escape(text)}</pre>"
    return _CLEANER.clean(html)
