"""What a CPU backend changes in a reproducer before running it, by its syntax tree, not its text.

A script written for a GPU names its device in many ways: `device="cuda"`, `torch.device("cuda:0")`,
`.to("cuda")`, `.cuda()`, a `DEVICE = "cuda"` passed on, or `"cuda"` as a positional argument of
the reporter's own function (`test_histogram(8, 8, "cuda", "int32")`). Every string constant that
is exactly a GPU device (`cuda`, `cuda:N`, `hip`, `hip:N`) becomes `"cpu"` and every argument-less
`.cuda()` call `.cpu()`, wherever it stands. A compile-only backend also neutralises the script's
own `TRITON_INTERPRET` (an `os.environ` key it sets), which would otherwise run the kernel in the
interpreter instead of compiling it.

Edits keep every line where it was (a traceback's line numbers are the reporter's), and each is
listed for the run's notes. The script is untrusted: it is parsed, never run, here; one that does
not parse (or is past PARSE_BYTES) gets the same device rewrite by bounded, linear patterns.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from config import linear_re

# the longest issue body GitHub takes (65,536 characters) in UTF-8: parsing it takes at most
# about 0.6 s here (benchmarks/untrusted_text.py), before a run of seconds in the sandbox
PARSE_BYTES = 4 * 65_536
DEVICE = linear_re.compile(r"^(?:cuda|hip)(?::\d{1,3})?$")
INTERPRET = "TRITON_INTERPRET"
INTERPRET_OFF = "TRITON_INTERPRET_SET_BY_THE_SCRIPT"  # a name Triton never reads
# The fallback: a device string in either quotes ('cuda:0' or "hip"); RE2 has no backreference
# to say "the same quote", so each quote is an alternative of its own.
_QUOTED = r"""(?:'(?:cuda|hip)(?::\d+)?'|"(?:cuda|hip)(?::\d+)?")"""
TEXT_REWRITES = [
    (linear_re.compile(_QUOTED), '"cpu"'),
    (linear_re.compile(r"\.cuda\(\s*\)"), ".cpu()"),
]


@dataclass(frozen=True)
class Edit:
    line: int  # 1-based
    start: int  # UTF-8 byte offsets in the line, as the syntax tree gives them
    end: int
    replacement: str
    what: str


def rewrite_for_cpu(script: str, *, keep_interpret: bool = True) -> tuple[str, list[str]]:
    """The script with its GPU devices on the CPU (and, unless `keep_interpret`, its own
    TRITON_INTERPRET neutralised), and one note per kind of edit, naming the lines."""
    tree = _parsed(script)
    if tree is None:
        total = 0
        for pattern, replacement in TEXT_REWRITES:
            script, count = pattern.subn(replacement, script)
            total += count
        notes = [f"{total} GPU device reference(s) rewritten to cpu (by text)"] if total else []
        return script, notes
    edits = list(_edits(tree, keep_interpret))
    return _applied(script, edits), _notes(edits)


def _parsed(script: str) -> ast.Module | None:
    if len(script.encode("utf-8", "surrogatepass")) > PARSE_BYTES:
        return None
    try:
        return ast.parse(script)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _edits(tree: ast.Module, keep_interpret: bool):
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            single = node.lineno == node.end_lineno
            if single and DEVICE.match(node.value):
                yield Edit(
                    node.lineno, node.col_offset, node.end_col_offset, '"cpu"', f'"{node.value}"'
                )
            elif single and not keep_interpret and node.value == INTERPRET:
                yield Edit(
                    node.lineno,
                    node.col_offset,
                    node.end_col_offset,
                    f'"{INTERPRET_OFF}"',
                    INTERPRET,
                )
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "cuda"
            and not node.args
            and not node.keywords
            and node.func.end_lineno is not None
        ):
            end = node.func.end_col_offset
            yield Edit(node.func.end_lineno, end - len("cuda"), end, "cpu", ".cuda()")


def _applied(script: str, edits: list[Edit]) -> str:
    lines = script.splitlines(keepends=True)
    by_line: dict[int, list[Edit]] = {}
    for edit in edits:
        by_line.setdefault(edit.line, []).append(edit)
    for number, found in by_line.items():
        raw = lines[number - 1].encode("utf-8", "surrogatepass")
        for edit in sorted(found, key=lambda e: e.start, reverse=True):
            raw = raw[: edit.start] + edit.replacement.encode() + raw[edit.end :]
        lines[number - 1] = raw.decode("utf-8", "surrogatepass")
    return "".join(lines)


def _notes(edits: list[Edit]) -> list[str]:
    devices = sorted({e.line for e in edits if e.what != INTERPRET})
    interpret = sorted({e.line for e in edits if e.what == INTERPRET})
    notes = []
    if devices:
        count = sum(1 for e in edits if e.what != INTERPRET)
        notes.append(f"{count} GPU device reference(s) rewritten to cpu (line {_lines(devices)})")
    if interpret:
        notes.append(
            f"the script's own {INTERPRET} setting neutralised, so the kernel is compiled "
            f"(line {_lines(interpret)})"
        )
    return notes


def _lines(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:10])
    return shown + (f" and {len(numbers) - 10} more" if len(numbers) > 10 else "")
