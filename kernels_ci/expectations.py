"""The failure a report expects, read from the error text it quotes, and whether a run's failure
is that one. Pure functions: no database, no execution.

A report quotes what it saw: a traceback's last exception (type and message; what Triton's
interpreter wrapped is unwrapped), a compiler's diagnostics (`error: ...`, `LLVM ERROR: ...`, an
MLIR verifier's `'tt.atomic_rmw' op ...`, `PassManager::run failed`), an assertion. Each is
normalized as run signatures are (paths, addresses, hashes and numbers masked), so a line and
column or a pointer that differ between the reporter's machine and a runner still match.

A run's failure matches when it has the quoted exception type and at least half the words of
the quoted message appear in what the run printed; with only diagnostics quoted, when one
quoted line has 60 % of its words in one line the run printed. Words are compared, not whole
strings: releases reword messages a little, and a report's copy is often cut short.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, field, replace

from classifiers.markdown_blocks import MAX_BLOCKS, code_blocks
from config import linear_re
from kernels_ci.signatures import (
    Observation,
    _last_traceback,
    normalize_message,
    unwrap,
)

EXCEPTION_LINE_RE = linear_re.compile(
    r"^\s*(?:[A-Za-z_][\w]*\.)*(?P<type>[A-Za-z_]\w*(?:Error|Exception|Exit)):\s*(?P<msg>.*)$",
    linear_re.M,
)
DIAGNOSTIC_RE = linear_re.compile(
    r"^.*(?:\berror: |LLVM ERROR:|PassManager::run failed|Assertion [`'].*' failed"
    r"|'[a-z_]+\.[a-z_.]+' op |\bUnsupported\b|\bnot supported\b).*$",
    linear_re.M,
)
WORD_RE = linear_re.compile(r"[A-Za-z_][A-Za-z0-9_]+")
STOP_WORDS = frozenset(
    {
        *("the", "a", "an", "of", "to", "in", "is", "are", "was", "be", "for", "on", "at", "by"),
        *("with", "and", "or", "not", "no", "it", "this", "that", "from", "as"),
        *("error", "errors", "exception"),
    }
)
MAX_TEXT = 256 * 1024
MAX_LINES = 6
MESSAGE_SHARE = 0.5
LINE_SHARE = 0.6
COMPILE_TYPES = ("CompilationError", "MLIRCompilationError")


@dataclass
class ExpectedError:
    """What the report quotes, normalized; `quoted` as it wrote it (for the page)."""

    exc_type: str = ""
    message: str = ""
    lines: list[str] = field(default_factory=list)
    quoted: str = ""
    # the other errors the report quotes for its script (another block, another traceback):
    # a failure that is any of them is the reported one too
    others: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict | None) -> ExpectedError | None:
        if not data:
            return None
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})

    def quoted_errors(self) -> list[ExpectedError]:
        """This error and the others quoted, each on its own."""
        return [replace(self, others=[]), *(ExpectedError.from_dict(o) for o in self.others)]

    @property
    def signature(self) -> str:
        """As a run's signature reads: `Type: message`, or the first quoted line."""
        if self.exc_type:
            return f"{self.exc_type}: {self.message}" if self.message else self.exc_type
        return self.lines[0] if self.lines else ""


MAX_OTHERS = 4


def expected_error(text: str) -> ExpectedError | None:
    """The error the report quotes (its prose and output blocks, not the script), or None: the
    last one, and in `others` those quoted in its other code blocks."""
    found = _quoted(text)
    if found is None:
        return None
    seen = {found.signature}
    for block in code_blocks((text or "")[-MAX_TEXT:])[:MAX_BLOCKS]:
        other = _quoted(block.body)
        if other is not None and other.signature not in seen and len(found.others) < MAX_OTHERS:
            seen.add(other.signature)
            found.others.append(other.as_dict())
    return found


def _quoted(text: str) -> ExpectedError | None:
    text = (text or "")[-MAX_TEXT:]
    found = ExpectedError()
    parsed = _last_traceback(text)
    if parsed:
        _, exc_type, message = parsed
        if exc_type.endswith(COMPILE_TYPES):
            message = _compile_message(text)
        found.exc_type, found.message = _short(exc_type, message)
        found.quoted = f"{exc_type}: {message}"[:300]
    else:
        last = None
        for last in itertools.islice(EXCEPTION_LINE_RE.finditer(text), 200):  # noqa: B007
            pass
        if last is not None:
            found.exc_type, found.message = _short(last.group("type"), last.group("msg"))
            found.quoted = last.group(0).strip()[:300]
    diagnostics = itertools.islice(DIAGNOSTIC_RE.finditer(text), 200)
    for line in dict.fromkeys(normalize_message(m.group(0)) for m in diagnostics):
        if len(found.lines) < MAX_LINES and _words(line):
            found.lines.append(line)
    if not found.quoted and found.lines:
        found.quoted = found.lines[0]
    return found if (found.exc_type or found.lines) else None


def _compile_message(text: str) -> str:
    """A quoted CompilationError's message: the last line of what follows it, up to the end of
    its block (a blank line or a code fence), not the prose after the block."""
    start = text.rfind("CompilationError")
    lines = text[start:].splitlines()[1:]
    block = []
    for line in lines:
        if not line.strip() or line.lstrip().startswith(("```", "~~~")):
            break
        block.append(line.strip())
    return block[-1] if block else ""


def _short(exc_type: str, message: str) -> tuple[str, str]:
    exc_type, message = unwrap(exc_type, message)
    return exc_type.rsplit(".", 1)[-1], normalize_message(message)


def _words(text: str) -> set[str]:
    return {w.lower() for w in WORD_RE.findall(text) if w.lower() not in STOP_WORDS}


def _share(expected: str, seen: set[str]) -> float:
    words = _words(expected)
    return len(words & seen) / len(words) if words else 1.0


def _same_type(expected: str, observed: str) -> bool:
    if expected == observed:
        return True
    return expected.endswith(COMPILE_TYPES) and observed.endswith(COMPILE_TYPES)


def matched(expected: ExpectedError, observation: Observation) -> ExpectedError | None:
    """Which of the errors the report quotes the run's failure is (None: none of them)."""
    return next((e for e in expected.quoted_errors() if matches(e, observation)), None)


def matches(expected: ExpectedError, observation: Observation) -> bool:
    """Whether the run's failure is the one the report quotes (this one, not its others)."""
    if observation.kind in ("pass", "infra"):
        return False
    printed = [observation.message, observation.signature, *observation.error_lines]
    seen = _words(" ".join(printed))
    if expected.exc_type:
        observed_type = observation.message.partition(":")[0].rsplit(".", 1)[-1].strip()
        if not _same_type(expected.exc_type, observed_type):
            return False
        if expected.message and _share(expected.message, seen) < MESSAGE_SHARE:
            return any(_line_matches(line, printed) for line in expected.lines)
        return True
    return any(_line_matches(line, printed) for line in expected.lines)


def _line_matches(line: str, printed: list[str]) -> bool:
    return any(_share(line, _words(other)) >= LINE_SHARE for other in printed if other)
