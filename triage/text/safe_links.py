"""The one check of every link target that comes from data (GitHub's html_url, X post URLs,
Markdown images, URLs our selectors build): what a page may put in href or src.

Allowed: absolute http(s) URLs with a host, and our own site-relative paths ("/issues/...").
Refused (""): every other scheme (javascript:, data:, vbscript: ...), scheme-relative "//host",
anything with a backslash (browsers read it as a slash: "/\\host" is another host), and any
control, format or space character anywhere (browsers drop tabs and newlines inside a URL, so
"java\\tscript:" and "/\\t/host" would turn into what the check refused). Text from a template
is entity-escaped, so "jav&#x09;ascript:" reaches the browser as it reads here: no scheme.
"""

from __future__ import annotations

import unicodedata
from urllib.parse import urlsplit

MAX_URL_CHARS = 2048
ABSOLUTE_PREFIXES = ("http://", "https://")


def _has_unsafe_character(url: str) -> bool:
    if "\\" in url:
        return True
    if url.isascii():  # control characters and DEL are not printable; space is
        return not url.isprintable() or " " in url
    return any(unicodedata.category(c)[0] in "CZ" for c in url)


def safe_link_url(url) -> str:
    """The URL as given when it is safe to link to, else ""."""
    if not isinstance(url, str) or not url or len(url) > MAX_URL_CHARS:
        return ""
    if _has_unsafe_character(url):
        return ""
    if url.lower().startswith(ABSOLUTE_PREFIXES):
        try:
            host = urlsplit(url).hostname
        except ValueError:  # an invalid port or IPv6 literal
            return ""
        return url if host else ""
    if url.startswith("/") and not url.startswith("//"):
        return url
    return ""


def is_external(url: str) -> bool:
    """An absolute URL (another site): links to it open without our referrer or opener."""
    return url.lower().startswith(ABSOLUTE_PREFIXES)
