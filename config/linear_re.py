"""Regular expressions in time linear in the text: RE2 (google-re2) for everything we match.

Python's `re` backtracks: a pattern such as `(?P<fence>```)(?P<body>.*?)^(?P=fence)` rescans
the rest of a text for every place it could start, and an issue body of repeated unclosed
fences took it 22 s at GitHub's 65,536-character cap. RE2 runs every pattern in one pass over
the text, whatever the text, and refuses the constructs that cannot be run that way
(backreferences, look-around): those are written as code instead.

Every pattern in the service's own modules goes through here (a test walks the modules for
`import re`), with the names and flags of `re`:

    from config import linear_re
    GFX = linear_re.compile(r"\\bgfx(\\d{3,4})\\b", linear_re.I)
    GFX.search(text), GFX.finditer(text), linear_re.sub(r"\\s+", " ", text)

Differences from `re` that matter here: `\\w`, `\\d`, `\\s` and `\\b` are ASCII (a word next to
"é" still ends there); the end of the text is `\\z` (`re`'s `\\Z`, rewritten here); `$` without
MULTILINE matches only at the very end. Each compiled program is capped at MAX_PROGRAM_BYTES.
"""

from __future__ import annotations

import functools
import re as _re  # noqa: TID251 - only for its flag values, never to match

import re2

I = IGNORECASE = _re.IGNORECASE  # noqa: E741 - re's own name
M = MULTILINE = _re.MULTILINE
S = DOTALL = _re.DOTALL
_FLAG_LETTERS = ((I, "i"), (M, "m"), (S, "s"))
_SUPPORTED = I | M | S
MAX_PROGRAM_BYTES = 8 << 20
error = re2.error


def _translate(pattern: str | bytes) -> str | bytes:
    """`\\Z` (re) is `\\z` (RE2); an escaped backslash before a Z is left alone."""
    if isinstance(pattern, bytes):
        return _translate(pattern.decode("latin-1")).encode("latin-1")
    out, i = [], 0
    while i < len(pattern):
        if pattern[i] == "\\" and i + 1 < len(pattern):
            pair = pattern[i : i + 2]
            out.append("\\z" if pair == "\\Z" else pair)
            i += 2
        else:
            out.append(pattern[i])
            i += 1
    return "".join(out)


def _encodable(text: str | bytes) -> str | bytes:
    """The text as RE2 can read it (UTF-8): a lone surrogate, which JSON's "\\ud800" escape
    gives and UTF-8 cannot hold, becomes "?" (one character for one, so offsets stay)."""
    if isinstance(text, bytes) or text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


def _replacement(repl):
    """A replacement without group references as a function: RE2's wrapper would otherwise
    parse the template again for every match."""
    if isinstance(repl, str | bytes) and (b"\\" if isinstance(repl, bytes) else "\\") not in repl:
        return lambda match: repl
    return repl


class Pattern:
    """A compiled RE2 program with `re.Pattern`'s methods."""

    __slots__ = ("_program", "pattern", "flags")

    def __init__(self, program, pattern: str, flags: int):
        self._program, self.pattern, self.flags = program, pattern, flags

    @property
    def groups(self) -> int:
        return self._program.groups

    @property
    def groupindex(self) -> dict[str, int]:
        return self._program.groupindex

    def search(self, text: str, pos: int | None = None, endpos: int | None = None):
        return self._program.search(_encodable(text), pos, endpos)

    def match(self, text: str, pos: int | None = None, endpos: int | None = None):
        return self._program.match(_encodable(text), pos, endpos)

    def fullmatch(self, text: str, pos: int | None = None, endpos: int | None = None):
        return self._program.fullmatch(_encodable(text), pos, endpos)

    def finditer(self, text: str, pos: int | None = None, endpos: int | None = None):
        return self._program.finditer(_encodable(text), pos, endpos)

    def findall(self, text: str, pos: int | None = None, endpos: int | None = None) -> list:
        return self._program.findall(_encodable(text), pos, endpos)

    def sub(self, repl, text: str, count: int = 0) -> str:
        return self._program.sub(_replacement(repl), _encodable(text), count)

    def subn(self, repl, text: str, count: int = 0) -> tuple[str, int]:
        return self._program.subn(_replacement(repl), _encodable(text), count)

    def split(self, text: str, maxsplit: int = 0) -> list[str]:
        return self._program.split(_encodable(text), maxsplit)

    def __repr__(self) -> str:
        return f"linear_re.compile({self.pattern!r}, {self.flags!r})"


def _options() -> re2.Options:
    options = re2.Options()
    options.max_mem = MAX_PROGRAM_BYTES
    options.log_errors = False
    return options


def _program_text(pattern: str | bytes, flags: int) -> str | bytes:
    if flags & ~_SUPPORTED:
        raise ValueError(f"flags {flags & ~_SUPPORTED:#x} have no linear-time equivalent here")
    letters = "".join(letter for flag, letter in _FLAG_LETTERS if flags & flag)
    prefix = f"(?{letters})" if letters else ""
    if isinstance(pattern, bytes):
        return prefix.encode() + _translate(pattern)
    return prefix + _translate(pattern)


@functools.lru_cache(maxsize=1024)
def compile(pattern: str | bytes, flags: int = 0) -> Pattern:  # noqa: A001 - re's own name
    """`pattern` (str, or bytes to match bytes) as an RE2 program; raises `error` for what
    RE2 cannot run in linear time (a backreference, a look-around)."""
    return Pattern(re2.compile(_program_text(pattern, flags), _options()), pattern, flags)


class PatternSet:
    """Many patterns in one pass: `matching(text)` is the indices of those found anywhere in
    the text, in the order they were given (RE2::Set). For rule tables ("first rule that
    matches wins", "every GPU named"), one scan of the text instead of one per rule."""

    def __init__(self, patterns: list[str], flags: int = 0):
        self.patterns = list(patterns)
        self._set = re2.Set.SearchSet(_options())
        for pattern in self.patterns:
            self._set.Add(_program_text(pattern, flags))
        self._set.Compile()

    def matching(self, text: str) -> list[int]:
        if not self.patterns:
            return []
        return sorted(self._set.Match(_encodable(text)) or [])


def search(pattern: str, text: str, flags: int = 0):
    return compile(pattern, flags).search(text)


def match(pattern: str, text: str, flags: int = 0):
    return compile(pattern, flags).match(text)


def fullmatch(pattern: str, text: str, flags: int = 0):
    return compile(pattern, flags).fullmatch(text)


def finditer(pattern: str, text: str, flags: int = 0):
    return compile(pattern, flags).finditer(text)


def findall(pattern: str, text: str, flags: int = 0) -> list:
    return compile(pattern, flags).findall(text)


def sub(pattern: str, repl, text: str, count: int = 0, flags: int = 0) -> str:
    return compile(pattern, flags).sub(repl, text, count)


def split(pattern: str, text: str, maxsplit: int = 0, flags: int = 0) -> list[str]:
    return compile(pattern, flags).split(text, maxsplit)


def escape(text: str) -> str:
    return re2.escape(text)
