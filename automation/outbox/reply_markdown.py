"""Other people's words in the bot's replies, made inert: GitHub renders a reply as Markdown, so
text a commenter wrote must not become the bot's mentions, team pings, links, images or HTML.

- `in_code_span(text)`: for a reply template's `` `{{ line }}` ``: the text can never close the
  span (its backticks become ˋ, U+02CB), has no line breaks, and is cut to MAX_QUOTED characters.
  Inside a code span GitHub pings no one and links nothing.
- `inert(text)`: for prose: every ASCII punctuation mark Markdown reads is backslash-escaped
  (links, images, emphasis, HTML, tables), an `@` cannot start a mention (a word joiner, U+2060,
  follows it), and a URL's scheme or `www.` cannot be autolinked.
- `login(text)`: a GitHub login as GitHub allows one (letters, digits, single hyphens), else "".
"""

from __future__ import annotations

from config import linear_re

MAX_QUOTED = 200
MAX_INERT = 1000
BACKTICK_LOOKALIKE = "\u02cb"
WORD_JOINER = "\u2060"
PUNCTUATION = linear_re.compile(r"([\\`*_{}\[\]()<>#+!|~-])")
# anywhere, not only at a word boundary: after "_" (a word character) linkify still finds a URL
AUTOLINK = linear_re.compile(r"(?i)(https?|ftp|mailto)(:)|(www)(\.)")
LOGIN = linear_re.compile(r"[A-Za-z0-9](?:-?[A-Za-z0-9]){0,38}")


def in_code_span(text: str) -> str:
    text = " ".join(str(text or "").split())[:MAX_QUOTED]
    return text.replace("`", BACKTICK_LOOKALIKE) or " "


def inert(text: str) -> str:
    text = " ".join(str(text or "").split())[:MAX_INERT]
    text = PUNCTUATION.sub(r"\\\1", text)
    text = text.replace("@", "@" + WORD_JOINER)
    return AUTOLINK.sub(_unlinked, text)


def _unlinked(match) -> str:
    return (match.group(1) or match.group(3)) + WORD_JOINER + (match.group(2) or match.group(4))


def login(text: str) -> str:
    text = str(text or "")
    return text if LOGIN.fullmatch(text) else ""
