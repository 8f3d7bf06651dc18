"""Pure extraction of a repro case from an issue's title and body: no database, no execution.

- the reproducer: one fenced code block (``` or ~~~, also inside <details>), Python using Triton
  or torch, or HIP C++ (`__global__`, `hipLaunchKernelGGL`); among several, the best scored;
- the reported symptom: wrong result, crash (with its message), hang, compile error;
- the environment: classifiers.extraction's facts (GPU, gfx architectures, ROCm, OS, versions),
  completed with what a reproducer needs that its rules do not read (gfx targets such as gfx90a,
  torch's collect_env "PyTorch version:" and pip names such as pytorch-triton-rocm==), and the
  facts missing for a run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from classifiers.extraction import MAX_BODY_CHARS
from classifiers.extraction import environment_extract as classifier_environment

FENCE_RE = re.compile(
    r"^(?P<indent>[ \t]{0,3})(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)\n"
    r"(?P<body>.*?)^[ \t]{0,3}(?P=fence)[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
PYTHON_INFOS = {"python", "py", "python3", "py3", "pycon", "ipython"}
HIP_INFOS = {"cpp", "c++", "hip", "cc", "cxx", "c", "cuda", "hpp", "h"}
HIP_MARKERS = ("__global__", "hipLaunchKernelGGL", "hip/hip_runtime.h", "hipMalloc")
OUTPUT_MARKERS = ("Traceback (most recent call last)", "$ ", ">>> ")
REPRO_HINT_RE = re.compile(
    r"\b(repro(ducer|duce|duction)?|minimal|example|steps to reproduce)\b", re.I
)

ARCH_RE = re.compile(r"\bgfx(\d{2,4}[a-z]?)\b", re.I)
VERSION = r"v?(\d+\.\d+(?:\.\d+)?(?:[.+\-][0-9A-Za-z.+]*)?)"
TORCH_RES = [
    re.compile(r"\bPyTorch\s+version\s*:\s*" + VERSION, re.I),
    re.compile(r"\btorch(?:\.__version__)?\s*(?:==|=|:|\s)\s*" + VERSION, re.I),
    re.compile(r"\bpytorch\s+" + VERSION, re.I),
]
TRITON_RES = [
    re.compile(
        r"\b(?:pytorch-)?triton(?:-rocm)?(?:\.__version__)?\s*(?:==|=|:|\s)\s*" + VERSION, re.I
    ),
    re.compile(r"\btriton\s+version\s*:?\s*" + VERSION, re.I),
]

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
CRASH_MESSAGE_RE = re.compile(
    r"^.*(Segmentation fault|Memory access fault[^\n]*|illegal memory access[^\n]*|"
    r"HSA_STATUS_ERROR\w*[^\n]*|LLVM ERROR:[^\n]*|core dumped|\b\w+(Error|Exception): [^\n]+).*$",
    re.M,
)


@dataclass
class CodeBlock:
    info: str
    body: str
    index: int
    context: str = ""

    @property
    def lang(self) -> str:
        return (self.info.split() or [""])[0].lower().strip("{}.")


@dataclass
class Extraction:
    script: str = ""
    language: str = ""  # python | hip | ""
    uses_triton: bool = False
    uses_torch: bool = False
    block_count: int = 0
    chosen_index: int | None = None
    choice_reason: str = ""
    symptom: str = "unknown"
    symptom_message: str = ""
    environment: dict = field(default_factory=dict)
    missing_facts: list[str] = field(default_factory=list)

    @property
    def archs(self) -> list[str]:
        return list(self.environment.get("gpu_archs", []))

    def suggested_backend(self) -> str:
        if self.language == "python" and self.uses_triton:
            if self.symptom == "compile_error":
                return "triton-amd-compile"
            return "triton-interpreter"
        if self.language:
            return "rocm-container"
        return ""


def code_blocks(text: str) -> list[CodeBlock]:
    text = text.replace("\r\n", "\n")
    blocks = []
    for index, match in enumerate(FENCE_RE.finditer(text)):
        before = text[max(0, match.start() - 300) : match.start()]
        body = _dedent(match.group("body"), len(match.group("indent")))
        blocks.append(
            CodeBlock(info=match.group("info").strip(), body=body, index=index, context=before)
        )
    return blocks


def _dedent(body: str, indent: int) -> str:
    if not indent:
        return body
    return "\n".join(
        line[indent:] if line[:indent].isspace() else line for line in body.split("\n")
    )


def _kind(block: CodeBlock) -> str:
    body, lang = block.body, block.lang
    if any(marker in body for marker in HIP_MARKERS) and lang not in PYTHON_INFOS:
        return "hip"
    looks_python = lang in PYTHON_INFOS or re.search(r"^\s*(import|from)\s+\w+", body, re.M)
    if looks_python and re.search(r"^\s*(import|from)\s+(triton|torch)\b", body, re.M):
        if body.lstrip().startswith(OUTPUT_MARKERS):
            return "output"
        return "python"
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
        if re.search(r"\w+\[[^\]]+\]\s*\(", body) and "@triton.jit" in body:
            score += 3
            reasons.append("a launch")
        if re.search(r"assert|allclose|assert_close|print\(", body):
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
    score += min(len(body.splitlines()), 80) / 40
    return score, ", ".join(reasons)


def _first(patterns: list[re.Pattern], text: str) -> str:
    for pattern in patterns:
        match = pattern.search(text)
        if match:
            return match.group(1).rstrip(".,;)")
    return ""


def environment_extract(
    title: str, body: str, *, language: str = "", uses_triton: bool = False
) -> tuple[dict, list[str]]:
    """The environment facts and the names of those a run would need but the issue lacks."""
    env = classifier_environment(title, body)
    text = f"{title}\n{body}"
    archs = list(env.architectures)
    for match in ARCH_RE.finditer(text):
        arch = f"gfx{match.group(1).lower()}"
        if arch not in archs:
            archs.append(arch)
    environment = {
        "gpu_archs": archs,
        "gpus": list(env.gpus),
        "rocm_version": env.rocm_version,
        "torch_version": env.torch_version or _first(TORCH_RES, text),
        "triton_version": env.triton_version or _first(TRITON_RES, text),
        "os": env.os,
        "python_version": env.python_version,
        "sources": dict(env.sources),
    }
    missing = []
    if not archs:
        missing.append("gpu_arch")
    if not environment["rocm_version"]:
        missing.append("rocm_version")
    if language == "python" and not environment["torch_version"]:
        missing.append("torch_version")
    if uses_triton and not environment["triton_version"]:
        missing.append("triton_version")
    return environment, missing


def symptom_extract(text: str) -> tuple[str, str]:
    hits = {}
    for kind, patterns in SYMPTOM_PATTERNS.items():
        hits[kind] = sum(len(re.findall(p, text, re.I | re.M)) for p in patterns)
    # An assertion about numbers is a wrong result, not a crash.
    asserts = len(re.findall(r"AssertionError|Mismatched elements|not close", text))
    hits["crash"] = max(0, hits["crash"] - asserts)
    best = max(SYMPTOM_PRIORITY, key=lambda k: (hits[k], -SYMPTOM_PRIORITY.index(k)))
    if hits[best] == 0:
        return "unknown", ""
    message = ""
    if best in ("crash", "compile_error"):
        found = [m.group(0).strip() for m in CRASH_MESSAGE_RE.finditer(text)]
        message = found[-1][:500] if found else ""
    return best, message


def extract(*, title: str, body: str) -> Extraction:
    # past GitHub's cap (65,536 characters) four times over a body is hostile: read its start only
    body = (body or "")[:MAX_BODY_CHARS]
    title = (title or "")[:MAX_BODY_CHARS]
    blocks = code_blocks(body)
    result = Extraction(block_count=len(blocks))
    candidates = []
    for block in blocks:
        kind = _kind(block)
        if kind in ("python", "hip"):
            score, reason = _score(block, kind)
            candidates.append((score, -block.index, block, kind, reason))
    chosen = None
    if candidates:
        score, _, chosen, kind, reason = max(candidates, key=lambda c: (c[0], c[1]))
        result.script = chosen.body.rstrip() + "\n"
        result.language = kind
        result.uses_triton = bool(
            re.search(r"^\s*(import|from)\s+[\w., ]*\btriton\b", chosen.body, re.M)
        )
        result.uses_torch = bool(
            re.search(r"^\s*(import|from)\s+[\w., ]*\btorch\b", chosen.body, re.M)
        )
        result.chosen_index = chosen.index
        others = len(candidates) - 1
        result.choice_reason = f"block {chosen.index + 1} of {len(blocks)}: {reason or kind}" + (
            f" (preferred over {others} other candidate{'s' * (others != 1)})" if others else ""
        )
    # The symptom comes from the prose and the output blocks, not from the chosen script.
    prose = FENCE_RE.sub(
        lambda m: (
            ""
            if chosen is not None and m.group("body").rstrip() + "\n" == result.script
            else m.group(0)
        ),
        body.replace("\r\n", "\n"),
    )
    result.symptom, result.symptom_message = symptom_extract(f"{title}\n{prose}")
    result.environment, result.missing_facts = environment_extract(
        title, body, language=result.language, uses_triton=result.uses_triton
    )
    return result
