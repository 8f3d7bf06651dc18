"""What a bug report gives of the facts triage needs, and what it lacks (needs-info's reading).

The facts (settings.NEEDS_INFO_FACTS chooses which are asked for):
- `gpu`: the GPU model or its gfx target, from the environment extraction (classifiers.extraction);
- `rocm_version`, `os`: the same extraction's;
- `rocminfo`: a machine report pasted (rocminfo, rocminfo --support, rocm-smi, amd-smi), which the
  extraction names as a fact's source, or a filled form section named for one;
- `steps`: a filled "Steps to Reproduce" (or reproducer, example, code) form section; else a
  fenced code block, in the body or the reporter's comments, with a line of code or a command
  in it (a block of log or traceback alone does not reproduce anything); else a numbered list
  of at least two steps.
Each present fact says where it was found. Every pattern is RE2 (config/linear_re.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from classifiers.issue_forms import NO_RESPONSE, form_sections
from classifiers.markdown_blocks import code_blocks
from config import linear_re

FACTS: dict[str, str] = {
    "gpu": "the GPU model and its gfx target (`rocminfo | grep gfx` shows it)",
    "rocm_version": "the ROCm version (`cat /opt/rocm/.info/version`)",
    "os": "the operating system and its version (e.g. Ubuntu 24.04)",
    "steps": "steps to reproduce, or a minimal script or command that shows the problem",
    "rocminfo": "the output of `rocminfo --support` (in a code block)",
}
REPORT_SOURCES = {"rocminfo", "rocm-smi"}
MIN_STEPS_CHARS = 15
MAX_TEXTS = 20  # the body and the reporter's first comments

STEPS_SECTION = linear_re.compile(r"(?i)reproduc|steps|\bexample\b|\bcode\b|\bscript\b")
EMPTY_VALUE = linear_re.compile(r"(?i)^\s*(?:_no response_|n/?a|none|-|\.|no|tbd|\?)\s*$")
CODE_OR_COMMAND = linear_re.compile(
    r"(?m)^\s*(?:\$ |# |>>> |python3?\b|pip3?\b|import |from \S+ import |#include|hipcc|"
    r"clang|cmake|make\b|\./|sudo |apt(?:-get)?\b|docker |git |torchrun|pytest|rocminfo|"
    r"export |conda |bash |sh |amdgpu-install|dnf |yum |zypper |HIP_|HSA_|AMD_|ROC|"
    r"[A-Za-z_][\w.]*\s*=\s*\S|[A-Za-z_][\w.]*\([^)\n]*\)|def |class |__global__|int main|"
    r"@triton\.jit|torch\.)"
)
NUMBERED_STEP = linear_re.compile(r"(?m)^\s{0,3}(?:1[.)]|2[.)])\s+\S")


@dataclass
class Completeness:
    present: dict[str, str] = field(default_factory=dict)  # fact -> where it was found
    missing: list[str] = field(default_factory=list)


def _filled(value: str) -> bool:
    """A form section's answer that says something (not "_No response_", "N/A", "-" ...)."""
    value = (value or "").strip()
    return (
        value != NO_RESPONSE
        and not EMPTY_VALUE.match(value)
        and len(value.replace(" ", "")) >= MIN_STEPS_CHARS
    )


def _steps_in_form(body: str) -> str:
    for section in form_sections(body):
        if STEPS_SECTION.search(section.name or "") and _filled(section.value):
            return f"the form's {section.name!r} section"
    return ""


def _steps_in_code(texts: list[tuple[str, str]]) -> str:
    for where, text in texts:
        for block in code_blocks(text):
            if CODE_OR_COMMAND.search(block.body):
                return f"a code block with code or a command ({where})"
    return ""


def _report_section(body: str) -> str:
    for section in form_sections(body):
        if section.kind == "report" and _filled(section.value):
            return f"the form's {section.name!r} section"
    return ""


def report_completeness(
    *, body: str, environment: dict, reporter_comments=(), wanted=tuple(FACTS)
) -> Completeness:
    """What of `wanted` the report gives (from its body, its reporter's comments and the
    environment extraction's dict), and what it lacks, in FACTS order."""
    body = body or ""
    environment = environment or {}
    texts = [("issue body", body)]
    texts += [("reporter's comment", c or "") for c in list(reporter_comments)[: MAX_TEXTS - 1]]
    found: dict[str, str] = {}
    sources = environment.get("sources") or {}
    if environment.get("architectures") or environment.get("gpus"):
        source = (sources.get("architectures") or sources.get("gpus") or {}).get("source", "")
        found["gpu"] = f"the environment ({source or 'extraction'})"
    for name in ("rocm_version", "os"):
        if environment.get(name):
            source = (sources.get(name) or {}).get("source", "")
            found[name] = f"the environment ({source or 'extraction'}: {environment[name]})"
    report_facts = [f for f in environment.get("facts") or [] if f.get("source") in REPORT_SOURCES]
    if report_facts:
        found["rocminfo"] = f"a {report_facts[0]['source']} report"
    elif where := _report_section(body):
        found["rocminfo"] = where
    steps = _steps_in_form(body) or _steps_in_code(texts)
    if not steps and NUMBERED_STEP.search(body):
        steps = "numbered steps in the body"
    if steps:
        found["steps"] = steps
    present = {name: found[name] for name in FACTS if name in found and name in wanted}
    missing = [name for name in FACTS if name in wanted and name not in found]
    return Completeness(present=present, missing=missing)
