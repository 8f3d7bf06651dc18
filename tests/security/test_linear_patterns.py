"""Untrusted text is read in linear time: every pattern of the service runs on RE2, and the
repro extraction reads texts written to be slow, soft-failing past its budgets.

No test here measures time (benchmarks/untrusted_text.py does, and docs/RELIABILITY.md quotes
it); they pin what makes the time linear: no backtracking engine anywhere in our modules, fences
read as CommonMark reads them in one pass (GitHub renders them that way), and the budgets.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from config import linear_re
from kernels_ci.extraction import MAX_CODE_BLOCKS, MAX_EXTRACT_CHARS, code_blocks, extract
from tests.security.adversarial import UNITS, adversarial_texts, repeated

ROOT = Path(__file__).resolve().parents[2]
APPS = ["config", "triage", "classifiers", "kernels_ci", "releases"]
BACKTRACKING = {"re", "regex", "sre_compile", "fnmatch"}


def _modules():
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" not in path.parts and path != ROOT / "config" / "linear_re.py":
                yield path


def test_no_module_of_ours_matches_with_a_backtracking_engine():
    offenders = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module.split(".")[0]]
            offenders += [f"{path.relative_to(ROOT)}:{node.lineno} imports {n}" for n in names]
    offenders = [o for o in offenders if o.rsplit(" ", 1)[1] in BACKTRACKING]
    assert offenders == [], "match through config.linear_re (RE2) instead:\n" + "\n".join(offenders)


# --- fences as CommonMark (and GitHub) read them ----------------------------------------------

COMMONMARK = MarkdownIt("commonmark")
# Lines of a Markdown text with no other block structure than fences and paragraphs (no lists,
# quotes, HTML or setext underlines, which nest fences or end paragraphs in other ways).
LINES = st.one_of(
    st.builds(
        lambda indent, char, n, info, trail: " " * indent + char * n + info + trail,
        st.integers(0, 4),
        st.sampled_from("`~"),
        st.integers(2, 6),
        st.sampled_from(["", "python", " py  x", "c++", "x`y", "{.cpp}"]),
        st.sampled_from(["", "  ", "\t"]),
    ),
    st.sampled_from(
        [
            "import triton",
            "    x = 1",
            "  indented",
            "text with ``` inside",
            "Traceback (most recent call last):",
            "",
            "# heading",
            "x ~~~",
        ]
    ),
)


def _commonmark_fences(text: str) -> list[tuple[str, str]]:
    return [
        (token.info.strip(), token.content.rstrip("\n"))
        for token in COMMONMARK.parse(text)
        if token.type == "fence"
    ]


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(LINES, max_size=30))
def test_it_reads_fences_as_commonmark_does(lines):
    text = "\n".join(lines)
    ours = [(block.info, block.body.rstrip("\n")) for block in code_blocks(text)]
    assert ours == _commonmark_fences(text)


def test_an_unclosed_fence_runs_to_the_end_and_a_longer_fence_closes():
    text = "intro\n````python\nimport triton\n```\nstill code\n`````\nafter\n```x\nlast\n"
    blocks = code_blocks(text)
    assert [(b.info, b.body) for b in blocks] == [
        ("python", "import triton\n```\nstill code\n"),
        ("x", "last\n"),
    ]


# --- hostile bodies -----------------------------------------------------------------------------

NESTINGS = st.sampled_from(
    [
        ("<details><summary>repro</summary>\n\n", "\n</details>\n"),
        ("<details>\n<details>\n", "</details>\n</details>\n"),
        ("", ""),
    ]
)
SCRIPT = "import torch\nimport triton\n\n@triton.jit\ndef k(x):\n    pass\n\nk[(1,)](1)\n"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    unit=st.sampled_from(sorted(UNITS.values())),
    size=st.sampled_from([1_000, 65_536, MAX_EXTRACT_CHARS - 200]),
    nesting=NESTINGS,
    depth=st.integers(0, 50),
    before=st.booleans(),
)
def test_a_hostile_body_around_a_reproducer_still_gives_it_or_says_why(
    unit, size, nesting, depth, before
):
    """A reproducer in <details> (nested `depth` deep) beside a long run of one hostile unit:
    either the reproducer is found, or the case says what stopped it; it never raises."""
    opening, closing = nesting
    block = opening * depth + "Minimal repro:\n\n```python\n" + SCRIPT + "```\n" + closing * depth
    filler = repeated(unit, max(0, size - len(block)))
    body = block + "\n\n" + filler if before else filler + "\n\n" + block
    found = extract(title="Kernel fails on gfx942", body=body)
    if found.problem:
        assert found.problem.startswith("too large to extract")
        return
    assert found.block_count <= MAX_CODE_BLOCKS
    if found.script:  # one of the blocks as they are read
        assert found.script in {b.body.rstrip() + "\n" for b in code_blocks(body)}
    if before:  # nothing before the block can swallow it
        assert found.script == SCRIPT


@pytest.mark.parametrize("size", [65_536, MAX_EXTRACT_CHARS])
def test_every_hostile_family_is_extracted_without_error(size):
    for family, text in adversarial_texts(size).items():
        found = extract(title="t", body=text)
        assert found.problem == "" or found.problem.startswith("too large to extract"), family


def test_a_body_past_the_size_budget_is_too_large_to_extract():
    body = "```python\nimport triton\n```\n" + "x" * MAX_EXTRACT_CHARS
    found = extract(title="t", body=body)
    assert found.problem == (
        f"too large to extract: {len(body):,} characters, over {MAX_EXTRACT_CHARS:,}"
    )
    assert found.script == "" and found.environment == {}


def test_past_its_time_budget_extraction_stops_and_says_where():
    found = extract(title="t", body="```python\nimport triton\n```\n", time_budget_s=-1)
    assert found.problem == (
        "too large to extract: its time budget (-1 s) ran out at the code blocks"
    )


def test_only_the_first_blocks_are_read_and_the_choice_says_so():
    body = "```sh\nls\n```\n" * (MAX_CODE_BLOCKS + 20) + "```python\n" + SCRIPT + "```\n"
    found = extract(title="t", body=body)
    assert found.block_count == MAX_CODE_BLOCKS
    assert found.script == ""
    body = "```python\n" + SCRIPT + "```\n" + "```sh\nls\n```\n" * (MAX_CODE_BLOCKS + 20)
    found = extract(title="t", body=body)
    assert found.script == SCRIPT
    assert f"only the first {MAX_CODE_BLOCKS} code blocks were read" in found.choice_reason


# --- the engine ---------------------------------------------------------------------------------


def test_it_refuses_what_cannot_run_in_linear_time():
    with pytest.raises(linear_re.error):
        linear_re.compile(r"(```)(.*?)\1")
    with pytest.raises(linear_re.error):
        linear_re.compile(r"(?<!\w)x")
    with pytest.raises(ValueError, match="no linear-time equivalent"):
        linear_re.compile("x", 64)  # re.VERBOSE


def test_it_speaks_re():
    assert linear_re.search(r"^b$", "a\nb\nc", linear_re.M).group() == "b"
    assert linear_re.search(r"a.b", "a\nb", linear_re.S) is not None
    assert linear_re.search(r"a.b", "a\nb") is None
    assert linear_re.findall(r"gfx(\d+)", "GFX942 gfx90", linear_re.I) == ["942", "90"]
    assert linear_re.sub(r"(\w+)@(\w+)", r"\2 at \1", "me@host") == "host at me"
    assert linear_re.sub(r"\d", "N", "a1b22") == "aNbNN"
    assert linear_re.search(r"x\Z", "ax") and not linear_re.search(r"x\Z", "ax\n")
    assert linear_re.search("é+", "caféé").span() == (3, 5)  # offsets in characters
    assert linear_re.search("half", "bad \ud800 half").span() == (6, 10)  # lone surrogate
    rules = linear_re.PatternSet([r"\bhang", r"crash", r"nope"], linear_re.I)
    assert rules.matching("It CRASHES, then hangs") == [0, 1]
