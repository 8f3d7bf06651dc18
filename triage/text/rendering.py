"""Issue and comment text (untrusted GitHub-flavoured Markdown) to sanitized HTML.

Markdown-it renders with raw HTML allowed (GitHub allows <details>, <sub>, <img> ... in bodies),
then nh3 keeps only a safe set of tags and attributes. Pathological input is bounded: text above
MAX_MARKDOWN_CHARS is truncated with a note (GitHub itself caps a body at 65,536 characters), a
body with more raw HTML tags than MAX_RAW_HTML_TAGS is rendered with its HTML escaped (deeply
nested tags make any HTML5 parser slow), and a renderer that still fails falls back to the text
escaped inside <pre>.

Images never load from the author's host (it would learn the address of every maintainer who
opens the page): with an image proxy configured (triage.views.image_proxy) an <img> goes through it,
otherwise it becomes a link, "image: alt text", to the image's URL.
"""

import hashlib
import html as html_lib
import logging
from urllib.parse import unquote, urlsplit

import nh3
from django.core.cache import cache
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import mark_safe
from markdown_it import MarkdownIt
from mdit_py_plugins.tasklists import tasklists_plugin

from triage.text.markdown_linkify import use_bounded_linkify
from triage.text.safe_links import safe_link_url
from triage.views.image_proxy import image_proxy_configured, proxied_image_url, proxy_may_fetch

logger = logging.getLogger(__name__)

# GitHub's own cap on a body or a comment: only forged or foreign text is longer, and rendering
# is linear but slow (about 0.5 s for the worst 65,536 characters, benchmarks/untrusted_text.py).
MAX_MARKDOWN_CHARS = 65_536
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
LINK_REL = "nofollow noopener noreferrer"
IMAGE_LINK_CLASS = "external-image"


def _build_markdown(*, html: bool) -> MarkdownIt:
    md = MarkdownIt("gfm-like", {"html": html, "linkify": True})
    return md.use(tasklists_plugin).use(use_bounded_linkify)


_MARKDOWN = _build_markdown(html=True)
_MARKDOWN_NO_HTML = _build_markdown(html=False)


def _filter_attribute(tag: str, attribute: str, value: str) -> str | None:
    if tag == "img" and attribute == "src":
        return safe_link_url(value) or None
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
    return _images_without_foreign_hosts(_CLEANER.clean(html))


# A thread's page renders in bounded time and size, whatever anyone posted (GitHub lets anyone
# comment 65,536 characters, fifteen times): each comment shows its first COMMENT_SHOWN_CHARS,
# and once the page has rendered PAGE_RENDER_CHARS of comments the later ones show their first
# COMMENT_TAIL_CHARS; the rest of a comment is one click away (its own page). A rendering is
# cached by the text's digest, so a comment is rendered once per edit, not once per view.
COMMENT_SHOWN_CHARS = 8_000
COMMENT_TAIL_CHARS = 1_500
PAGE_RENDER_CHARS = 60_000
RENDER_CACHE_SECONDS = 24 * 3600


def render_markdown_cached(text: str | None) -> str:
    """render_markdown, kept in the cache under the text's digest."""
    if not text:
        return ""
    key = "markdown:" + hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()
    found = cache.get(key)
    if found is None:
        found = render_markdown(text)
        cache.set(key, found, RENDER_CACHE_SECONDS)
    return found


def thread_folded(texts: list[str]) -> list[tuple[str, int]]:
    """(sanitized HTML of what a thread's page shows of each text, characters left out of it)."""
    shown, rendered = [], 0
    for text in texts:
        text = text or ""
        limit = COMMENT_SHOWN_CHARS if rendered < PAGE_RENDER_CHARS else COMMENT_TAIL_CHARS
        part = _folded(text, limit)
        rendered += len(part)
        # sanitized by render_markdown (nh3's allow-list): safe to insert as it is
        html = mark_safe(render_markdown_cached(part))  # noqa: S308
        shown.append((html, len(text) - len(part)))
    return shown


def _folded(text: str, limit: int) -> str:
    """The text's first `limit` characters, cut at a line's end where one is near."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", limit // 2, limit)
    part = text[: cut if cut > 0 else limit]
    if part.count("```") % 2:  # an open code fence would swallow the note after it
        part += "\n```"
    return part


# nh3's output is well-formed and normalised: every attribute is name="value" with no '"' in the
# value, and "<" and ">" appear only as tag delimiters (escaped in text and in values). So each
# "<img" found is an image tag, the links open before it are counted with str.count, and no
# regular expression is needed: one linear pass at C speed between the images.
_KEPT_IMAGE_ATTRIBUTES = ("alt", "title", "width", "height")


def _tag_end(html: str, start: int) -> int:
    """The index just past the ">" that closes the tag opened at `start` (quotes respected)."""
    position = start + 1
    while True:
        close, quote = html.find(">", position), html.find('"', position)
        if quote == -1 or close < quote:
            return len(html) if close == -1 else close + 1
        position = html.find('"', quote + 1) + 1  # past the value's closing quote
        if position == 0:
            return len(html)


def _attributes(tag: str) -> dict[str, str]:
    found, position = {}, 0
    while (equals := tag.find('="', position)) != -1:
        name = tag[tag.rfind(" ", 0, equals) + 1 : equals]
        end = tag.find('"', equals + 2)
        end = len(tag) if end == -1 else end
        found[name] = html_lib.unescape(tag[equals + 2 : end])
        position = end + 1
    return found


def _links_opened(html: str, start: int, end: int) -> int:
    opened = html.count("<a ", start, end) + html.count("<a>", start, end)
    return opened - html.count("</a>", start, end)


def _images_without_foreign_hosts(html: str) -> str:
    if "<img" not in html:
        return html
    proxy = image_proxy_configured()
    out, depth, position = [], 0, 0  # depth: open <a> elements
    while (start := html.find("<img", position)) != -1:
        end = _tag_end(html, start)
        depth = max(depth + _links_opened(html, position, start), 0)
        if html[start + 4 : start + 5] in (" ", ">"):  # not a longer name (<imgx>)
            out.append(html[position:start])
            out.append(_image(_attributes(html[start:end]), proxy=proxy, in_link=depth > 0))
        else:
            out.append(html[position:end])
        position = end
    out.append(html[position:])
    return "".join(out)


def _image(attributes: dict[str, str], *, proxy: bool, in_link: bool) -> str:
    src = safe_link_url(attributes.get("src", ""))
    if src and proxy and proxy_may_fetch(src):
        kept = format_html_join(
            "", ' {}="{}"', ((n, attributes[n]) for n in _KEPT_IMAGE_ATTRIBUTES if n in attributes)
        )
        return format_html('<img src="{}"{}>', proxied_image_url(src), kept)
    text = "image: " + (attributes.get("alt") or attributes.get("title") or _file_name(src))
    if not src or in_link:  # no nested links: the text inside the link it is in
        return format_html('<span class="{}">{}</span>', IMAGE_LINK_CLASS, text)
    return format_html(
        '<a href="{}" rel="{}" class="{}">{}</a>', src, LINK_REL, IMAGE_LINK_CLASS, text
    )


def _file_name(url: str) -> str:
    name = unquote(urlsplit(url).path.rstrip("/").rsplit("/", 1)[-1]) if url else ""
    return name or "no description"
