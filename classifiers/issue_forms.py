"""The sections of a GitHub issue form ("### GPU", "### ROCm Version", ...) and what each holds."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from config import linear_re

# A section of an issue form starts at a `## `-`#### ` heading line and runs to the next one.
HEADING = linear_re.compile(r"^#{2,4}(?:[ \t]+([^\n]*?))?[ \t]*$", linear_re.M)
MAX_SECTIONS = 200  # an issue form has about ten; headings past this many are read as text
NO_RESPONSE = "_No response_"


@dataclass(frozen=True)
class Section:
    name: str  # as written
    start: int  # of the heading line
    end: int  # where the next heading starts, or the end of the text
    value: str  # the text under the heading, stripped
    value_start: int = 0  # where the text under the heading starts

    @property
    def kind(self) -> str:
        return section_kind(self.name)


def form_sections(body: str) -> list[Section]:
    """The `## `-`#### ` sections of a Markdown text, in order (the first MAX_SECTIONS)."""
    body = body or ""
    headings = list(itertools.islice(HEADING.finditer(body), MAX_SECTIONS + 1))
    sections = []
    for heading, following in zip(headings, [*headings[1:], None], strict=False):
        end = following.start() if following is not None else len(body)
        name = (heading.group(1) or "").strip()
        start = min(heading.end() + 1, end)
        sections.append(Section(name, heading.start(), end, body[start:end].strip(), start))
    return sections


def issue_form_sections(body: str) -> dict[str, str]:
    """`### Heading` sections of an issue form: {lower-cased heading: text}, no `_No response_`."""
    return {
        section.name.lower(): section.value
        for section in form_sections(body)
        if section.name and section.value and section.value != NO_RESPONSE
    }


def section_kind(name: str) -> str:
    """What a section holds: report (rocminfo and the like), cpu, gpu, rocm, os; or ""."""
    name = (name or "").lower()
    if any(tool in name for tool in ("rocminfo", "rocm-smi", "amd-smi", "collect_env")):
        return "report"
    if "cpu" in name or "processor" in name:
        return "cpu"
    if "gpu" in name or "graphics card" in name or "accelerator" in name or name == "hardware":
        return "gpu"
    if "rocm" in name and ("version" in name or name == "rocm"):
        return "rocm"
    if "operating system" in name or name in ("os", "os version", "distribution", "distro"):
        return "os"
    return ""
