"""What one execution showed, and its signature: pure functions over a sandbox result.

A signature groups runs that failed the same way: the exception type with its normalized message
and the top 3 frames of the user's script (innermost first), or the signal, or `timeout`, or the
compiler's first error (hipcc/clang: `file:line:col: error: ...`, `N error generated`).

Markers from our launchers carry the run's nonce (`REPRO-INFRA-<nonce>: ...`), which the
reproducer never sees: a script that prints `REPRO-INFRA:` fakes nothing.
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import asdict, dataclass, field

from config import linear_re
from kernels_ci.sandbox import SandboxResult

INFRA_MARKER = "REPRO-INFRA"
FRAME_RE = linear_re.compile(
    r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)', linear_re.M
)
EXCEPTION_RE = linear_re.compile(
    r"^(?P<type>[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Warning|Fault)"
    r"|[A-Za-z_][\w.]*\.\w+)(: (?P<msg>.*))?$"
)
INVALID_TYPES = {
    "SyntaxError",
    "IndentationError",
    "TabError",
    "ModuleNotFoundError",
    "ImportError",
    "FileNotFoundError",
    "NameError",
    "ConnectionError",
    "ConnectionRefusedError",
    "gaierror",
    "URLError",
}
NETWORK_WORDS = (
    "network access is disabled",
    "Network is unreachable",
    "Name or service not known",
    "Temporary failure in name resolution",
)
COMPILE_WORDS = (
    "CompilationError",
    "assembler rejected",
    "LLVM ERROR",
    "PassManager::run failed",
    "MLIRCompilationError",
)
HIP_ERROR_RE = linear_re.compile(
    r"^(?:(?P<file>[^\s:]+):\d+:\d+: )?(?:fatal )?error: (?P<msg>.+)$|^\d+ errors? generated\.?$",
    linear_re.M,
)
# A failure of the versions, not of the kernel: an API of the stack that this release lacks or
# changed, a removed module, a version check (kind "environment": environment_mismatch)
STACK_PACKAGES = ("triton", "torch")
ENVIRONMENT_PATTERNS = [
    ("removed", r"No module named '(?:triton|torch)[\w.]*'"),
    ("removed", r"cannot import name '[\w.]+' from '(?:triton|torch)[\w.]*'"),
    ("missing API", r"module '(?:triton|torch)[\w.]*' has no attribute '[\w.]+'"),
    ("removed", r"[Bb]lock pointers have been removed"),
    (
        "version check",
        r"\b(?:requires?|needs?)\b[^\n]{0,30}\b(?:triton|torch)\b[^\n]{0,20}\d+\.\d+",
    ),
    (
        "version check",
        r"\b(?:triton|torch)\b[^\n]{0,20}\bversion\b[^\n]{0,40}"
        r"(?:>=|<=|<|>|not supported|too old|too new)",
    ),
]
ENVIRONMENT_RES = [(why, linear_re.compile(pattern)) for why, pattern in ENVIRONMENT_PATTERNS]
# raised inside the stack's own code, these mean its API is not what the script was written for
API_CHANGE_TYPES = {"NotImplementedError"}
API_CHANGE_WORDS = ("unexpected keyword argument", "required positional argument")
# raised inside the stack's own code: a release older than the runner's numpy (NumPy 2 turned
# these into errors; Triton's interpreter before 3.7 hits the first on a runtime loop bound)
NUMPY_WORDS = (
    "only 0-dimensional arrays can be converted to Python scalars",
    "only integer scalar arrays can be converted to a scalar index",
)
# Triton's interpreter wraps what a kernel raised: InterpreterError: NotImplementedError('...')
WRAPPED_RE = linear_re.compile(
    r"^(?P<type>[A-Za-z_]\w*(?:Error|Exception))\((?P<q>['\"])(?P<msg>.*)['\"]\)$"
)
ERROR_LINE_RE = linear_re.compile(
    r"(?i)\berror\b|\bexception\b|assert|\bfailed\b|\bmismatch|not close|"
    r"\bcannot\b|\bunsupported\b|\bnot supported\b|\binvalid\b|\bnan\b"
)
MAX_ERROR_LINES = 12
SANDBOX_LIMITS = {"processes", "file size", "disk"}  # a reproducer that needs more cannot run here
WRONG_RESULT_WORDS = ("not close", "Mismatched elements", "mismatch", "wrong result")


@dataclass
class Observation:
    # pass | wrong_result | crash | hang | compile_error | environment | invalid | infra
    kind: str
    signature: str = ""
    exit_code: int | None = None
    duration_s: float = 0.0
    message: str = ""
    # kernels the script launched (interpreted or compiled), counted by the launcher; None where
    # the backend cannot count them (a container) or the process ended before it could write
    launches: int | None = None
    # the output's error lines, normalized: what a reported error message is compared with
    error_lines: list[str] = field(default_factory=list)
    environment: str = ""  # kind "environment": what about the versions made it fail

    def as_dict(self) -> dict:
        data = asdict(self)
        data["duration_s"] = round(self.duration_s, 3)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> Observation:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)


def signature_hash(signature: str) -> str:
    return (
        hashlib.sha1(signature.encode("utf-8"), usedforsecurity=False).hexdigest()[:12]
        if signature
        else ""
    )


MAX_MESSAGE_CHARS = 2000  # of a message, normalized (the signature keeps its first 200)
MAX_FRAMES = 1000  # Python prints no more of a traceback (the recursion limit)


def normalize_message(message: str) -> str:
    message = message[:MAX_MESSAGE_CHARS]
    message = linear_re.sub(r"(/[\w.\-]+)*/repro-[\w]+", "<dir>", message)
    message = linear_re.sub(r"0x[0-9a-fA-F]+", "0x?", message)
    message = linear_re.sub(r"\b[0-9a-f]{12,}\b", "<hash>", message)
    message = linear_re.sub(r"\b\d+(\.\d+)?(e[-+]?\d+)?\b", "N", message)
    message = linear_re.sub(r"\s+", " ", message).strip()
    return message[:200]


def _last_traceback(text: str) -> tuple[list[tuple[str, str]], str, str] | None:
    start = text.rfind("Traceback (most recent call last):")
    if start < 0:
        return None
    block = text[start:]
    found = itertools.islice(FRAME_RE.finditer(block), MAX_FRAMES)
    frames = [(m.group("file"), m.group("func")) for m in found]
    exc_type, message = "", ""
    lines = block.splitlines()[1:]
    for i, line in enumerate(lines):
        if line and not line[0].isspace():
            match = EXCEPTION_RE.match(line.strip())
            if match:
                exc_type = match.group("type")
                message = match.group("msg") or ""
                if exc_type.endswith("CompilationError"):
                    rest = [x.strip() for x in lines[i + 1 :] if x.strip()]
                    message = rest[-1] if rest else message
                break
    if not exc_type:
        return None
    return frames, exc_type, message


def exception_signature(exc_type: str, message: str, frames: list[tuple[str, str]], script: str):
    short_type = exc_type.rsplit(".", 1)[-1]
    user = [func for file, func in reversed(frames) if file.rsplit("/", 1)[-1] == script][:3]
    signature = f"{short_type}: {normalize_message(message)}" if message else short_type
    if user:
        signature += " | " + " < ".join(user)
    return signature[:500]


def infra_marker(nonce: str) -> str:
    return f"{INFRA_MARKER}-{nonce}:"


def compile_error_signature(output: str) -> str:
    """`error: <normalized message> | <file>` of the compiler's first error, or ''."""
    for match in HIP_ERROR_RE.finditer(output):
        if match.group("msg"):
            where = (match.group("file") or "").rsplit("/", 1)[-1]
            return (
                f"error: {normalize_message(match.group('msg'))}" + (f" | {where}" if where else "")
            )[:500]
    return ""


def unwrap(exc_type: str, message: str) -> tuple[str, str]:
    """An exception the interpreter wrapped (`InterpreterError: NotImplementedError('x')`) as
    what the kernel raised: ("NotImplementedError", "x")."""
    if exc_type.rsplit(".", 1)[-1] == "InterpreterError":
        found = WRAPPED_RE.match(message.strip())
        if found:
            return found.group("type"), found.group("msg")
    return exc_type, message


def environment_reason(exc_type: str, message: str, frames: list[tuple[str, str]]) -> str:
    """Why an exception is the versions' doing, not the kernel's ("" when it is not): the
    stack lacks a module or an API the script uses (triton.language has no attribute ...), a
    version check refused, or the stack's own code says it does not implement it any more."""
    short = exc_type.rsplit(".", 1)[-1]
    text = f"{short}: {message}"
    for why, pattern in ENVIRONMENT_RES:
        found = pattern.search(text)
        if found:
            return f"{why}: {found.group(0)}"[:300]
    innermost = frames[-1][0] if frames else ""
    in_stack = any(f"/{package}/" in innermost for package in STACK_PACKAGES)
    if in_stack and (short in API_CHANGE_TYPES or any(w in message for w in API_CHANGE_WORDS)):
        return f"API: {short}: {normalize_message(message)}"[:300]
    if in_stack and any(word in message for word in NUMPY_WORDS):
        return f"numpy: this release predates the runner's numpy ({normalize_message(message)})"
    return ""


def error_lines(output: str) -> list[str]:
    """The output's last lines that say what went wrong, normalized (paths, numbers and
    addresses masked), for comparing with an error a report quotes."""
    found = []
    for line in reversed(output[-64 * 1024 :].splitlines()):
        if len(found) >= MAX_ERROR_LINES:
            break
        if line.strip() and ERROR_LINE_RE.search(line) and not line.lstrip().startswith("File "):
            found.append(normalize_message(line))
    return found[::-1]


def _kind_of_exception(exc_type: str, message: str, output: str) -> str:
    short = exc_type.rsplit(".", 1)[-1]
    if any(word in message for word in NETWORK_WORDS) or short in INVALID_TYPES:
        return "invalid"
    if short.endswith("CompilationError") or any(word in output for word in COMPILE_WORDS):
        return "compile_error"
    if short == "AssertionError" or any(word in message for word in WRONG_RESULT_WORDS):
        return "wrong_result"
    return "crash"


def observe(result: SandboxResult, *, script: str = "repro.py") -> Observation:
    base = {"exit_code": result.returncode, "duration_s": result.duration_s}
    output = result.output
    marker = infra_marker(result.nonce) if result.nonce else None
    for line in output.splitlines() if marker else ():
        if line.startswith(marker):
            message = line[len(marker) :].strip()
            return Observation(
                "infra", signature=f"infra: {normalize_message(message)}", message=message, **base
            )
    if result.timed_out and result.limit == "memory":  # at its memory ceiling until the timeout
        message = "stopped by the sandbox: at its memory limit until the timeout"
        return Observation("invalid", signature="sandbox limit: memory", message=message, **base)
    if result.timed_out:
        return Observation("hang", signature="timeout", message="wall-clock timeout", **base)
    if result.limit in SANDBOX_LIMITS:
        message = f"stopped by the sandbox: over its {result.limit} limit"
        return Observation(
            "invalid", signature=f"sandbox limit: {result.limit}", message=message, **base
        )
    if result.signal_name:
        kind = "hang" if result.signal_name == "SIGXCPU" else "crash"
        signature = "timeout (cpu limit)" if kind == "hang" else f"signal {result.signal_name}"
        return Observation(kind, signature=signature, message=result.signal_name, **base)
    if result.returncode == 0:
        return Observation("pass", **base)
    base["error_lines"] = error_lines(output)
    parsed = _last_traceback(result.stderr) or _last_traceback(output)
    if parsed:
        frames, exc_type, message = parsed
        exc_type, message = unwrap(exc_type, message)
        why = environment_reason(exc_type, message, frames)
        kind = "environment" if why else _kind_of_exception(exc_type, message, output)
        return Observation(
            kind,
            signature=exception_signature(exc_type, message, frames, script),
            message=f"{exc_type}: {message}"[:500],
            environment=why,
            **base,
        )
    last = next((x for x in reversed(output.splitlines()) if x.strip()), "")
    compiler = compile_error_signature(output)
    if compiler:
        return Observation("compile_error", signature=compiler, message=compiler, **base)
    kind = "compile_error" if any(w in output for w in COMPILE_WORDS) else "crash"
    signature = f"exit {result.returncode}" + (f": {normalize_message(last)}" if last else "")
    return Observation(kind, signature=signature[:500], message=last[:500], **base)
