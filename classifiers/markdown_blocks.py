"""Fenced code blocks of Markdown as CommonMark (and GitHub) reads them, in one pass.

An opening line of three or more backticks (with an info string without backticks) or tildes,
indented up to three spaces, opens a block; it closes at a line of the same character, at least
as long, with nothing after it; unclosed, it runs to the end (a tab is four columns of
indentation: it makes no fence). Content lines lose up to as many leading spaces as the opening
line had. Blocks are found on the text's UTF-8 bytes: one RE2 pass for the opening lines and one
per block for its end (the opening pattern has no groups: RE2 finds where a match is fastest when
it need not say where its parts are; the line is taken apart in Python), so the time is linear in
the text whatever it holds (tests/security/test_linear_patterns.py compares the blocks found
with markdown-it's on generated texts). Fences inside <details> count, as GitHub shows them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from config import linear_re

MAX_BLOCKS = 100
MAX_FENCE_REPEAT = 1000  # RE2's limit on a counted repetition
CONTEXT_CHARS = 300  # of the text before a block, kept with it
FENCE_OPEN = linear_re.compile(rb"^ {0,3}(?:`{3,}[^`\n]*|~{3,}[^\n]*)$", linear_re.M)


@dataclass
class CodeBlock:
    info: str
    body: str
    index: int
    context: str = ""  # the text just before the block
    span: tuple[int, int] = (0, 0)  # the whole block, fences included, in the text's UTF-8

    @property
    def lang(self) -> str:
        return (self.info.split() or [""])[0].lower().strip("{}.")


@lru_cache(maxsize=64)
def _fence_close(char: bytes, length: int):
    return linear_re.compile(rb"^ {0,3}" + char + rb"{%d,}[ \t]*$" % length, linear_re.M)


def _closing_line(data: bytes, start: int, char: bytes, length: int) -> tuple[int, int] | None:
    """(start, end) of the first line at or after `start` that closes a fence of `length`
    `char`s, or None."""
    if length <= MAX_FENCE_REPEAT:
        found = _fence_close(char, length).search(data, start)
        return found.span() if found else None
    run = char * length  # a fence longer than RE2 counts: find its runs, then check the line
    while (at := data.find(run, start)) >= 0:
        line_start = data.rfind(b"\n", 0, at) + 1
        line_end = data.find(b"\n", at)
        line_end = len(data) if line_end < 0 else line_end
        before, after = data[line_start:at], data[at:line_end].lstrip(char)
        if len(before) <= 3 and not before.strip(b" ") and not after.strip(b" \t"):
            return line_start, line_end
        start = line_end
    return None


def _fences(data: bytes, limit: int):
    """(indent, info, body start, body end, block start, block end) of each fenced block."""
    position = 0
    for _ in range(limit):
        opening = FENCE_OPEN.search(data, position)
        if opening is None:
            return
        line = data[opening.start() : opening.end()]
        fenced = line.lstrip(b" ")
        indent = line[: len(line) - len(fenced)]
        fence = fenced[: len(fenced) - len(fenced.lstrip(fenced[:1]))]
        info = fenced[len(fence) :].strip(b" \t")
        body_start = min(opening.end() + 1, len(data))
        closing = _closing_line(data, body_start, fence[:1], len(fence))
        body_end, block_end = (closing[0], closing[1]) if closing else (len(data), len(data))
        yield indent, info, body_start, body_end, opening.start(), block_end
        if closing is None:
            return  # an unclosed fence runs to the end
        position = block_end + 1


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _utf8(text: str) -> bytes:
    return text.replace("\r\n", "\n").encode("utf-8", "replace")


def _dedent(body: str, indent: int) -> str:
    if not indent:
        return body
    return "\n".join(
        line[min(indent, len(line) - len(line.lstrip(" "))) :] for line in body.split("\n")
    )


def code_blocks(text: str, *, limit: int = MAX_BLOCKS) -> list[CodeBlock]:
    """The first `limit` fenced code blocks of a Markdown text."""
    data = _utf8(text)
    blocks = []
    for index, (indent, info, start, end, block_start, block_end) in enumerate(
        _fences(data, limit)
    ):
        before = _decode(data[max(0, block_start - 4 * CONTEXT_CHARS) : block_start])
        blocks.append(
            CodeBlock(
                info=_decode(info).strip(),
                body=_dedent(_decode(data[start:end]), len(indent)),
                index=index,
                context=before[-CONTEXT_CHARS:],
                span=(block_start, block_end),
            )
        )
    return blocks


def text_without(text: str, blocks: list[CodeBlock], *, between: str = "") -> str:
    """The text with these blocks (of code_blocks(text)) cut out, `between` in their place."""
    return text_without_spans(text, [block.span for block in blocks], between=between)


def text_without_spans(text: str, spans: list[tuple[int, int]], *, between: str = "") -> str:
    """The text with these UTF-8 byte spans (a block's `span`, or wider) cut out; overlapping
    spans are cut once."""
    data, parts, position = _utf8(text), [], 0
    for start, end in sorted(spans):
        if start >= position:
            parts.append(data[position:start])
        position = max(position, end)
    parts.append(data[position:])
    return between.join(_decode(part) for part in parts)
