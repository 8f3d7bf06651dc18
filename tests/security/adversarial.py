"""Texts written to make pattern matching slow: what an attacker puts in an issue body, a
comment, a post, a pull request's description or a reproducer's output.

Each family repeats one unit up to a size; the units are the shapes that make a backtracking
engine rescan the rest of the text (an unclosed fence with an info string, a heading followed
by spaces, an HTML comment that never closes, a path of many segments, ...). The property test
(tests/security/test_linear_patterns.py) builds more of them with hypothesis; the benchmark
(benchmarks/untrusted_text.py) times every reader on each family at 65,536 and 262,144
characters.
"""

from __future__ import annotations

UNITS = {
    "unclosed fences with an info string": "```x\n",
    "unclosed tilde fences": "~~~python\n",
    "alternating fences": "```\n~~~\n",
    "fences of growing length": "````\n```\n",
    "indented fences": "   ```py\n",
    "backtick run": "`",
    "blank lines": "\n",
    "spaces": " ",
    "one letter": "a",
    "digits": "9",
    "dots and digits": "1.",
    "heading then spaces": "## " + " " * 200 + "x",
    "headings": "### x\n",
    "html comment never closed": "<!--",
    "details nesting": "<details><summary>s</summary>\n\n",
    "details with fences": "<details>\n```python\nimport triton\n",
    "rocminfo names": "  Name:   gfx942\n",
    "marketing names": "  Marketing Name:  AMD Instinct MI300X\n",
    "gfx tokens": "gfx942 ",
    "version words": "rocm 6.2 torch 2.4 triton 3.0 ",
    "traceback frames": '  File "/tmp/a/b/c.py", line 1, in f\n',
    "error lines": "RuntimeError: x\n",
    "paths": "/a",
    "hex": "0x",
    "closing keywords": "fixes #1 ",
    "issue urls": "https://github.com/o/r/issues/1 ",
    "url with a colon": "a://b:",
    "bearer words": "bearer ",
    "mentions": "@rocm ",
    "links": "[a](",
    "emphasis": "*_",
    "ansi escapes": "\x1b[",
    "crash words": "segfault hang wrong result ",
}


def repeated(unit: str, size: int) -> str:
    """`unit` repeated to exactly `size` characters."""
    return (unit * (size // len(unit) + 1))[:size]


def adversarial_texts(size: int) -> dict[str, str]:
    """One text per family, each `size` characters long."""
    return {name: repeated(unit, size) for name, unit in UNITS.items()}
