"""symptom: what goes wrong in a report (a crash, a hang, wrong results, ...), by rules and a model.

Rules read the title, the body's prose, its code and log blocks and the issue's labels: each rule
is a phrase of one symptom with its weight, and where it was found weighs too (the title most;
a log block's lines count only for the phrases logs print, at a discount; a label counts like the
title). Read are words, never URLs ("High-Performance" in a link is not a performance report),
HTML comments (the issue form's hints) or the rocminfo dump of the issue form (its "Feature"
and "Queue" lines describe the GPU); the bare words "error" and "fails" are no symptom (a build
failure says "error" as much as a crash does). The symptom with the most points wins, the worst
outcome first on a tie (a report that hangs and is then killed by a watchdog is a hang); with
fewer than DECIDING_POINTS nothing is clear and the rules say `other`.

The rules give the evidence (the words and fields that decided it) and the weak labels the model
trains on; the model decides where the rules find nothing and it is sure (its class's precision
threshold, measured out of fold), and over the rules once it has learned from triagers'
decisions (decisions_to_overrule(): triagers' corrections, maintainers' labels, labelled real
reports) and is sure; a triager's decision stands above both.
kernels_ci's reported symptom is read in these labels too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from classifiers.entries import ModelEntry
from classifiers.extraction import form_sections
from classifiers.facts import IssueFacts
from classifiers.markdown_blocks import code_blocks, text_without
from classifiers.text_classifier import Prediction, TextClassifier
from config import linear_re

LABELS = (
    "crash",
    "hang",
    "wrong_result",
    "performance",
    "build",
    "install",
    "docs",
    "feature",
    "question",
    "other",
)
FAILURES = ("crash", "hang", "wrong_result")  # what a kernel reproducer can show
# On equal points the first of these wins: the worse outcome, then the more specific report.
PRECEDENCE = (
    "wrong_result",
    "hang",
    "crash",
    "install",
    "build",
    "performance",
    "docs",
    "feature",
    "question",
)
DECIDING_POINTS = 2.0
FALLBACK = "crash"  # the commonest symptom of a report, the guess where no clue speaks
FIELD_WEIGHTS = {"title": 2.0, "label": 1.5, "body": 1.0, "log": 0.7, "dump": 0.7, "opening": 1.0}
OPENING_CHARS = 400  # the description's opening, where a question is asked
# A model outranks the rules, where it is sure, once it learned from this many people's decisions
# (triagers' corrections, maintainers' labels, labelled real reports; settings
# CLASSIFIER_DECISIONS_TO_OVERRULE). Trained on the 185 labelled reports of the real set's tuning
# part, a model that outranked the rules lost 0.027 of symptom and of kind on its check part (it
# memorised its own reports and was "sure" of too many others): a few hundred are not enough.
MIN_CORRECTIONS_TO_OVERRULE = 1000


def decisions_to_overrule() -> int:
    """How many people's decisions a model needs before it outranks the rules."""
    try:
        return int(
            getattr(settings, "CLASSIFIER_DECISIONS_TO_OVERRULE", MIN_CORRECTIONS_TO_OVERRULE)
        )
    except ImproperlyConfigured:  # used outside a configured Django project
        return MIN_CORRECTIONS_TO_OVERRULE


MAX_READ_CHARS = 65_536  # GitHub's cap on a body: the rest is a pasted log
MAX_LOG_CHARS = 16_384

STRONG, WEAK = 3.0, 1.0


@dataclass(frozen=True)
class Rule:
    """A phrase of one symptom. `where`: "all" fields, "prose" (title, body, labels), "log" or
    "title" only. An `ending` is how a process ends (aborted, killed, an exception): it counts
    for a crash only when no hang or wrong result is clear, which end that way too."""

    symptom: str
    weight: float
    pattern: str
    where: str = "all"
    ending: bool = False


LIBRARIES = (
    r"(?:rocBLAS(?:Lt)?|hipBLAS(?:Lt)?|MIOpen|RCCL|NCCL|HIP|CUDA|HSA|hipFFT|rocFFT|rocSOLVER|rocSPARSE|"
    r"MIGraphX|Tensile|hipSPARSE|rocRAND|CK|composable_kernel|Triton)"
)
RULES: list[Rule] = [
    # crash: segfault, abort, exception, HIP error, GPU reset, compiler crash (also of a model
    # or a kernel compiled as it runs: JIT, Triton, MIGraphX)
    Rule(
        "crash",
        STRONG,
        r"\bsegfault\w*|segmentation fault|\bSIG(?:SEGV|BUS|ILL|FPE)\b|"
        r"memory access fault|page fault|illegal (?:memory|address|instruction)|"
        r"\bhipError[A-Z]\w*|\bHIP error|HSA_STATUS_ERROR\w*|"
        r"\bgpu (?:reset|recovery|hard reset)\w*|\b(?:reset|recovery) of the gpu|kernel panic|"
        r"\bcrash(?:es|ed|ing)?\b|internal compiler error|LLVM ERROR|compiler crash|"
        r"PLEASE submit a bug report|CompilationError|out of memory|\bOOM\b|"
        rf"\b{LIBRARIES} (?:error|exception|failure|fatal)\b|"
        r"\b(?:HIPBLAS|HIPBLASLT|ROCBLAS|MIOPEN|RCCL|HIPFFT|ROCFFT)_STATUS_(?:NOT_|INVALID|"
        r"INTERNAL|ALLOC|EXECUTION|MAPPING|ARCH|UNKNOWN|BAD|UNSUPPORTED|MEMORY)\w*|"
        r"\bcompil(?:e|es|ing|ation)\b[^.\n]{0,40}\b(?:models?|kernels?|graphs?|onnx|mlir|"
        r"jit)\b|\b(?:models?|kernels?|graphs?|onnx|jit|triton)\b[^.\n]{0,30}\bcompil\w*|"
        # a call that returns or throws an error (an API's failure code, an exception)
        r"\breturn(?:s|ed|ing)? (?:an? |the )?(?:error|failure|status) ?(?:code )?\d*\b|"
        r"\bthrow(?:s|ing|n)? (?:an? |the )?(?:\w+ ){0,2}(?:error|exception)\b|"
        r"\b(?:fails?|failed|failing|dies|died|exits?|exited|quits?) with (?:an? |the )?"
        r"(?:\w+ )?(?:error|exception|exit code|signal|status)\b",
    ),
    Rule(
        "crash",
        STRONG,
        r"\babort(?:s|ed|ing)?\b|\bSIGABRT\b|terminate called|core dump|dumped core|"
        r"\b(?:Runtime|Attribute|Type|Value|Key|Index|Assertion|OS|Memory|Recursion|Overflow)"
        r"Error\b(?:: )?|\bNullPointerException\b",
        ending=True,
    ),
    Rule(
        "crash",
        WEAK,
        r"\bexception\b|\bthrows?\b|\bkilled\b|\berror code\b|\bexit code\b|"
        r"\b(?:unable|fails?|failed|cannot|can't) to (?:launch|start|run|load|execute|open|"
        r"initiali[sz]e|allocate|create|map)\b|\b(?:stopped|stops|not|isn't|doesn't|does not|"
        r"won't|no longer) (?:working|work|run|running|launch|start)\b",
        "prose",
        ending=True,
    ),
    Rule(
        "crash",
        WEAK,
        r"Traceback \(most recent call last\)|\b\w+(?:Error|Exception): |"
        r"Memory map:|Backtrace:|stack trace|#\d+ +0x[0-9a-f]+ in ",
        "log",
        ending=True,
    ),
    # hang
    Rule(
        "hang",
        STRONG,
        r"\bhang(?:s|ing|ed)?\b|\bhung\b|\bfreez(?:e|es|ing)\b|\bfroze(?:n)?\b|\bstuck\b|"
        r"deadlock|\bstall(?:s|ed|ing)?\b|never (?:returns|finishes|completes|ends|terminates)|"
        r"waits? forever|indefinitely|unresponsive|not respond(?:ing)?|\btim(?:es|ed) out\b|"
        r"\btimeout\b|watchdog|no progress|\block(?:s|ed)? up\b|full lock|ring \w+ timeout|"
        r"infinite loop|\b(?:runs?|running|waits?|waiting) forever",
    ),
    # wrong_result: NaN, garbage, mismatch, silent corruption
    Rule(
        "wrong_result",
        STRONG,
        r"\b(?:wrong|incorrect|bad|invalid|inaccurate|erroneous)(?: [\w.-]+){0,2} "
        r"(?:results?|outputs?|answers?|values?|numbers?|numerics|data|images?|tokens?|text)\b|"
        r"\b(?:results?|outputs?|values?|answers?|data|images?)\b[^.\n]{0,40}\b(?:is|are|was|were|"
        r"be) (?:(?:not|n't) (?:correct|right|accurate)|wrong|incorrect|off|inaccurate|"
        r"different|inconsistent|zeros?|0|corrupted|garbled|nonsense)\b|"
        r"\b(?:is|are|was|were) not (?:correct|right)\b|incorrectly\b|"
        r"\b(?:shows?|showing|returns?|returning|reports?|reporting|produces?|producing|"
        r"outputs?|outputting|gives?|giving|generates?|generating|reads?) (?:only |all |back )?"
        r"(?:zeros?|0s|nans?|infs?|garbage|gibberish|wrong|incorrect|random|negative|"
        r"corrupted|empty|blank)\b|"
        r"\bwhen it should (?:return|be|give|produce)|\bexpected\b[^.\n]{0,60}\bbut (?:got|was|is|"
        r"returned|gives?)\b|"
        r"\bgarbage\b|gibberish|\bnonsense\b|\bnans?\b|mismatch\w*|not close|\ballclose\b|"
        r"assert_close|Mismatched elements|"
        r"accuracy (?:drop|degradation|loss|issue|problem|regression)|"
        r"(?:loss|lost) of precision|precision (?:loss|issue|problem)|\bsilent(?:ly)?\b|"
        r"\bcorrupt(?:s|ed|ion)?\b|verif(?:y|ication) (?:errors?|fail\w*)|"
        r"validation fail\w*|fails? (?:verification|validation)|\bcorrectness\b|"
        r"numerical(?:ly)? (?:errors?|issues?|differences?|instability|mismatch\w*)|"
        r"\b(?:accumulation|rounding|numerical|relative|absolute|max(?:imum)?) "
        r"(?:abs(?:olute)? |rel(?:ative)? )?(?:errors?|err|diff(?:erence)?s?)\b|"
        r"inaccura(?:te|cy)|differ(?:s|ent)? from|non-?determinis\w*|"
        r"\brepeat(?:s|ing|ed)? (?:the same|itself)\b|"
        r"(?:does not|do not|doesn't|don't|did not) match|\ball zeros\b|"
        r"\b(?:0|zero)-valued\b|black (?:images?|outputs?)|Difference at \d|AssertionError",
    ),
    # performance: the complaint ("slower", "a performance regression"); metrics alone are weak
    Rule(
        "performance",
        STRONG,
        r"\bslow(?:er|ly|s|down|downs)?\b|performance (?:regression|drop|degradation|issue|"
        r"problem|loss|gap|is (?:poor|bad|low))|(?:poor|low|bad|worse) performance|"
        r"\bperf (?:regression|drop)|\d+(?:\.\d+)?\s*(?:x|times) (?:slower|faster)|"
        r"underperform\w*|(?:low|poor) (?:gpu )?utili[sz]ation|"
        r"(?:high|huge|excessive|increased) (?:vram |memory |gpu memory |cpu )?(?:usage|use|"
        r"consumption)|memory (?:leak|footprint|usage)|\bleaks? memory\b",
        "prose",
    ),
    Rule(
        "performance",
        WEAK,
        r"\bperformance\b|\bperf\b|\bbenchmark\w*|\bspeed\b|\bbandwidth\b|throughput|latency|"
        r"\bt?flops\b|tokens?/s\b|takes (?:a long time|forever)|it/s\b",
        "prose",
    ),
    # build: the stack's own build (from source, cmake, the linker), a program's compilation
    Rule(
        "build",
        STRONG,
        r"\bbuild(?:ing)? (?:fails?|failed|failure|errors?|broken|issues?|problems?)|"
        r"\b(?:fails?|failed|unable|cannot|can't|error) (?:to )?build\b|"
        r"\bbuilds? (?:are |is )?failing\b|build(?:ing)? from source|"
        r"CMake Error|undefined reference|\blinker? (?:errors?|fails?|failed)|ld(?:\.lld)?: error|"
        r"ninja: build stopped|make(?:\[\d+\])?: \*\*\*|Could NOT find|"
        r"fatal error: [\w./-]+: No such file|fatal error: '[^'\n]{1,200}' file not found|"
        r"Failed building wheel|"
        r"\b(?:fails?|failed|unable) to compile\b|\bcompil(?:e|ation) (?:fails?|failed|failure|"
        r"errors?|terminated)\b|clang(?:\+\+)?: error|hipcc: error|linker command failed|"
        r"error: (?:use of undeclared|no matching|unknown type|expected|no member)",
    ),
    Rule(
        "build",
        WEAK,
        r"\bcompil(?:e|ing|ation|er)\b|\bbuild(?:s|ing)?\b|\bcmake\b",
        "prose",
    ),
    # install: packages, driver, dkms, GPU not detected, the runtime's set-up
    Rule(
        "install",
        STRONG,
        r"\binstall(?:ation|ing|er)? (?:fails?|failed|failure|errors?|issues?|problems?|broken)|"
        r"\b(?:fails?|failed|unable|cannot|can't) (?:to )?(?:install|uninstall)\b|"
        r"\bdkms\b|unmet dependencies|held broken packages|Unable to locate package|"
        r"(?:gpus?|devices?|cards?|agents?)\b[^.\n]{0,30}\b(?:is |are )?not (?:being )?"
        r"(?:detected|found|recogni[sz]ed|listed|shown|visible)|"
        r"\b(?:not|never|aren'?t|isn'?t|wasn'?t|weren'?t) (?:being )?(?:detected|recogni[sz]ed)\b|"
        r"\b(?:doesn't|does not|don't|do not|can't|cannot|unable to|fails? to|won't) "
        r"(?:detect|recogni[sz]e)\w*\b|"
        r"\b(?:doesn't|does not|don't|do not|can't|cannot|unable to|fails? to|won't|not) "
        r"(?:detect|see|find|recogni[sz]e|show|list)\w* (?:the |my |any |a |an )?"
        r"(?:[\w-]+ )?(?:gpus?|devices?|cards?|agents?)\b|"
        r"no (?:gpus?|devices?|agents?) (?:found|detected|available)|"
        r"is_available\(\) (?:returns )?False|"
        r"/dev/kfd|secure boot|\bmodprobe\b|kernel module|package conflicts?|"
        r"conflicting packages|dependency (?:conflict|error|hell)|"
        r"ROCk module (?:is )?not loaded|no (?:gpu|hip|rocm) devices?\b|"
        r"no agents? (?:was |were )?found|"
        r"(?:video|render) group|"
        r"cannot open shared object|error while loading shared libraries|undefined symbol|"
        r"(?:shows?|show|showing) up\b[^.\n]{0,20}\b(?:only|not)|doesn't show up|"
        r"does not show up|\b(?:runs?|running|ran|falls? back|fell back|fallback) (?:only )?"
        r"(?:on|to) (?:the )?cpu\b|"
        r"\bnot (?:using|use|used) (?:the |my )?gpu\b|\buses? (?:the )?cpu instead\b",
        "prose",
    ),
    Rule(
        "install",
        STRONG,
        r"unmet dependencies|held broken packages|Unable to locate package|dpkg: error|"
        r"Bad return status for module build|ROCk module (?:is )?NOT loaded|"
        r"Unable to open /dev/kfd|cannot open shared object|"
        r"error while loading shared libraries",
        "log",
    ),
    # rocminfo's own output saying the runtime cannot start on this machine
    Rule(
        "install",
        STRONG,
        r"ROCk module (?:is )?NOT loaded|Unable to open /dev/kfd|hsa api call failure|"
        r"HSA_STATUS_ERROR\w*|Permission denied|video group membership",
        "dump",
    ),
    # no GPU for HIP, or the runtime cannot start at all: more than the error it is says
    Rule(
        "install",
        STRONG + WEAK,
        r"hipErrorNoDevice|no ROCm-capable device|HSA_STATUS_ERROR_OUT_OF_RESOURCES|"
        r"hsa api call failure",
    ),
    Rule(
        "install",
        WEAK,
        r"\binstall(?:ation|ing|ed|er|s)?\b|\bpackages?\b|\bapt(?:-get)?\b|\bdrivers?\b|"
        r"amdgpu-install|\bdpkg\b|\brpm\b|\byum\b|\bdnf\b|\bzypper\b|\bpip\b|\bpacman\b|"
        r"\bAUR\b|\bHIP SDK\b|\bsetup\b|\bset up\b|\bconfigur(?:e|ation)\b|\bdocker\b|"
        r"\bcontainer\b|\bwsl2?\b|\bdependenc(?:y|ies)\b|No module named|ImportError",
        "prose",
    ),
    # docs
    Rule(
        "docs",
        STRONG,
        r"\bdocumentation\b|\bdocs?\b|\btypo\w*|broken links?|dead links?|\breadme\b|"
        r"\bdocstrings?\b|not documented|undocumented|\bdoc page\b|"
        r"(?:incorrect|wrong|outdated|missing|unclear|broken|confusing|misleading)"
        r"(?: [\w.-]+){0,3} (?:instructions|documentation|docs|guide|steps|tables?)\b|"
        r"\b(?:instructions|guide|tutorial|page|link|docs)\b[^.\n]{0,30}\b(?:is|are) "
        r"(?:wrong|incorrect|outdated|out of date|misleading|broken|missing|not working|"
        r"dead|unclear|confusing)\b|\blinks? (?:is |are )?(?:not working|broken|dead|404)",
        "prose",
    ),
    Rule("docs", WEAK, r"\btutorial\b|\bguide\b|\binstructions\b|\bdocumented\b", "prose"),
    # feature
    Rule(
        "feature",
        STRONG,
        r"feature requests?|\[feature\]|\benhancement\b|\bplease (?:add|support|implement)|"
        r"\badd(?:ing)? support (?:for|of)|\b(?:would|it'd) be (?:nice|great|useful|helpful)|"
        r"\bRFC\b|\bproposal\b|\bcould you (?:add|support|implement)|"
        r"\b(?:request(?:ing)?|want|need|wish|like) (?:to have |for )?(?:an? )?(?:option|flag|"
        r"api|way|ability|support) to\b|\bsuggestion description\b",
        "prose",
    ),
    Rule(
        "feature",
        WEAK,
        r"^\s*(?:\[[^\]]{1,40}\]:?\s*)*(?:support|add|implement|enable|request|allow|expose"
        r"|provide|make|introduce)\b|\bsupport\b|\bnot supported\b",
        "title",
    ),
    # question: a question-shaped title ("Is there a ROCm version that supports gfx1151?")
    Rule(
        "question",
        STRONG,
        r"^\s*(?:\[[^\]]{1,40}\]:?\s*)*(?:(?:how|what|why|which|where|who|whether)\b|"
        r"(?:is|are) (?:there|it|this|that)\b|(?:does|do|can|could|will|would|should) "
        r"(?:i|we|you|rocm|it|the|this|anyone|someone|amd|hip|pytorch|triton)\b|"
        r"any (?:plans?|update|news|eta|timeline)\b)|\?\s*$|\bquestion\b|\bhelp (?:with|needed)"
        r"|\bnot sure (?:if|whether|how|what|why)\b|\bhow to\b|\bguidance\b|\badvice\b",
        "title",
    ),
    # a question asked in the description: weaker than a title (a bug report may end "Any ideas?")
    Rule(
        "question",
        WEAK * 2,
        r"\bI (?:wonder(?:ed)?|was wondering|would like to know|want to know|am wondering)\b|"
        r"\bis (?:there|it) (?:a|any) (?:way|possib\w+|plan|option)\b|\bis it possible\b|"
        r"\bhow (?:can|could|do|should) (?:i|we|one)\b|\blooking for (?:an? |some )?(?:way|tool|"
        r"guide|advice|help|recommendation)|\bany (?:advice|suggestions?|recommendations?|"
        r"guidance|pointers)\b|\bcan (?:someone|anyone) (?:explain|tell|help|confirm)\b|"
        r"\bnot sure (?:if|whether|how)\b|\bwhich (?:one|gpu|version|distro) should\b|"
        r"\bIssue Type\W+Support\b",
        "prose",
    ),
    # the description opens with a question ("How is HSA_OVERRIDE_GFX_VERSION set per GPU?")
    Rule(
        "question",
        WEAK * 2,
        r"\A\s*(?:#{1,6}[^\n]*\n\s*)*(?:hi|hello|hey)?[ ,!]*(?:how|what|why|which|where|is|are"
        r"|does|do|can|could|will|would|should)\b[^.!?\n]{3,200}\?",
        "opening",
    ),
]
LABEL_SYMPTOMS = {  # a repository label that names a symptom (words of the label's name)
    "documentation": "docs",
    "docs": "docs",
    "feature": "feature",
    "feature request": "feature",
    "enhancement": "feature",
    "question": "question",
    "performance": "performance",
    "perf": "performance",
    "build": "build",
    "install": "install",
    "installation": "install",
    "packaging": "install",
    "hang": "hang",
    "crash": "crash",
    "correctness": "wrong_result",
    "accuracy": "wrong_result",
}
# Compounds whose word is no symptom: a "high-performance library" reports no slowness.
NOT_SYMPTOMS = linear_re.compile(
    r"(?:wrong|invalid|incorrect) (?:number of )?(?:arguments?|args|parameters?)\b|"
    r"high[- ]performance|performance (?:libraries|library|primitives|computing)|"
    r"\bHPC\b|build (?:of|number|id|type)\b|\bdebug build\b|"
    r"(?:release|nightly|docker|source) build\b",
    linear_re.I,
)
LABEL_WORD = linear_re.compile(r"[a-z0-9]+")
LABEL_AREA = linear_re.compile(r"\b(?:tools?|profiler|profiling)\b")
URL = linear_re.compile(r"\b(?:https?|ftp)://\S+|\bwww\.\S+|\]\([^)\s]*\)", linear_re.I)
HTML = linear_re.compile(r"<!--.*?(?:-->|\z)|<[a-zA-Z/][^>\n]{0,500}>", linear_re.S)
ROCMINFO_HEADING = linear_re.compile(
    r"rocminfo|rocm-smi|amd-smi|environment|collect_env", linear_re.I
)
ROCMINFO_DUMP = linear_re.compile(
    r"HSA System Attributes|HSA Agents|ROCk module|Runtime Version:", linear_re.I
)
ENVIRONMENT_SECTIONS = {"operating system", "cpu", "gpu", "rocm version", "rocm component"}


@dataclass(frozen=True)
class Clue:
    symptom: str
    words: str
    field: str
    points: float
    ending: bool = False

    def to_dict(self) -> dict:
        return {"symptom": self.symptom, "words": self.words, "field": self.field}


@dataclass
class Reading:
    """What the rules read in one issue: the symptom, its points and the clues that gave it."""

    label: str
    points: dict[str, float] = field(default_factory=dict)
    clues: list[Clue] = field(default_factory=list)

    @property
    def decided(self) -> bool:
        return self.label != "other"

    @property
    def guess(self) -> str:
        """The rules' best guess where nothing is clear: the symptom their weaker clues lean to,
        else the commonest failure of a report (FALLBACK); the symptom itself where clear. On the
        real reports' tuning parts a guess beat "other" (which a reader gives 3 % of reports)."""
        if self.decided:
            return self.label
        leaning = {s: p for s, p in self.points.items() if p > 0}
        if not leaning:
            return FALLBACK
        return max(PRECEDENCE, key=lambda s: (leaning.get(s, 0.0), -PRECEDENCE.index(s)))

    @property
    def margin(self) -> float:
        """Points of the winner over the runner-up."""
        ranked = sorted(self.points.values(), reverse=True) + [0.0, 0.0]
        return ranked[0] - ranked[1]

    def evidence(self) -> list[dict]:
        """The rule and the clues of the winning symptom, then those of a close runner-up."""
        if not self.decided:
            guess = self.guess
            why = "no symptom named clearly: the rules' best guess"
            if not self.points:
                why = "no symptom named: the commonest failure, for a triager to confirm"
            leaning = [c.to_dict() for c in self.clues if c.symptom == guess]
            return [{"rule": why, "symptom": guess}, *leaning]
        mine = [c.to_dict() for c in self.clues if c.symptom == self.label]
        return [{"rule": self.label.replace("_", " "), "symptom": self.label}, *mine]


_COMPILED = [(rule, linear_re.compile(rule.pattern, linear_re.I | linear_re.M)) for rule in RULES]
_FIELDS_OF = {
    "all": ("title", "body", "log"),
    "prose": ("title", "body"),
    "log": ("log",),
    "dump": ("dump",),
    "opening": ("opening",),
    "title": ("title",),
}


def _prose_and_logs(body: str) -> tuple[str, str, str]:
    """The body's prose (without code, URLs, HTML, the form's environment and rocminfo
    sections), its code and log blocks, and its machine reports (rocminfo's output, in a block
    or in the form's section: read only for what says the runtime could not start)."""
    body = (body or "")[:MAX_READ_CHARS]
    kept, dumps, position = [], [], 0
    for section in form_sections(body):
        name = section.name.lower()
        if name in ENVIRONMENT_SECTIONS or ROCMINFO_HEADING.search(name):
            kept.append(body[position : section.start])
            if ROCMINFO_HEADING.search(name):
                dumps.append(body[section.start : section.end])
            position = section.end
    body = "".join(kept) + body[position:]
    blocks = code_blocks(body)
    logs = [block.body for block in blocks if not ROCMINFO_DUMP.search(block.body)]
    dumps += [block.body for block in blocks if ROCMINFO_DUMP.search(block.body)]
    prose = text_without(body, blocks, between=" ")
    return (
        _words(prose),
        _words("\n".join(logs))[:MAX_LOG_CHARS],
        "\n".join(dumps)[:MAX_LOG_CHARS],
    )


def _words(text: str) -> str:
    text = HTML.sub(" ", text)
    text = URL.sub(" ", text)
    return NOT_SYMPTOMS.sub(" ", text)


def _found(pattern: linear_re.Pattern, text: str) -> str:
    match = pattern.search(text)
    return match.group(0).strip()[:80] if match else ""


def symptom_read(title: str, body: str = "", labels=()) -> Reading:
    """The rules' reading of one issue (title, body and its repository labels' names)."""
    title = _words((title or "")[:1000])
    prose, logs, dumps = _prose_and_logs(body)
    opening = prose.lstrip()[:OPENING_CHARS]
    fields = {"title": title, "body": prose, "log": logs, "dump": dumps, "opening": opening}
    clues: list[Clue] = []
    for rule, pattern in _COMPILED:
        for name in _FIELDS_OF[rule.where]:
            words = _found(pattern, fields[name])
            if words:
                points = rule.weight * FIELD_WEIGHTS[name]
                clues.append(Clue(rule.symptom, words, name, points, rule.ending))
    for name in labels:
        symptom = label_symptom(str(name))
        if symptom:
            clues.append(Clue(symptom, str(name)[:80], "label", STRONG * FIELD_WEIGHTS["label"]))
    return _decide(clues)


def label_symptom(name: str) -> str:
    """The symptom a repository label names, by its words ("type: feature request", "Installation
    issue"); none for a label of a tool's area ("Bug_In_Performance_Tool": a profiler's bug)."""
    words = " ".join(LABEL_WORD.findall(name.lower()[:100]))
    if not words or LABEL_AREA.search(words):
        return ""
    found = [(key, s) for key, s in LABEL_SYMPTOMS.items() if f" {key} " in f" {words} "]
    return max(found, key=lambda pair: len(pair[0]))[1] if found else ""


def _decide(clues: list[Clue]) -> Reading:
    def total(symptom: str) -> float:
        return sum(c.points for c in clues if c.symptom == symptom)

    if max(total("hang"), total("wrong_result")) >= STRONG:  # how they end is no crash
        clues = [c for c in clues if not c.ending]
    points: dict[str, float] = {}
    for clue in clues:
        points[clue.symptom] = points.get(clue.symptom, 0.0) + clue.points
    if not points or max(points.values()) < DECIDING_POINTS:
        return Reading("other", points, clues)
    best = max(PRECEDENCE, key=lambda s: (points.get(s, 0.0), -PRECEDENCE.index(s)))
    return Reading(best, points, clues)


def model_spoke(model: Prediction, evidence: list[dict], *, needs_triage: bool) -> Prediction:
    """The trained model's prediction with the evidence of the rules it outranked."""
    return Prediction(
        label=model.label,
        confidence=model.confidence,
        needs_triage=needs_triage,
        evidence=evidence,
        probabilities=model.probabilities,
    )


def symptom_predict(reading: Reading, model: Prediction | None, *, corrections: int) -> Prediction:
    """One issue's symptom: the rules where they are clear; the model where they find nothing
    and it is sure (its class's precision threshold), or over them once it learned from
    `corrections` triagers' corrections and is sure; else `other`, for a triager."""
    evidence = reading.evidence()
    if model is not None:
        evidence.append({"model": model.label, "confidence": round(model.confidence, 4)})
        evidence.extend(model.evidence)
    sure = model is not None and not model.needs_triage
    taught = corrections >= decisions_to_overrule()
    if sure and (not reading.decided or (taught and model.label != reading.label)):
        if reading.decided:
            evidence.insert(0, {"rule": f"the model, taught by {corrections} corrections"})
        return model_spoke(model, evidence, needs_triage=model.label == "other")
    if not reading.decided:
        return Prediction(label=reading.guess, confidence=0.0, needs_triage=True, evidence=evidence)
    total = sum(reading.points.values())
    confidence = reading.points[reading.label] / total if total else 0.0
    disagrees = sure and model.label != reading.label
    return Prediction(
        label=reading.label,
        confidence=confidence,
        needs_triage=disagrees or reading.margin < DECIDING_POINTS / 2,
        evidence=evidence,
    )


class SymptomClassifier(TextClassifier):
    name = "symptom"
    labels = LABELS
    input = "issue"
    description = "crash / hang / wrong result / performance / build / install / docs / ..."
    target_precision = 0.85

    @staticmethod
    def weak_label(title: str, body: str, labels=()) -> str:
        """The rules' symptom when they find one ("" otherwise: no weak label)."""
        reading = symptom_read(title, body, labels)
        return reading.label if reading.decided else ""

    @staticmethod
    def rules_predict(facts: IssueFacts, model: Prediction | None, corrections: int) -> Prediction:
        reading = symptom_read(facts.title, facts.body, facts.labels)
        return symptom_predict(reading, model, corrections=corrections)


# Its line in the registry (config/wiring.py's CLASSIFIER_MODELS names it).
ENTRY = ModelEntry(SymptomClassifier, correction="choice", page=True, queue_key="s", triaged=True)
