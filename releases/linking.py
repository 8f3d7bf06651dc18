"""Closing references in pull-request text, and release branches: pure functions, no database.

GitHub's closing keywords (close, closes, closed, fix, fixes, fixed, resolve, resolves,
resolved; any case, an optional colon) followed by `#N`, `OWNER/NAME#N` or a full issue URL
make a fix reference. Anything else that names an issue ("see #23", "Part of #7", "LOL #23")
is a mention and links nothing. References inside code (``` fences or `backticks`) are ignored,
as GitHub does.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from config import github_web, linear_re

KEYWORDS = (
    "close",
    "closes",
    "closed",
    "fix",
    "fixes",
    "fixed",
    "resolve",
    "resolves",
    "resolved",
)
_NAME = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})"
_REPO = r"[A-Za-z0-9_.-]{1,100}"
# RE2 has no look-around: what must not follow a number (a word character, or a slash after an
# issue URL) is captured instead, and such a match is dropped by closing_references; so is one
# with more than MAX_NUMBER_DIGITS digits. What must not come before the keyword is the one
# character the pattern takes before it.
MAX_NUMBER_DIGITS = 9
MAX_REFERENCES = 100  # closing references read per text (a description that closes more is noise)
_TARGET = (
    rf"(?:https?://(?P<url_host>[A-Za-z0-9.-]{{1,253}})/(?P<url_owner>{_NAME})/(?P<url_repo>{_REPO})"
    rf"/issues/(?P<url_number>\d+)(?P<url_after>[\w/])?"
    rf"|(?:(?P<owner>{_NAME})/(?P<repo>{_REPO}))?#(?P<number>\d+)(?P<after>\w)?)"
)
CLOSING_RE = linear_re.compile(
    rf"(?:^|[^\w/#-])(?P<keyword>{'|'.join(KEYWORDS)}):?[ \t]+{_TARGET}",
    linear_re.IGNORECASE,
)
_FENCE_RE = linear_re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", linear_re.DOTALL)
_CODE_SPAN_RE = linear_re.compile(r"`[^`\n]*`")
DEFAULT_RELEASE_BRANCH_PATTERNS = ("release/X.Y", "release/rocm-rel-X.Y")


@dataclass(frozen=True, order=True)
class FixReference:
    repository: str  # OWNER/NAME, lower-cased ("" = the pull request's own repository)
    number: int
    keyword: str  # lower-cased


def _strip_code(text: str) -> str:
    return _CODE_SPAN_RE.sub(" ", _FENCE_RE.sub(" ", text))


def closing_references(*texts: str) -> list[FixReference]:
    """The issues the texts close, sorted and without duplicates (first keyword kept)."""
    found: dict[tuple[str, int], FixReference] = {}
    for text in texts:
        matches = CLOSING_RE.finditer(_strip_code(text or ""))
        for match in itertools.islice(matches, MAX_REFERENCES):
            digits = match.group("url_number") or match.group("number")
            if match.group("url_after") or match.group("after") or len(digits) > MAX_NUMBER_DIGITS:
                continue
            if match.group("url_number") and not github_web.is_github_host(match.group("url_host")):
                continue  # an issue URL of another site (config.github_web: GitHub's hosts)
            if match.group("url_number"):
                repository = f"{match.group('url_owner')}/{match.group('url_repo')}"
                number = int(match.group("url_number"))
            else:
                repository = (
                    f"{match.group('owner')}/{match.group('repo')}" if match.group("owner") else ""
                )
                number = int(match.group("number"))
            key = (repository.lower(), number)
            if number and key not in found:
                found[key] = FixReference(key[0], number, match.group("keyword").lower())
    return sorted(found.values())


def resolve_repository(reference: FixReference, own_repository: str) -> str:
    return reference.repository or own_repository.lower()


def _pattern_re(pattern: str) -> linear_re.Pattern:
    """'release/rocm-rel-X.Y' -> a regex with the major and minor as groups ('.x' tails allowed)."""
    escaped = (
        linear_re.escape(pattern)
        .replace("X", r"(?P<major>\d{1,4})")
        .replace("Y", r"(?P<minor>\d{1,4})")
    )
    return linear_re.compile(rf"^{escaped}(?:\.(?:\d{{1,4}}|x))?$")


def release_branch_version(branch: str, patterns=None) -> str:
    """'release/rocm-rel-7.4' -> '7.4'; '' when the branch matches no pattern."""
    for pattern in patterns or DEFAULT_RELEASE_BRANCH_PATTERNS:
        match = _pattern_re(pattern).match(branch or "")
        if match:
            return f"{int(match.group('major'))}.{int(match.group('minor'))}"
    return ""
