"""markdown-it's inline rule for bare links (`https://...` in text), with bounded work per link.

markdown-it-py's own rule looks for the scheme with a pattern searched over all the text
pending before the `://` and hands linkify-it the whole rest of the source: for a text of many
`a://b:` that is quadratic (an issue body of 65,536 such characters held a web worker for more
than 5 s; benchmarks/untrusted_text.py). Here the scheme is read back from the `://` at most
MAX_SCHEME_CHARS, and linkify-it sees at most MAX_URL_CHARS of what follows, so each link costs
the same whatever the length of the text. What is linked is the same as before, except a URL
longer than MAX_URL_CHARS, linked to its first MAX_URL_CHARS characters.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

MAX_SCHEME_CHARS = 32  # RFC 3986 sets no limit; registered schemes are far shorter
MAX_URL_CHARS = 2048
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-")


def _scheme_before(pending: str) -> str:
    """The scheme that ends the pending text (`(?:^|[^a-z0-9.+-])([a-z][a-z0-9.+-]*)$`,
    case-insensitive), or '' if there is none or it is longer than MAX_SCHEME_CHARS."""
    start = len(pending)
    while start > 0 and pending[start - 1] in _SCHEME_CHARS:
        start -= 1
        if len(pending) - start > MAX_SCHEME_CHARS:
            return ""
    scheme = pending[start:]
    return scheme if scheme[:1].isascii() and scheme[:1].isalpha() else ""


def linkify(state: StateInline, silent: bool) -> bool:
    """markdown_it.rules_inline.linkify.linkify, with the scheme and the URL bounded."""
    if not state.md.options.linkify or state.linkLevel > 0:
        return False
    if not state.md.linkify:
        raise ModuleNotFoundError("Linkify enabled but not installed.")
    pos = state.pos
    if pos + 3 > state.posMax or state.src[pos : pos + 3] != "://":
        return False
    proto = _scheme_before(state.pending)
    if not proto:
        return False
    window = state.src[pos - len(proto) : pos + MAX_URL_CHARS]
    link = state.md.linkify.match_at_start(window)
    if not link:
        return False
    url: str = link.url.rstrip("*")  # a '*' at the end belongs to emphasis
    full_url = state.md.normalizeLink(url)
    if not state.md.validateLink(full_url):
        return False
    if not silent:
        state.pending = state.pending[: -len(proto)]
        token = state.push("link_open", "a", 1)
        token.attrs = {"href": full_url}
        token.markup, token.info = "linkify", "auto"
        token = state.push("text", "", 0)
        token.content = state.md.normalizeLinkText(url)
        token = state.push("link_close", "a", -1)
        token.markup, token.info = "linkify", "auto"
    state.pos += len(url) - len(proto)
    return True


def use_bounded_linkify(md: MarkdownIt) -> MarkdownIt:
    """Replace markdown-it's inline linkify rule by this one (a markdown-it plugin)."""
    md.inline.ruler.at("linkify", linkify)
    return md
