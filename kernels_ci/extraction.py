"""Pure extraction of a repro case from an issue's title and body: no database, no execution.

- the reproducer: one fenced code block (``` or ~~~, also inside <details>), Python using Triton
  or torch, or HIP C++ (`__global__`, `hipLaunchKernelGGL`); among several, the best scored. A
  complete Triton kernel with its launch but no import lines gets the standard imports (torch,
  triton, triton.language as tl) added: they are part of the script a maintainer approves and
  of its hash. A kernel that is never launched is a partial snippet: no script, and the case
  says it needs a complete reproducer and why;
- the error the report quotes (kernels_ci.expectations), read from the prose and output blocks;
- the reported symptom, in triage's symptom labels (classifiers.symptom): a wrong result, a hang
  or a crash (with its message; a compile error is a crash whose detail says so), else "other";
- the environment: classifiers.extraction's facts (the one reader of GPUs, gfx targets, ROCm,
  OS, torch, triton and Python versions), the gfx targets to run on, and the facts missing for a
  run.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field

from classifiers.extraction import MAX_BODY_CHARS
from classifiers.extraction import environment_extract as classifier_environment
from classifiers.markdown_blocks import MAX_BLOCKS, CodeBlock, code_blocks, text_without_spans
from config import linear_re
from kernels_ci.backends import suggested_backend
from kernels_ci.expectations import expected_error

# Budgets: past them extraction stops and the case says "too large to extract" (fail soft).
# Every pattern here is linear in the text (RE2, config/linear_re.py), so on GitHub's largest
# body (65,536 characters) and on ours (MAX_BODY_CHARS) extraction takes milliseconds
# (benchmarks/untrusted_text.py); the time budget guards against what that does not foresee.
MAX_EXTRACT_CHARS = MAX_BODY_CHARS
MAX_CODE_BLOCKS = MAX_BLOCKS
TIME_BUDGET_S = 0.5
MAX_SYMPTOM_HITS = 50  # matches counted per symptom: enough to rank them

PYTHON_INFOS = {"python", "py", "python3", "py3", "pycon", "ipython"}
HIP_INFOS = {"cpp", "c++", "hip", "cc", "cxx", "c", "cuda", "hpp", "h"}
HIP_MARKERS = ("__global__", "hipLaunchKernelGGL", "hip/hip_runtime.h", "hipMalloc")
OUTPUT_MARKERS = ("Traceback (most recent call last)", "$ ", ">>> ")
REPRO_HINT_RE = linear_re.compile(
    r"\b(repro(ducer|duce|duction)?|minimal|example|steps to reproduce)\b", linear_re.I
)
IMPORT_RE = linear_re.compile(r"^\s*(import|from)\s+\w+", linear_re.M)
IMPORT_TRITON_OR_TORCH_RE = linear_re.compile(r"^\s*(import|from)\s+(triton|torch)\b", linear_re.M)
USES_TRITON_RE = linear_re.compile(r"^\s*(import|from)\s+[\w., ]*\btriton\b", linear_re.M)
USES_TORCH_RE = linear_re.compile(r"^\s*(import|from)\s+[\w., ]*\btorch\b", linear_re.M)
LAUNCH_RE = linear_re.compile(r"\w+\[[^\]]+\]\s*\(")
JIT_RE = linear_re.compile(r"^\s*@triton\.jit\b", linear_re.M)
STANDARD_IMPORTS = "import torch\nimport triton\nimport triton.language as tl\n\n"
CHECK_RE = linear_re.compile(r"assert|allclose|assert_close|print\(")

MAX_ARCHS = 20

SYMPTOM_PATTERNS = {
    "compile_error": [
        r"compil(e|ation|er)\s+(error|fail|crash)",
        r"fails?\s+to\s+compile",
        r"CompilationError",
        r"LLVM\s+ERROR",
        r"PassManager::run failed",
        r"assembler rejected",
        r"error:\s+(unknown|invalid|instruction)",
    ],
    "hang": [
        r"\bhang(s|ing)?\b",
        r"\bhung\b",
        r"\bstuck\b",
        r"\bdeadlock",
        r"never\s+(returns|finishes|completes)",
        r"\bfreez(e|es)\b",
        r"\btim(es|ed)\s+out\b",
    ],
    "crash": [
        r"Segmentation fault",
        r"\bsegfault",
        r"core dumped",
        r"\bSIG(SEGV|ABRT|BUS|ILL|FPE)\b",
        r"Memory access fault",
        r"illegal memory access",
        r"HSA_STATUS_ERROR\w*",
        r"\bcrash(es|ed|ing)?\b",
        r"\bAborted\b",
        r"^\w*(Error|Exception):",
    ],
    "wrong_result": [
        r"wrong\s+(result|output|answer|value)s?",
        r"incorrect\s+(result|output|value)s?",
        r"\bmismatch",
        r"not\s+close",
        r"AssertionError",
        r"max(imum)?\s+(abs(olute)?\s+)?diff",
        r"\bNaNs?\b",
        r"\bgarbage\b",
        r"differ(s|ent)?\s+from",
        r"results?\s+(are|is)\s+(wrong|off|incorrect)",
    ],
}
SYMPTOM_PRIORITY = ["compile_error", "hang", "wrong_result", "crash"]
COMPILE_ERROR = "compile_error"  # a detail of a crash: the compiler backends reproduce it
NO_SYMPTOM = "other"
# One program per symptom: the alternatives of its patterns, counted in one pass.
SYMPTOM_RES = {
    kind: linear_re.compile("|".join(f"(?:{p})" for p in patterns), linear_re.I | linear_re.M)
    for kind, patterns in SYMPTOM_PATTERNS.items()
}
NUMERIC_ASSERT_RE = linear_re.compile(r"AssertionError|Mismatched elements|not close")
CRASH_MESSAGE_RE = linear_re.compile(
    r"^.*(Segmentation fault|Memory access fault[^\n]*|illegal memory access[^\n]*|"
    r"HSA_STATUS_ERROR\w*[^\n]*|LLVM ERROR:[^\n]*|core dumped|\b\w+(Error|Exception): [^\n]+).*$",
    linear_re.M,
)
MESSAGE_WINDOW = 4096  # the last message is looked for from the end, a window at a time


class BudgetExceeded(Exception):
    pass


class Budget:
    def __init__(self, seconds: float):
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds

    def check(self, stage: str) -> None:
        if time.monotonic() > self.deadline:
            raise BudgetExceeded(f"its time budget ({self.seconds:g} s) ran out at {stage}")


@dataclass
class Extraction:
    script: str = ""
    language: str = ""  # python | hip | ""
    uses_triton: bool = False
    uses_torch: bool = False
    block_count: int = 0
    chosen_index: int | None = None
    choice_reason: str = ""
    symptom: str = NO_SYMPTOM
    symptom_detail: str = ""
    symptom_message: str = ""
    environment: dict = field(default_factory=dict)
    missing_facts: list[str] = field(default_factory=list)
    problem: str = ""  # "too large to extract: ..." when a budget stopped it
    expected_error: dict = field(default_factory=dict)  # kernels_ci.expectations, as a dict
    imports_added: bool = False
    incomplete: str = ""  # why a kernel found is no reproducer yet (a partial snippet)

    @property
    def archs(self) -> list[str]:
        return list(self.environment.get("gpu_archs", []))

    def suggested_backend(self) -> str:
        if not self.language:
            return ""
        return suggested_backend(self.language, self.uses_triton, self.symptom_detail)


def _kind(block: CodeBlock) -> str:
    body, lang = block.body, block.lang
    if any(marker in body for marker in HIP_MARKERS) and lang not in PYTHON_INFOS:
        return "hip"
    if body.lstrip().startswith(OUTPUT_MARKERS):
        return "output" if IMPORT_TRITON_OR_TORCH_RE.search(body) else "other"
    looks_python = lang in PYTHON_INFOS or IMPORT_RE.search(body)
    if looks_python and IMPORT_TRITON_OR_TORCH_RE.search(body):
        return "python"
    if JIT_RE.search(body) and lang in PYTHON_INFOS | {""} and not IMPORT_RE.search(body):
        # a kernel without a single import line: complete once launched, else a snippet
        return "kernel_without_imports" if LAUNCH_RE.search(body) else "snippet"
    return "other"


def _score(block: CodeBlock, kind: str) -> tuple[float, str]:
    body = block.body
    score, reasons = 0.0, []
    if kind == "python":
        score += 10
        if "@triton.jit" in body:
            score += 10
            reasons.append("a @triton.jit kernel")
        elif "import torch" in body:
            reasons.append("torch code")
        if "@triton.jit" in body and LAUNCH_RE.search(body):
            score += 3
            reasons.append("a launch")
        if CHECK_RE.search(body):
            score += 2
            reasons.append("a check")
    elif kind == "hip":
        score += 8
        reasons.append("a HIP kernel")
        if "int main" in body:
            score += 3
            reasons.append("a main()")
    if REPRO_HINT_RE.search(block.context[-200:]) or REPRO_HINT_RE.search(block.info):
        score += 4
        reasons.append("introduced as a reproducer")
    score += min(body.count("\n") + 1, 80) / 40
    return score, ", ".join(reasons)


def environment_extract(
    title: str, body: str, *, language: str = "", uses_triton: bool = False
) -> tuple[dict, list[str]]:
    """The environment facts and the names of those a run would need but the issue lacks."""
    env = classifier_environment(title, body)
    environment = {
        "gpu_archs": env.architectures[:MAX_ARCHS],
        "gpus": list(env.gpus),
        "rocm_version": env.rocm_version,
        "torch_version": env.torch_version,
        "triton_version": env.triton_version,
        "os": env.os,
        "python_version": env.python_version,
        "build_targets": env.build_targets[:MAX_ARCHS],
        "sources": dict(env.sources),
    }
    missing = []
    if not environment["gpu_archs"]:
        missing.append("gpu_arch")
    if not environment["rocm_version"]:
        missing.append("rocm_version")
    if language == "python" and not environment["torch_version"]:
        missing.append("torch_version")
    if uses_triton and not environment["triton_version"]:
        missing.append("triton_version")
    return environment, missing


def _hits(pattern: linear_re.Pattern, text: str) -> int:
    return sum(1 for _ in itertools.islice(pattern.finditer(text), MAX_SYMPTOM_HITS))


def _last_message(text: str) -> str:
    """The last crash or compiler message of the text, looked for from its end."""
    end = len(text)
    while end > 0:
        start = text.rfind("\n", 0, max(0, end - MESSAGE_WINDOW)) + 1
        found = None
        for found in CRASH_MESSAGE_RE.finditer(text[start:end]):  # noqa: B007 - the last one
            pass
        if found is not None:
            return found.group(0).strip()[:500]
        end = start - 1
    return ""


def symptom_extract(text: str) -> tuple[str, str, str]:
    """(symptom, detail, message): a compile error is ("crash", "compile_error", message)."""
    hits = {kind: _hits(pattern, text) for kind, pattern in SYMPTOM_RES.items()}
    # An assertion about numbers is a wrong result, not a crash.
    hits["crash"] = max(0, hits["crash"] - _hits(NUMERIC_ASSERT_RE, text))
    best = max(SYMPTOM_PRIORITY, key=lambda k: (hits[k], -SYMPTOM_PRIORITY.index(k)))
    if hits[best] == 0:
        return NO_SYMPTOM, "", ""
    if best == COMPILE_ERROR:
        return "crash", COMPILE_ERROR, _last_message(text)
    return best, "", _last_message(text) if best == "crash" else ""


def _choose(blocks: list[CodeBlock], result: Extraction) -> CodeBlock | None:
    candidates, snippets = [], []
    for block in blocks:
        kind = _kind(block)
        if kind in ("python", "hip", "kernel_without_imports"):
            score, reason = _score(block, "hip" if kind == "hip" else "python")
            if kind == "kernel_without_imports":
                score -= 1  # a block that imports what it uses is the better reproducer
            candidates.append((score, -block.index, block, kind, reason))
        elif kind == "snippet":
            snippets.append(block)
    if not candidates:
        if snippets:
            result.incomplete = (
                f"needs a complete reproducer: block {snippets[0].index + 1} of {len(blocks)} "
                "has a @triton.jit kernel but never launches it (a reproducer has the kernel, "
                "its inputs and a launch such as kernel[grid](...))"
            )
        return None
    score, _, chosen, kind, reason = max(candidates, key=lambda c: (c[0], c[1]))
    script = chosen.body.rstrip() + "\n"
    if kind == "kernel_without_imports":
        script = STANDARD_IMPORTS + script
        result.imports_added = True
        reason += "; the block has no imports: the standard ones (torch, triton, tl) were added"
        kind = "python"
    result.script = script
    result.language = kind
    result.uses_triton = bool(USES_TRITON_RE.search(script))
    result.uses_torch = bool(USES_TORCH_RE.search(script))
    result.chosen_index = chosen.index
    others = len(candidates) - 1
    result.choice_reason = f"block {chosen.index + 1} of {len(blocks)}: {reason or kind}" + (
        f" (preferred over {others} other candidate{'s' * (others != 1)})" if others else ""
    )
    if len(blocks) >= MAX_CODE_BLOCKS:
        result.choice_reason += f"; only the first {MAX_CODE_BLOCKS} code blocks were read"
    return chosen


CODE_KINDS = ("python", "hip", "kernel_without_imports", "snippet")
MAX_SPAN = 2**62  # "to the end of the body", as a byte offset
# prose before an error that ties it to a variant of the script, not the script as posted
VARIANT_RE = linear_re.compile(
    r"\b(?:if|when|once|after)\s+I\s+(?:change|modify|replace|swap|switch|remove|add|use|try)"
    r"|\b(?:changing|modifying|replacing|swapping)\b|\bmodified (?:version|kernel|code|snippet)"
    r"|\bwith (?:this|that|the following) change",
    linear_re.I,
)


def _prose(body: str, blocks: list[CodeBlock], chosen: CodeBlock | None) -> str:
    """The body without the chosen script's blocks, and without what belongs to another
    snippet: the symptom and the quoted errors are in the prose and the output blocks, not in
    the code that is to run, and not in what a modified copy of it did. Another code block and
    the text after it (up to the script again) are another snippet's; an output block whose
    lead-in says it comes from a variant ("if I change X to Y I get") is too."""
    if chosen is None:
        return body
    script = chosen.body.rstrip()
    cut, other = [], False
    for block in sorted(blocks, key=lambda b: b.span):
        if block.body.rstrip() == script:
            cut.append(block)
            other = False
        elif _kind(block) in CODE_KINDS and block.index > chosen.index:
            cut.append(block)
            other = True  # what follows is about this snippet
        elif other or VARIANT_RE.search(block.context[-300:]):
            cut.append(block)
    return text_without_spans(body, _spans(blocks, cut, script))


def _spans(blocks: list[CodeBlock], cut: list[CodeBlock], script: str) -> list[tuple[int, int]]:
    """The cut blocks' byte spans, another snippet's widened over its prose: up to the next
    block that is not cut, or the end of the body."""
    ordered = sorted(blocks, key=lambda b: b.span)
    spans = []
    for position, block in enumerate(ordered):
        if block not in cut:
            continue
        end = block.span[1]
        if block.body.rstrip() != script:
            later = next((b for b in ordered[position + 1 :] if b not in cut), None)
            end = later.span[0] if later is not None else MAX_SPAN
        spans.append((block.span[0], end))
    return spans


def extract(*, title: str, body: str, time_budget_s: float = TIME_BUDGET_S) -> Extraction:
    body, title = body or "", title or ""
    if len(body) > MAX_EXTRACT_CHARS or len(title) > MAX_EXTRACT_CHARS:
        size = max(len(body), len(title))
        return Extraction(
            problem=f"too large to extract: {size:,} characters, over {MAX_EXTRACT_CHARS:,}"
        )
    budget = Budget(time_budget_s)
    try:
        blocks = code_blocks(body)
        budget.check("the code blocks")
        result = Extraction(block_count=len(blocks))
        chosen = _choose(blocks, result)
        budget.check("the choice of the reproducer")
        prose = _prose(body, blocks, chosen)
        result.symptom, result.symptom_detail, result.symptom_message = symptom_extract(
            f"{title}\n{prose}"
        )
        expected = expected_error(prose)
        result.expected_error = expected.as_dict() if expected else {}
        budget.check("the symptom")
        result.environment, result.missing_facts = environment_extract(
            title, body, language=result.language, uses_triton=result.uses_triton
        )
        budget.check("the environment")
    except BudgetExceeded as exc:
        return Extraction(problem=f"too large to extract: {exc}")
    return result
