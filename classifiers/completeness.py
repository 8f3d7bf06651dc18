"""What a bug report gives of the facts triage needs, and what it lacks (needs-info's reading).

The facts (settings.NEEDS_INFO_FACTS chooses which are asked for):
- `gpu`: the GPU model or its gfx target, from the environment extraction (classifiers.extraction);
- `rocm_version`, `os`: the same extraction's;
- `rocminfo`: a machine report pasted (rocminfo, rocminfo --support, rocm-smi, amd-smi), which the
  extraction names as a fact's source, or found by the report's own markers ("HSA Agents",
  "Marketing Name:", rocm-smi's banner and `GPU[0] :` lines), quoted or not; not needed when the
  GPU is named already (what triage needs of it is the GPU and its target);
- `steps`: a "Steps to Reproduce" (or reproducer, example, code) form section that gives steps
  (more than one line, or a command: not one vague line, "attached" or the template's '...');
  else a fenced code block, in the body or the reporter's comments, with a line of code or a
  command in it (a block of log or traceback alone does not reproduce anything; a diff is a
  fix); else a command on a line of its own or in inline code (`$ `, a shell or PowerShell
  prompt, python, pip, hipcc, cmake, a script, a pytest node id, an environment assignment);
  else a numbered list in a text that speaks of steps or reproducing.
An OS of "Linux", "NA", "none" or "other" names no OS.
Each present fact says where it was found. Every pattern is RE2 (config/linear_re.py).

Never ask for what the report states: a fact the extraction could not read with confidence but
that the report names in some form (a GPU the table does not know, "RX550", a form field "AMD
6750"; a version beside ROCm, TheRock, HIP or a driver that is no release the extraction takes;
a distribution's name) is `unclear`, not missing: a person reads it, the reporter is not asked
again for what they wrote. Only what the report does not name at all is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from classifiers.issue_forms import NO_RESPONSE, form_sections
from classifiers.markdown_blocks import code_blocks, text_without
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
MAX_LINES = 2000  # lines of a text read for commands outside code blocks

STEPS_SECTION = linear_re.compile(r"(?i)reproduc|steps|\bexample\b|\bcode\b|\bscript\b")
EMPTY_VALUE = linear_re.compile(r"(?i)^\s*(?:_no response_|n/?a|none|-|\.|no|tbd|\?)\s*$")
# A step that says nothing to run: "see attached", the template's own placeholder lines.
PLACEHOLDER = linear_re.compile(
    r"(?i)^\s*(?:\d[.)]\s*)?(?:see |the )?(?:reproducer |repro |logs? )?attached\.?\s*$|'\.\.\.'"
)
# A command a reader can run: the words that start one (also outside code blocks).
COMMAND = (
    r"(?:\$ |PS [A-Za-z]:\\[^>\n]*> ?|[A-Za-z]:\\[^>\n]*> ?|[\w.-]+@[\w.-]+:[^$\n]*\$ |"
    r"# (?:python|pip|sudo|apt|cmake|make|\./|git|docker|hipcc|rocminfo|export)|>>> |"
    r"python3?(?:\.\d+)? \S|pip3? install|sudo |apt(?:-get)? install|docker (?:run|pull)|"
    r"git clone|torchrun|pytest|hipcc |amdclang|clang\+?\+? |cmake |make\b|\./\S|"
    r"amdgpu-install|conda (?:install|create|activate)|bash \S|sh \S|dnf install|"
    r"(?:/\S*)?/(?:clang\+\+|clang|hipcc|python3?|amdclang\+\+)\b|\S+\.(?:sh|py)\b|"
    r"\S+\.py::\w+|(?:ROC|HSA|AMD|HIP|HCC|PYTORCH)[A-Z_]*=\S)"
)
# In a code block, code counts too: an assignment, a call, a definition, an include.
CODE_OR_COMMAND = linear_re.compile(
    r"(?m)^\s*(?:" + COMMAND + r"|import |from \S+ import |#include|export |"
    r"[A-Za-z_][\w.]*\s*=\s*\S|[A-Za-z_][\w.]*\([^)\n]*\)|def |class |__global__|"
    r"int main|@triton\.jit|torch\.)"
)
COMMAND_LINE = linear_re.compile(r"(?m)^\s{0,3}(?:[-*]\s+|\d[.)]\s+)?`?" + COMMAND)
INLINE_COMMAND = linear_re.compile(r"`" + COMMAND + r"[^`\n]*`")
PYTEST_NODE = linear_re.compile(r"[\w/.-]+\.py::\w+")  # a failing test names its reproducer
DIFF = linear_re.compile(r"(?m)^(?:@@ |\+\+\+ |--- a/)")
NUMBERED_STEP = linear_re.compile(r"(?m)^\s{0,3}(?:1[.)]|2[.)])\s+\S")
STEPS_WORDS = linear_re.compile(r"(?i)\bsteps?\b|reproduc|\bhow to\b|\bto trigger\b")
# A machine report by its own markers (also quoted), whatever GPU facts it gave.
REPORT_MARKER = linear_re.compile(
    r"(?m)HSA System Attributes|HSA Agents|^[> ]*Marketing Name:|ROCm System Management Interface|"
    r"^[> ]*GPU\[\d+\]\s*:|AMD SMI|^[> ]*Agent \d+\s*$"
)
WEAK_OS = {"linux", "na", "n/a", "none", "other", "unknown", "-"}
# A fact named in some form, which the extraction could not read with confidence (see above).
NAMED = {
    "gpu": linear_re.compile(
        r"(?i)\bgfx[0-9a-f]{2,4}|\bradeon\b|\binstinct\b|\bfirepro\b|\b(?:rx|r[579]|hd|w|v)\s?"
        r"\d{3,4}\w{0,3}\b|\bmi\s?\d{2,3}\w{0,2}\b|\b\d{3,4}\s?(?:xtx|xt|gre|m|s)\b|\b(?:vega|navi|"
        r"polaris|fiji|ellesmere|tonga|hawaii|carrizo|raven|renoir|cezanne|rembrandt|phoenix|"
        r"strix|krackan|aldebaran|arcturus)\b|\bamd\s+\d{3,4}\w{0,3}\b|"
        r"\b(?:my|an?|the)\s+\d{4}\s?(?:xtx?|gre)\b|"
        r"\b(?:igpu|apu|dgpu)\b|\b\d{3}m\b|\b(?:7900|7800|7700|7600|6950|6900|6800|6750|6700|6650|"
        r"6600|6500|5700|5600|5500|9070|9060)\b|\bryzen\s+(?:ai\s+)?(?:\d|max|z\d)|\[AMD/ATI\]|"
        r"\b(?:gpu|graphics(?:\s+card)?|video\s+card)\s*(?:model)?\s*[:=][ \t*]*[^\n]{1,40}"
    ),
    "rocm_version": linear_re.compile(
        r"(?i)\b(?:rocm|therock|hip|amdgpu|adrenalin|driver|sdk|rocm-\w+|rock-dkms|miopen|rocblas"
        r"|hipblas(?:lt)?|rccl|rocfft|hipfft|rocsparse|rocsolver|migraphx|tensile|rocprof\w*"
        r"|amd-smi|rocm-smi|rocminfo)\b[^\n]{0,40}?\d+\.\d+|\+rocm\w*|\brocm\d"
        r"|\bversion\s*:?\s*\d+\.\d+"
    ),
    "os": linear_re.compile(
        r"(?i)\b(?:ubuntu|debian|fedora|rhel|red\s?hat|centos|sles|suse|opensuse|arch|manjaro|"
        r"mint|pop!?_os|gentoo|nixos|rocky|alma(?:linux)?|oracle linux|cachyos|endeavouros|"
        r"windows|win1[01]|wsl2?|kubuntu|xubuntu|debian|bazzite|nobara)\b"
    ),
}


@dataclass
class Completeness:
    present: dict[str, str] = field(default_factory=dict)  # fact -> where it was found
    missing: list[str] = field(default_factory=list)
    # fact -> what the report names of it that the extraction could not read with confidence
    unclear: dict[str, str] = field(default_factory=dict)


def _filled(value: str) -> bool:
    """A form section's answer that says something (not "_No response_", "N/A", "-" ...)."""
    value = (value or "").strip()
    return (
        value != NO_RESPONSE
        and not EMPTY_VALUE.match(value)
        and len(value.replace(" ", "")) >= MIN_STEPS_CHARS
    )


def _steps_filled(value: str) -> bool:
    """A Steps section that gives steps: filled, not a placeholder, and either more than one
    line, a command, or code (one vague line, "attached", the template's '...' are not)."""
    if not _filled(value) or PLACEHOLDER.search(value):
        return False
    lines = [line for line in value.strip().splitlines() if line.strip()]
    return len(lines) > 1 or bool(COMMAND_LINE.search(value) or INLINE_COMMAND.search(value))


def _steps_in_form(body: str) -> str:
    for section in form_sections(body):
        if STEPS_SECTION.search(section.name or "") and _steps_filled(section.value):
            return f"the form's {section.name!r} section"
    return ""


def _steps_in_code(texts: list[tuple[str, str]]) -> str:
    for where, text in texts:
        for block in code_blocks(text):
            if block.lang == "diff" or DIFF.search(block.body):
                continue  # a patch is a fix, not a way to reproduce
            if CODE_OR_COMMAND.search(block.body):
                return f"a code block with code or a command ({where})"
    return ""


def _steps_in_text(texts: list[tuple[str, str]]) -> str:
    """A command on a line of its own or in inline code, outside code blocks."""
    for where, text in texts:
        plain = text_without(text, code_blocks(text), between="\n")
        head = "\n".join(plain.splitlines()[:MAX_LINES])
        if COMMAND_LINE.search(head) or INLINE_COMMAND.search(head) or PYTEST_NODE.search(head):
            return f"a command in the text ({where})"
    return ""


def _report_in(texts: list[tuple[str, str]]) -> str:
    """A pasted machine report, by its own markers (rocminfo, rocm-smi, amd-smi)."""
    for where, text in texts:
        if REPORT_MARKER.search(text):
            return f"a rocminfo / rocm-smi report ({where})"
    return ""


def report_completeness(
    *, body: str, environment: dict, reporter_comments=(), wanted=tuple(FACTS), title: str = ""
) -> Completeness:
    """What of `wanted` the report gives (from its title, body, its reporter's comments and the
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
        value = str(environment.get(name) or "")
        if value and value.strip().lower() not in WEAK_OS:
            source = (sources.get(name) or {}).get("source", "")
            found[name] = f"the environment ({source or 'extraction'}: {value})"
    report_facts = [f for f in environment.get("facts") or [] if f.get("source") in REPORT_SOURCES]
    if report_facts:
        found["rocminfo"] = f"a {report_facts[0]['source']} report"
    elif where := _report_in(texts):
        found["rocminfo"] = where
    elif "gpu" in found:
        # rocminfo is asked for what it tells triage: the GPU and its target. Named already,
        # the report would add nothing a maintainer needs to start.
        found["rocminfo"] = "not needed: the GPU is named"
    steps = _steps_in_form(body) or _steps_in_code(texts) or _steps_in_text(texts)
    if not steps and NUMBERED_STEP.search(body) and STEPS_WORDS.search(body):
        steps = "numbered steps in the body"
    if steps:
        found["steps"] = steps
    unclear = _named([("title", title or ""), *texts], [f for f in FACTS if f in wanted])
    unclear = {fact: where for fact, where in unclear.items() if fact not in found}
    if "gpu" in unclear and "rocminfo" not in found:
        unclear["rocminfo"] = "not asked: the report names a GPU (" + unclear["gpu"] + ")"
    present = {name: found[name] for name in FACTS if name in found and name in wanted}
    missing = [name for name in FACTS if name in wanted and name not in found | unclear.keys()]
    return Completeness(present=present, missing=missing, unclear=unclear)


def _named(texts: list[tuple[str, str]], facts: list[str]) -> dict[str, str]:
    """{fact: the words} of the facts the texts name in some form (NAMED)."""
    named = {}
    for fact in facts:
        pattern = NAMED.get(fact)
        for where, text in texts if pattern else ():
            match = pattern.search(text)
            if match:
                named[fact] = f"{match.group(0).strip()[:60]!r} ({where})"
                break
    return named
