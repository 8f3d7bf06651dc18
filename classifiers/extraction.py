"""Environment extraction by rules (no ML): GPU and gfx architecture, ROCm, OS, library versions.

Sources, strongest first: ROCm's issue-form sections ("### GPU", "### ROCm Version",
"### Operating System"), `rocminfo` output pasted into the issue ("Name: gfx942",
"Marketing Name: AMD Instinct MI300X"), then free text ("ROCm 6.2 on an RX 7900 XTX").
Every value records where it came from, so the issue page can explain it.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, field

from config import linear_re

# Marketing names to gfx targets. Longer, more specific patterns come first: the first match wins.
GPU_ARCHITECTURES: list[tuple[str, str, str]] = [
    # (regular expression, canonical GPU name, gfx target)
    (r"mi\s?355x?", "AMD Instinct MI355X", "gfx950"),
    (r"mi\s?350x?", "AMD Instinct MI350X", "gfx950"),
    (r"mi\s?325x", "AMD Instinct MI325X", "gfx942"),
    (r"mi\s?300x", "AMD Instinct MI300X", "gfx942"),
    (r"mi\s?300a", "AMD Instinct MI300A", "gfx942"),
    (r"mi\s?300\b", "AMD Instinct MI300", "gfx942"),
    (r"mi\s?250x", "AMD Instinct MI250X", "gfx90a"),
    (r"mi\s?250\b", "AMD Instinct MI250", "gfx90a"),
    (r"mi\s?210\b", "AMD Instinct MI210", "gfx90a"),
    (r"mi\s?100\b", "AMD Instinct MI100", "gfx908"),
    (r"mi\s?60\b", "AMD Instinct MI60", "gfx906"),
    (r"mi\s?50\b", "AMD Instinct MI50", "gfx906"),
    (r"radeon\s+vii\b", "AMD Radeon VII", "gfx906"),
    (
        r"strix\s+halo|ryzen\s+ai\s+max\+?|radeon\s+80[56]0s",
        "AMD Ryzen AI Max (Strix Halo)",
        "gfx1151",
    ),
    (
        r"strix\s+point|radeon\s+8[89]0m|ryzen\s+ai\s+9\s+hx?\s*3[67]0",
        "AMD Ryzen AI (Strix Point)",
        "gfx1150",
    ),
    (r"radeon\s+7[86]0m\b|\b7[86]0m\b", "AMD Radeon 780M (Phoenix)", "gfx1103"),
    (r"rx\s?9070(\s?xt)?", "AMD Radeon RX 9070", "gfx1201"),
    (r"r9700|ai\s+pro\s+r9700", "AMD Radeon AI PRO R9700", "gfx1201"),
    (r"rx\s?9060(\s?xt)?", "AMD Radeon RX 9060", "gfx1200"),
    (
        r"rx\s?7900\s?(xtx|xt|gre)?|(radeon\s+)?pro\s+w7900|\bw7900\b",
        "AMD Radeon RX 7900",
        "gfx1100",
    ),
    (r"(radeon\s+)?pro\s+w7800|\bw7800\b", "AMD Radeon PRO W7800", "gfx1100"),
    (
        r"rx\s?7800\s?xt|rx\s?7700\s?xt|(radeon\s+)?pro\s+w7700",
        "AMD Radeon RX 7800/7700",
        "gfx1101",
    ),
    (r"rx\s?7600(\s?xt)?", "AMD Radeon RX 7600", "gfx1102"),
    (
        r"rx\s?6950\s?xt|rx\s?6900\s?xt|rx\s?6800(\s?xt)?|(radeon\s+)?pro\s+w6800",
        "AMD Radeon RX 6800/6900",
        "gfx1030",
    ),
    (r"rx\s?6700(\s?xt)?", "AMD Radeon RX 6700", "gfx1031"),
]
# One pass over the text for every marketing name (RE2's set of patterns).
_GPU_SET = linear_re.PatternSet([rf"\b(?:{p})" for p, _, _ in GPU_ARCHITECTURES], linear_re.I)
KNOWN_ARCHITECTURES = sorted({arch for _, _, arch in GPU_ARCHITECTURES})

GFX_TOKEN = linear_re.compile(r"\bgfx(\d{3,4}[a-f]?)\b(?::[\w:+-]+)?", linear_re.I)
# A section of an issue form starts at a `## `-`#### ` heading line and runs to the next one.
HEADING = linear_re.compile(r"^#{2,4}(?:[ \t]+([^\n]*?))?[ \t]*$", linear_re.M)
ROCMINFO_NAME = linear_re.compile(
    r"^[ \t]*Name:[ \t]+(gfx\d{3,4}[a-f]?)[ \t]*$", linear_re.M | linear_re.I
)
ROCMINFO_MARKETING = linear_re.compile(
    r"^[ \t]*Marketing Name:[ \t]+([^\n]+?)[ \t]*$", linear_re.M | linear_re.I
)
ROCM_VERSION = linear_re.compile(
    r"(?:\brocm(?:[\s_-]*(?:version|release))?[\s:=_-]*v?|\+rocm)(\d+\.\d+(?:\.\d+)?)",
    linear_re.I,
)
BARE_VERSION = linear_re.compile(r"\b(\d+\.\d+(?:\.\d+)?)\b")
TORCH_VERSION = linear_re.compile(
    r"\b(?:torch|pytorch)(?:\s*(?:version|==|:|\s)\s*|\.__version__\D{0,20})v?"
    r"(\d+\.\d+(?:\.\d+)?(?:[.+][\w.]+)?)",
    linear_re.I,
)
TRITON_VERSION = linear_re.compile(
    r"\btriton(?:\s*(?:version|==|:|\s)\s*)v?(\d+\.\d+(?:\.\d+)?(?:\+[\w.]+)?)", linear_re.I
)
PYTHON_VERSION = linear_re.compile(
    r"\bpython\s*(?:version|==|:)?\s*v?(3\.\d{1,2}(?:\.\d+)?)", linear_re.I
)
OS_PATTERNS = [
    r"\bubuntu\s+\d{2}\.\d{2}(?:\.\d+)?(?:\s+LTS)?",
    r"\b(?:rhel|red\s?hat(?:\s+enterprise\s+linux)?)\s+\d+(?:\.\d+)?",
    r"\b(?:sles|suse\s+linux\s+enterprise(?:\s+server)?)\s+\d+(?:\s+sp\d)?",
    r"\bcentos(?:\s+stream)?\s+\d+",
    r"\bfedora\s+\d+",
    r"\boracle\s+linux\s+\d+(?:\.\d+)?",
    r"\bdebian\s+\d+",
    r"\brocky\s+linux\s+\d+(?:\.\d+)?",
    r"\bwindows\s+(?:1[01]|server\s+20\d\d)(?:\s+\w+)?(?:\s+\d\d[hH]\d)?",
    r"\bwsl\s?2?\b",
    r"\barch\s+linux\b",
]
_OS_SET = linear_re.PatternSet(OS_PATTERNS, linear_re.I)


@dataclass
class Environment:
    gpus: list[str] = field(default_factory=list)
    architectures: list[str] = field(default_factory=list)
    rocm_version: str = ""
    os: str = ""
    torch_version: str = ""
    triton_version: str = ""
    python_version: str = ""
    sources: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def is_empty(self) -> bool:
        return not any(
            [self.gpus, self.architectures, self.rocm_version, self.os, self.torch_version]
            + [self.triton_version, self.python_version]
        )

    def _add_gpu(self, name: str, arch: str, source: str) -> None:
        if name and name not in self.gpus:
            self.gpus.append(name)
            self.sources.setdefault("gpus", source)
        if arch and arch not in self.architectures:
            self.architectures.append(arch)
            self.sources.setdefault("architectures", source)

    def _set(self, attribute: str, value: str, source: str) -> None:
        if value and not getattr(self, attribute):
            setattr(self, attribute, value.strip())
            self.sources[attribute] = source


MAX_SECTIONS = 200  # an issue form has about ten; headings past this many are read as text
MAX_FACT_MATCHES = 200  # rocminfo lines, gfx tokens: the first this many are read


@dataclass(frozen=True)
class Section:
    name: str  # as written
    start: int  # of the heading line
    end: int  # where the next heading starts, or the end of the text
    value: str  # the text under the heading, stripped


def form_sections(body: str) -> list[Section]:
    """The `## `-`#### ` sections of a Markdown text, in order (the first MAX_SECTIONS)."""
    body = body or ""
    headings = list(itertools.islice(HEADING.finditer(body), MAX_SECTIONS + 1))
    sections = []
    for heading, following in zip(headings, [*headings[1:], None], strict=False):
        end = following.start() if following is not None else len(body)
        name = (heading.group(1) or "").strip()
        sections.append(Section(name, heading.start(), end, body[heading.end() + 1 : end].strip()))
    return sections


def issue_form_sections(body: str) -> dict[str, str]:
    """`### Heading` sections of an issue form: {lower-cased heading: text}, no `_No response_`."""
    return {
        section.name.lower(): section.value
        for section in form_sections(body)
        if section.name and section.value and section.value != "_No response_"
    }


def gpus_in(text: str) -> list[tuple[str, str]]:
    """(GPU name, gfx target) for every marketing name in the text, in table order."""
    return [GPU_ARCHITECTURES[i][1:] for i in _GPU_SET.matching(text or "")]


def _gfx_tokens(text: str) -> list[str]:
    found = itertools.islice(GFX_TOKEN.finditer(text or ""), MAX_FACT_MATCHES)
    return list(dict.fromkeys(f"gfx{m.group(1).lower()}" for m in found))


def _first(pattern: linear_re.Pattern, text: str) -> str:
    match = pattern.search(text or "")
    return match.group(1) if match else ""


def _os_in(text: str) -> str:
    matching = _OS_SET.matching(text or "")
    if not matching:
        return ""
    match = linear_re.search(OS_PATTERNS[matching[0]], text, linear_re.I)
    return " ".join(match.group(0).split())


def _all(pattern: linear_re.Pattern, text: str) -> list[str]:
    return [m.group(1) for m in itertools.islice(pattern.finditer(text), MAX_FACT_MATCHES)]


# GitHub caps a body at 65,536 characters; past 4 times that a body is hostile, not a report
# (a 2 MB one took the patterns below 3 s), so only its start is read.
MAX_BODY_CHARS = 256 * 1024


def environment_extract(title: str = "", body: str = "") -> Environment:
    env = Environment()
    body = (body or "")[:MAX_BODY_CHARS]
    title = (title or "")[:MAX_BODY_CHARS]
    text = f"{title or ''}\n{body or ''}"
    sections = issue_form_sections(body)

    # 1. the issue form
    for heading, value in sections.items():
        if heading in ("gpu", "gpus", "gpu model", "hardware"):
            for name, arch in gpus_in(value):
                env._add_gpu(name, arch, "issue form")
            for arch in _gfx_tokens(value):
                env._add_gpu("", arch, "issue form")
        elif heading in ("rocm version", "rocm versions", "rocm"):
            env._set(
                "rocm_version",
                _first(ROCM_VERSION, value) or _first(BARE_VERSION, value),
                "issue form",
            )
        elif heading in ("operating system", "os", "os version"):
            env._set("os", _os_in(value) or value.splitlines()[0][:100], "issue form")

    # 2. rocminfo output
    for arch in _all(ROCMINFO_NAME, text):
        env._add_gpu("", arch.lower(), "rocminfo")
    for marketing in dict.fromkeys(_all(ROCMINFO_MARKETING, text)):
        for name, arch in gpus_in(marketing):
            env._add_gpu(name, arch, "rocminfo")

    # 3. free text
    for name, arch in gpus_in(text):
        env._add_gpu(name, arch, "text")
    for arch in _gfx_tokens(text):
        env._add_gpu("", arch, "text")
    env._set("rocm_version", _first(ROCM_VERSION, text), "text")
    env._set("os", _os_in(text), "text")
    env._set("torch_version", _first(TORCH_VERSION, text), "text")
    env._set("triton_version", _first(TRITON_VERSION, text), "text")
    env._set("python_version", _first(PYTHON_VERSION, text), "text")
    if not env.rocm_version and "+rocm" in env.torch_version:
        env._set("rocm_version", env.torch_version.split("+rocm", 1)[1], "torch version")
    return env
