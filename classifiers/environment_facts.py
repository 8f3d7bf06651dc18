"""Facts about an environment read from one text (an issue's title or body, or one comment).

Each reader finds one kind of evidence and names it as its source:
- machine reports pasted from the machine: rocminfo's agents (a GPU agent's `Name: gfx...` and
  `Marketing Name`; CPU agents and names outside LLVM's table are not GPUs), rocm-smi's and
  amd-smi's GFX version and name lines, torch's collect_env line of GPU models;
- the issue form's sections (### GPU, ### ROCm Version, ### Operating System; ### CPU never gives
  the GPU, even "Ryzen 7 7840HS w/ Radeon 780M");
- build facts, kept apart from the GPU: target lists (`PYTORCH_ROCM_ARCH=gfx906;gfx908`,
  `--offload-arch=`, `AMDGPU_TARGETS`, `GPU_TARGETS`, `HCC_AMDGPU_TARGET`, "available / supported
  targets", a line, a Markdown table or a column naming three or more targets), generic targets,
  code-object bundle ids (`hipv4-amdgcn-amd-amdhsa--gfx906`);
- free text: gfx targets of LLVM's table, product names (classifiers/gpu_targets.py), and the
  ROCm version told apart from HIP, torch, kernel, amdgpu driver and package versions; a version
  in a "fixed in", "works with", "upgrade to", "tried with", "requires" phrase is set aside.
Quoted lines (`> ...`) and HTML comments (an issue template's hints) are not the writer's words
and are not read. Every pattern is RE2 (config/linear_re.py); every reader stops after a bounded
number of matches.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, field

from classifiers import gpu_targets
from classifiers.issue_forms import NO_RESPONSE, form_sections
from config import linear_re

# GitHub caps a body at 65,536 characters; past 4 times that a text is hostile, not a report,
# so only its start is read.
MAX_TEXT_CHARS = 256 * 1024
MAX_FACT_MATCHES = 200  # gfx tokens, rocminfo lines, version mentions: the first this many
MAX_MASKED = 5000  # quoted lines and HTML comments set aside per text
MAX_REPORT_LINES = 200  # rocminfo's agent lines: about 4 per agent, 50 agents

CONFIDENCE = {
    "rocminfo": 0.95,  # the GPU agents of the machine the report comes from
    "rocm-smi": 0.9,
    "collect_env": 0.9,
    "issue form": 0.9,
    "packages": 0.92,  # rocm-core 6.2.0..., amdgpu-install_6.2.60200: what is installed
    "ROCm build": 0.92,  # "ROCm 6.2.41512", hipconfig's "HIP version: 6.2.41133": a tool's output
    "gfx target": 0.8,
    "ROCm version": 0.8,
    "HIP SDK": 0.8,
    "docker image": 0.8,  # rocm/dev-ubuntu-22.04:6.3: the ROCm a container runs
    "product name": 0.75,
    "HIP version": 0.75,  # collect_env's "HIP runtime version": often torch's bundled HIP
    "label": 0.7,  # a maintainer's label ("ROCm 6.2.3", "AMD Radeon RX 7900 XTX")
    "CPU name": 0.6,  # an integrated GPU named by its CPU
    "torch build": 0.55,  # the ROCm torch was built with (+rocm6.2), not always the system's
    "build target": 0.5,
}
MACHINE_SOURCES = ("rocminfo", "rocm-smi", "collect_env")

HTML_COMMENT = linear_re.compile(r"<!--.*?-->", linear_re.S)
URL = linear_re.compile(r"\b(?:https?|ftp)://[^\s)\]>]+|\bwww\.[^\s)\]>]+", linear_re.I)
QUOTED_LINE = linear_re.compile(r"^[ \t]*>[^\n]*$", linear_re.M)
GFX_TOKEN = linear_re.compile(
    r"\bgfx(?:[0-9]{1,2}(?:-[0-9])?-generic|[0-9]{2,4}[a-z]?)\b", linear_re.I
)
AGENT_LINE = linear_re.compile(
    r"^[ \t]*(Name|Marketing Name|Device Type):[ \t]*([^\n]*?)[ \t]*$", linear_re.M | linear_re.I
)
GFX_NAME = linear_re.compile(r"gfx[0-9a-z-]+(?::[\w:+-]*)?", linear_re.I)
SMI_TARGET = linear_re.compile(
    r"^[^\n]*?\b(?:GFX[ _]Version|TARGET_GRAPHICS_VERSION)[ \t]*:[ \t]*(gfx[0-9a-z-]+)[^\n]*$",
    linear_re.M | linear_re.I,
)
SMI_NAME = linear_re.compile(
    r"^[^\n]*?\b(?:MARKET_NAME|Card Series|Card SKU)[ \t]*:[ \t]*([^\n]*)$",
    linear_re.M | linear_re.I,
)
COLLECT_ENV_GPU = linear_re.compile(
    r"^[ \t]*GPU models and configuration:[ \t]*([^\n]*)$", linear_re.M | linear_re.I
)
BUILD_LINE = linear_re.compile(
    r"^[^\n]*(?:pytorch_rocm_arch|amdgpu_targets?|gpu_targets?|hcc_amdgpu_targets?|gpu_archs?\b"
    r"|hip_architectures|rocm_archs?\b|offload[-_]arch|amdgpu[-_]target|gpu[-_]architecture"
    r"|-mcpu\b|\bhipv4-|\bhip-amdgcn|\bopenmp-amdgcn|get_arch_list|arch_list"
    r"|_architectures?[\"']?[ \t]*[=:]|tensilecreatelibrary"
    r"|(?:available|supported|valid)[ \t]+(?:gpu[ \t]+)?(?:isas|targets|architectures|gpus"
    r"|code objects|devices)[ \t]*(?:\([^)\n]*\))?[ \t]*(?::|=|are\b|include))[^\n]*$",
    linear_re.M | linear_re.I,
)
TABLE_ROW = "|"
GPU_LIST_SEPARATOR = linear_re.compile(r"\n|,|/|&|\+|\band\b", linear_re.I)
SHORT_LINE = 48  # a line of a column list: a target and little else
LIST_MIN = 3  # targets on one line, in one table or one column that make it a list
CPU_BEFORE = linear_re.compile(r"\bryzen\b[^\n]*(?:\bw/|\bwith)[ \t]*\z", linear_re.I)
IGPU_USE = linear_re.compile(
    r"\b(?:on|using|use|uses|with|via|run\w*\s+on)\s+(?:the\s+|my\s+|an?\s+|its\s+)?"
    r"(?:igpu|apu|integrated\s+(?:gpu|graphics))\b",
    linear_re.I,
)

# The words around a gfx target or a GPU's name in free text. After "works on", "vs", "support
# for", "such as", "reported for" it is named to compare, not as the GPU with the problem (it
# counts only where no other GPU is named); after "build for", "compiling for", before
# "builds", it is a build target; on an HSA_OVERRIDE_GFX_VERSION line or after "treat it as",
# it is what the GPU is made to act as.
# (a list goes on: "works on gfx950 (MI325X/MI350X)", "targeting gfx900–gfx1151 including ...")
FILLERS = r"(?:[ \t,/–-]+\(?(?:for|with|on|in|to|the|a|an|as|of|and|or|by|also|both|only|fine"
FILLERS += r"|well|ok|great|correctly|properly|pair|couple|few|some|more|two|several|new|my|our"
FILLERS += r"|your|their|this|that|these|those|including|like|very|really|just|perfectly"
FILLERS += r"|gfx[0-9a-z-]+|mi[0-9]{2,3}[a-z]?))"
FILLERS += r"{0,6}[ \t:*`'\"(/–-]*\z"
CONTRAST_BEFORE = linear_re.compile(
    r"\b(?:works?|passe[sd]|pass|fine|ok|okay|vs\.?|versus|compared|unlike|than"
    r"|instead|support(?:s|ed)?|such[ \t]+as|e\.g\.|reported|buy(?:ing)?|purchas\w*|consider\w*"
    r"|(?:gpus?|cards?|ones|models|devices|hardware)[ \t]+like|not[ \t]+only|but[ \t]+not"
    r"|planning|thinking[ \t]+of|looking[ \t]+at|consistent|same[ \t]+as|unaffected"
    r"|(?:not|no)[ \t]+(?:an?[ \t]+)?(?:issues?|problems?))" + FILLERS,
    linear_re.I,
)
CONTRAST_AFTER = linear_re.compile(
    r"\A[ \t*`'\"]*(?:\([^)\n]{0,40}\))?[ \t*`'\"]*(?:[-:,–—][ \t]*)?"
    r"(?:passes|passed|works|worked|is[ \t]+fine|runs[ \t]+fine|(?:is|are)[ \t]+supported)\b",
    linear_re.I,
)
# "built for", "compiling for gfx90a and", "targeting gfx900–": not "compile with my 7900 XTX"
BUILD_FILLERS = r"(?:[ \t,/–-]+\(?(?:for|to|the|a|an|and|or|only|also|both|including"
BUILD_FILLERS += r"|gfx[0-9a-z-]+))" + r"{0,6}[ \t:*`'\"(/–-]*\z"
BUILD_BEFORE = linear_re.compile(
    r"\b(?:build(?:s|ing)?|built|compil(?:e|es|ed|ing)|target(?:s|ing)?)" + BUILD_FILLERS,
    linear_re.I,
)
BUILD_AFTER = linear_re.compile(
    r"\A(?:[ \t]*[-–,/][ \t]*gfx[0-9a-z]+)*[ \t)*`'\"]*(?:builds?\b|build[ \t]+(?:fails?|failing"
    r"|failure|error)|code[ \t]+objects?|packages?\b|librar(?:y|ies)\b|binar(?:y|ies)\b)",
    linear_re.I,
)
# "I don't actually have an MI250" (the form made them pick one): not the reporter's GPU at all.
DENIED_BEFORE = linear_re.compile(
    r"\b(?:don'?t|do[ \t]+not|doesn'?t|never|no[ \t]+longer)[ \t]+(?:\w+[ \t]+)?"
    r"(?:have|own|use|using|got|run)[ \t]+(?:an?|the|any|my)?[ \t]*\z",
    linear_re.I,
)
OVERRIDE_BEFORE = linear_re.compile(
    r"\bHSA_OVERRIDE_GFX_VERSION\b[^\n]*\z|\b(?:pretend\w*|treat\w*|spoof\w*|masquerad\w*"
    r"|overrid\w*)(?:[ \t]+it)?" + FILLERS,
    linear_re.I,
)

VERSION = r"(\d+\.\d+(?:\.\d+)?)"
# "ROCm 6.2", "ROCm:** 7.2.0", "| ROCm | v2.6 |" (a table), "ROCm\6.2" (the HIP SDK's Windows
# folder), "rocm-rel-3.3" (a build path), "rocm==7.10.0a20251020" and "rocm[libraries]==7.9.0"
# (TheRock's wheels), "TheRock 7.14", "/opt/rocm-6.2.0", torch's "+rocm6.2"
ROCM_VERSION = linear_re.compile(
    r"(?:\b(?:rocm|therock)(?:[ \t_-]*(?:version|release|sdk|runtime|core|hip|rel|nightly|dist))?"
    r"(?:\[[\w, -]{1,60}\])?(?:/|\\|[ \t]{0,40}[:=|][ \t*`]{0,8}|[ \t:=_*`|-]{0,8})v?"
    r"|\+rocm|/opt/rocm-|\broc-)" + VERSION,
    linear_re.I,
)
# "upgraded from ROCm 2.7 to 3.3": the second is the one run now
FROM_TO = linear_re.compile(
    r"\bfrom[ \t]+rocm[ \t]*v?\d+\.\d+(?:\.\d+)?[ \t]+(?:to|->)[ \t]+(?:rocm[ \t]*)?v?" + VERSION,
    linear_re.I,
)
BARE_VERSION = linear_re.compile(r"\b" + VERSION + r"\b")
TORCH_BUILD_ROCM = linear_re.compile(
    r"ROCM used to build PyTorch[ \t]*:[ \t]*" + VERSION, linear_re.I
)
# spack's specs: hip@5.6.0, ^rocm-core@5.6.0 (ROCm's packages carry ROCm's version)
SPACK_SPEC = linear_re.compile(
    r"\b(?:rocm-core|hip|hsa-rocr-dev|rocminfo|llvm-amdgpu|comgr|rocm-cmake|hipcc|rocm-openmp-extras)"
    r"@" + VERSION,
    linear_re.I,
)
HIP_VERSION = linear_re.compile(
    r"\bhip(?:[ \t]+runtime|cc)?[ \t_]*version[ \t]*[:=]?[ \t]*v?(\d+\.\d+\.\d+(?:-[0-9a-f]+)?)"
    r"|\bhipconfig[ \t]+(?:--version|-v)\b[^\n]*\n[ \t]*(\d+\.\d+\.\d{4,5}(?:-[0-9a-f]+)?)",
    linear_re.I,
)
HIP_SDK = linear_re.compile(
    r"\bhip[ \t]*sdk[ \t]*(?:version[ \t]*)?[:=]?[ \t]*v?" + VERSION, linear_re.I
)
ROCM_PACKAGE = linear_re.compile(
    r"\brocm-(?:core|dev|libs|dkms|hip-sdk|hip-runtime|hip-runtime-dev|language-runtime|utils"
    r"|smi-lib|opencl-runtime|opencl-sdk|hip-libraries|ml-libraries|ml-sdk|openmp-sdk"
    r"|developer-tools)(?:/[^\s]+)?[ \t]+"
    r"(?:now[ \t]+|is already the newest version[ \t]*\()?(?:\d+:)?(\d+\.\d+\.\d+)"
    r"|\brepo\.radeon\.com/(?:rocm/apt|rocm/rhel\d*|rocm/el\d*|amdgpu-install|amdgpu)/(\d+\.\d+(?:\.\d+)?)"
    # apt show's "Package: rocm-libs" and, a line or two below, "Version: 1.8.192"
    r"|\bPackage:[ \t]*rocm-[\w-]+[ \t]*\n(?:[^\n]*\n){0,2}?Version:[ \t]*(?:\d+:)?(\d+\.\d+\.\d+)",
    linear_re.I,
)
# A ROCm image's tag: rocm/dev-ubuntu-22.04:6.3, rocm/vllm:rocm6.3.1_instinct_vllm0.8.3
DOCKER_TAG = linear_re.compile(r"\brocm/[\w.-]{1,60}:(?:rocm)?(\d+\.\d+(?:\.\d+)?)", linear_re.I)
# A ROCm package's own version names its release twice: 6.2.1.60201 (apt, dnf, pip's rocm-sdk)
PACKAGE_BUILD = linear_re.compile(r"\b(\d{1,2})\.(\d{1,2})\.(\d{1,2})\.(\d{5,6})\b")
AMDGPU_INSTALL = linear_re.compile(r"\bamdgpu-install[_-](\d+)\.(\d+)\.(\d{5})\b", linear_re.I)
VERSION_TAIL = r"(\d+\.\d+(?:\.\d+)?(?:[.+][0-9A-Za-z.+]*)?)"
QUOTE = r"[`'\"]?"  # Triton: `3.3.1`, torch "2.5.1"


def _pip_show(names: str) -> str:
    """pip show's "Name: triton" and, a line or few below, "Version: 3.1.0"."""
    return (
        rf"\bName:[ \t]*(?:{names})[ \t]*\r?\n(?:[^\n]*\n){{0,3}}?Version:[ \t]*v?" + VERSION_TAIL
    )


TORCH_VERSIONS = [
    linear_re.compile(
        r"\bPyTorch\s+version\s*(?:is\s+|:|=)?\s*" + QUOTE + "v?" + VERSION_TAIL, linear_re.I
    ),
    linear_re.compile(
        r"\btorch(?:\.__version__\D{0,20}|[ \t]*(?:==|=|:|\s)[ \t]*)" + QUOTE + "v?" + VERSION_TAIL,
        linear_re.I,
    ),
    linear_re.compile(
        r"\bpytorch(?:\s+|[ \t]*[:=][ \t]*)" + QUOTE + "v?" + VERSION_TAIL, linear_re.I
    ),
    linear_re.compile(_pip_show("torch"), linear_re.I),
]
TRITON_VERSIONS = [
    linear_re.compile(
        r"\b(?:pytorch-)?triton(?:-rocm)?(?:\.__version__)?[ \t]*(?:==|=|:|\s)[ \t]*"
        + QUOTE
        + "v?"
        + VERSION_TAIL,
        linear_re.I,
    ),
    linear_re.compile(
        r"\btriton\s+version\s*(?:is\s+|:|=)?\s*" + QUOTE + "v?" + VERSION_TAIL, linear_re.I
    ),
    linear_re.compile(_pip_show("(?:pytorch-)?triton(?:-rocm)?"), linear_re.I),
]
PYTHON_VERSION = linear_re.compile(
    r"\bpython\s*(?:version|==|:)?\s*v?(3\.\d{1,2}(?:\.\d+)?)", linear_re.I
)
KERNEL_VERSION = linear_re.compile(
    r"\b(?:kernel|linux|uname\s+-[ar])[ \t:=-]*(?:version[ \t:]*)?v?"
    r"(\d+\.\d+(?:\.\d+)?(?:-\d+)?(?:-[a-z]+)?)"
    r"|\b(\d+\.\d+\.\d+-\d+-(?:generic|lowlatency|azure|aws|gcp|oracle|oem|amd64|rt)\b)",
    linear_re.I,
)
DRIVER_VERSION = linear_re.compile(
    r"\b(?:ROCk module version|amdgpu-dkms|amdgpu[ \t]+(?:driver[ \t]+)?version|amdgpu/)"
    r"[ \t:=]*(?:\d+:)?" + VERSION,
    linear_re.I,
)
GFX_OVERRIDE = linear_re.compile(
    r"\bHSA_OVERRIDE_GFX_VERSION[ \t]*=[ \t]*[\"']?(\d+\.\d+\.\d+)", linear_re.I
)
OS_PATTERNS = [
    r"\bubuntu\s+\d{2}\.\d{2}(?:\.\d+)?(?:\s+LTS)?",
    r"\b(?:rhel|red\s?hat(?:\s+enterprise\s+linux)?)\s+\d+(?:\.\d+)?",
    r"\b(?:sles|suse\s+linux\s+enterprise(?:\s+server)?)\s+\d+(?:\s+sp\d)?",
    r"\bcentos(?:\s+stream)?\s+\d+",
    r"\bfedora(?:\s+linux)?\s+\d+",
    r"\boracle\s+linux\s+\d+(?:\.\d+)?",
    r"\bdebian(?:\s+gnu/linux)?\s+\d+",
    r"\brocky\s+linux\s+\d+(?:\.\d+)?",
    r"\balmalinux\s+\d+(?:\.\d+)?",
    r"\blinux\s+mint\s+\d+(?:\.\d+)?",
    r"\bpop!?_os\s+\d{2}\.\d{2}",
    r"\bopensuse\s+(?:tumbleweed|leap\s+\d+\.\d+)",
    r"\bwindows\s+(?:1[01]|server\s+20\d\d)(?:\s+\w+)?(?:\s+\d\d[hH]\d)?",
    r"\bwsl\s?2?\b",
    r"\barch\s+linux\b",
    r"\b(?:manjaro|nixos|gentoo|cachyos|endeavouros)\b",
]
_OS_SET = linear_re.PatternSet(OS_PATTERNS, linear_re.I)
_OS_RES = [linear_re.compile(p, linear_re.I) for p in OS_PATTERNS]

# A version directly after one of these words is not the writer's own ("fixed in ROCm 6.1.1",
# "works with ROCm 6.1", "upgrade to ROCm 6.3", "tried with 6.0", "requires ROCm 6.2"). Past
# tense is the writer's ("I upgraded to ROCm 6.3"), and so is "after/since upgrading to".
NOT_MINE_BEFORE = linear_re.compile(
    r"\b(?:fixed|fixes|fix|resolved|solved|works?|worked|working|upgrade|update|upgrading"
    r"|updating|downgrade|downgraded|downgrading|roll(?:ed|ing)?\s+back|revert(?:ed|ing)?|back"
    r"|tried|try|trying|previous(?:ly)?|older|earlier|last\s+working|until|prior|before"
    r"|requires?|required|needs?|minimum|least|supported|supports?|available|added|introduced"
    r"|released|ships?|shipped|from|fine|ok|okay|vs\.?|versus|instead\s+of|compared\s+(?:to|with)"
    r"|roll(?:ed|ing)?\s+out|future|upcoming|next|coming|releas(?:e|es|ed|ing)\s+of)"
    r"(?:[ \t]+(?:in|with|on|to|under|of|as|the|a|version|release|using|at|by|for|since|rocm"
    r"|and|latest|newest|new|newer|current|recent)){0,3}[ \t:*`'\"(]*\z"
    # a question about a release is no statement of the one run: "Is ROCm 3.0 supporting ..."
    r"|(?:^|[.!?][ \t]+)(?:is|are|does|do|will|would|can|could|should|has|have)[ \t]+"
    r"(?:the[ \t]+|a[ \t]+)?\z",
    linear_re.I,
)
# PyTorch's wheel index for a ROCm release: the torch build the reporter installed
TORCH_INDEX = linear_re.compile(r"download\.pytorch\.org/whl/(?:nightly/)?rocm", linear_re.I)
# a sentence addressed to the reader (a maintainer's suggestion, another person's question)
ASKED_OF_YOU = linear_re.compile(
    r"\b(?:would|could|can|will|did|do|have)[ \t]+you\b(?:[^.!?\n]|\.\w)*\z"
    r"|\bplease[ \t]+(?:try|use|test|upgrade|update|install)\b(?:[^.!?\n]|\.\w)*\z",
    linear_re.I,
)
MINE_AFTER_UPGRADE = linear_re.compile(
    r"\b(?:after|since|when|once|i|we|have|had)\s+(?:\w+\s+)?(?:upgrad|updat)\w*"
    r"(?:[ \t]+(?:to|the|rocm)){0,3}[ \t:]*\z",
    linear_re.I,
)
NOT_MINE_AFTER = linear_re.compile(
    r"\A\+(?:[\s),.;]|\z)"
    r"|\A[ \t]*[),]?[ \t]*(?:(?:and|or)[ \t]+(?:later|newer|above|higher|up)|onwards"
    r"|works?\b|worked\b|is[ \t]+(?:fine|ok|required|needed)|was[ \t]+(?:fine|ok|working)"
    r"|fixe[sd]\b|resolves?\b|is[ \t]+out|(?:now[ \t]+|officially[ \t]+)?(?:supports|adds|added"
    r"|includes|brings|ships|introduced)\b|(?:was[ \t]+|is[ \t]+)?(?:just[ \t]+)?released\b"
    r"|(?:is|are)[ \t]+(?:now[ \t]+)?(?:available|supported)\b"
    r"|[^\n]{0,20}\b(?:can|could)[ \t]+you[ \t]+(?:try|test|check|confirm)\b"
    r"|(?:will|would|might|may|should)[ \t]+(?:\w+[ \t]+)?(?:support|fix|work|add|include"
    r"|bring)\b)",
    linear_re.I,
)
CONTEXT_CHARS = 60
SENTENCE_CHARS = 240  # how far back a sentence addressed to the reader is read
# ROCm's release series and the last minor release of each closed one (ROCm release history,
# rocm.docs.amd.com/en/latest/release/versions.html); 7.x is open (TheRock's 7.10, 7.13 ...), and
# so are the majors after it (TheRock's nightlies name 10.0).
# A kernel 6.8.0 or an amdgpu driver 6.10.5 is no ROCm release.
ROCM_SERIES = {1: 9, 2: 10, 3: 10, 4: 5, 5: 7, 6: 4, 7: 99, 8: 99, 9: 99, 10: 99, 11: 99, 12: 99}
# A word ending in "-rocm" names a package: tensorflow-rocm 2.4.0, pytorch-triton-rocm==3.0.0;
# "compute-rocm-rel-3.3" (a build path) names ROCm's release
PACKAGE_SUFFIX = linear_re.compile(r"[A-Za-z0-9][_-]\z")
KERNEL_BUILD_WORD = linear_re.compile(r"\d+\.\d+(?:\.\d+)?-[\w.-]*\z")
# "tensorflow-rocm 2.4.0", "-rocm==3.0.0": a package's own version after it; in a name
# ("image-rocm-7.14-tag", "rocminfo-rocm-6.0.0/") the release
PACKAGE_VERSION_AFTER = linear_re.compile(r"[ \t]|[=<>~!]")
QUALIFIED = linear_re.compile(r"rocm[ \t_-]*(?:rel|release|nightly|dist)\b", linear_re.I)


@dataclass
class Fact:
    name: str  # architectures, gpus, rocm_version, build_targets, os, torch_version, ...
    value: str
    source: str  # rocminfo, issue form, gfx target, product name, HIP version, ...
    confidence: float
    target: str = ""  # the gfx target of a GPU
    cpu: bool = False  # an integrated GPU named by its CPU ("Ryzen 7 7840HS w/ Radeon 780M")
    contrast: bool = False  # named to compare ("works on MI210"), not as the GPU at fault
    denied: bool = False  # "I don't have an MI250": whatever else names it
    position: int = 0  # where in its text
    where: str = ""  # title, issue body, comment
    by: str = ""  # the writer's login, where known
    reporter: bool = True
    used: bool = False
    note: str = ""  # why it is set aside

    def to_dict(self) -> dict:
        """What the issue page shows of a fact (its reading's flags stay behind)."""
        data = asdict(self)
        for internal in ("position", "cpu", "contrast", "denied", "reporter"):
            del data[internal]
        return data


@dataclass
class TextFacts:
    facts: list[Fact] = field(default_factory=list)
    says_igpu: bool = False  # the writer says they run on the integrated GPU


def rocm_release(version: str) -> str:
    """The ROCm release a version string can be ("6.2.41133" gives 6.2), or "" when none."""
    parts = version.split(".")
    try:
        major, minor = int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return ""
    if major not in ROCM_SERIES or minor > ROCM_SERIES[major]:
        return ""
    if len(parts) > 2 and len(parts[2]) <= 2:
        return f"{major}.{minor}.{int(parts[2])}"
    return f"{major}.{minor}"


def os_in(text: str) -> str:
    matching = _OS_SET.matching(text or "")
    if not matching:
        return ""
    return " ".join(_OS_RES[matching[0]].search(text).group(0).split())


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    """The text with the spans replaced by spaces (newlines kept, so offsets and lines stay)."""
    if not spans:
        return text
    pieces, position = [], 0
    for start, end in sorted(spans):
        start = max(start, position)
        if start >= end:
            continue
        pieces.append(text[position:start])
        pieces.append("\n".join(" " * len(line) for line in text[start:end].split("\n")))
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def _line_bounds(text: str, position: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, position) + 1
    end = text.find("\n", position)
    return start, len(text) if end < 0 else end


def _product_just_before(text: str, position: int, named_before: dict):
    """The product named right before a gfx target in parentheses: "RX 9070 XT (gfx1200)"."""
    opening = text.rfind("(", max(0, position - 3), position)
    if opening < 0 or text[opening + 1 : position].strip():
        return None
    end = len(text[:opening].rstrip())
    return named_before.get(end)


def _word_start(text: str, position: int) -> int:
    """Where the word around `position` starts ("2.2.0.dev20231017+rocm5.6" as one word)."""
    start = position
    while start > 0 and position - start < CONTEXT_CHARS and not text[start - 1].isspace():
        start -= 1
    return start


def _bounded(pattern: linear_re.Pattern, text: str, limit: int = MAX_FACT_MATCHES):
    return itertools.islice(pattern.finditer(text), limit)


class _Reader:
    """The readers of one text, in order; each adds facts and sets aside what it has read."""

    def __init__(self, text: str, *, title: bool):
        self.text = (text or "")[:MAX_TEXT_CHARS].replace("\r\n", "\n")
        self.title = title
        self.result = TextFacts()
        self.spans: list[tuple[int, int]] = []  # read or set aside, not yet blanked
        self.unread = self.text  # the text with what was read or set aside blanked

    def read(self) -> TextFacts:
        for pattern in (HTML_COMMENT, QUOTED_LINE):
            self.spans += [m.span() for m in _bounded(pattern, self.text, MAX_MASKED)]
        plain = self._unread()  # the writer's own words
        self.words = plain.lower()  # a reader whose words are absent does not scan the text
        if "name:" in self.words:
            self._rocminfo(plain)
        if "gfx" in self.words or "market_name" in self.words or "card s" in self.words:
            self._smi(plain)
        if "gpu models" in self.words:
            self._collect_env(plain)
        if "#" in plain:
            self._sections(self._unread())
        if "gfx" in self.words:  # every build fact names a target
            self._build_targets(self._unread())
        self._free_text(self._unread())
        self._versions(plain)
        self.result.says_igpu = any(w in self.words for w in ("igpu", "apu", "integrated")) and (
            bool(IGPU_USE.search(plain))
        )
        return self.result

    def _mentions(self, *words: str) -> bool:
        return any(word in self.words for word in words)

    # --- helpers ---------------------------------------------------------------------------

    def _add(self, name: str, value: str, source: str, position: int, **extra) -> Fact:
        confidence = extra.pop("confidence", CONFIDENCE.get(source, 0.5))
        fact = Fact(name, value.strip(), source, confidence, position=position, **extra)
        self.result.facts.append(fact)
        return fact

    def _set_aside(self, start: int, end: int) -> None:
        self.spans.append((start, end))

    def _unread(self) -> str:
        self.unread, self.spans = _blank(self.unread, self.spans), []
        return self.unread

    def _text_source(self, source: str) -> str:
        return "title" if self.title else source

    def _gpus(self, text: str, offset: int, source: str, *, first_only: bool = False) -> int:
        """The gfx targets and product names of a piece of text, as GPU facts of `source`."""
        before = len(self.result.facts)
        for match in _bounded(GFX_TOKEN, text):
            found = gpu_targets.target(match.group(0))
            if found and not found.generic:
                self._add(
                    "architectures", found.name, source, offset + match.start(), target=found.name
                )
        mentions = gpu_targets.mentions_in(text)
        for mention in mentions[:1] if first_only else mentions:
            product = mention.product
            self._add("gpus", product.name, source, offset + mention.start, target=product.target)
        return len(self.result.facts) - before

    # --- machine reports -------------------------------------------------------------------

    def _rocminfo(self, text: str) -> None:
        """rocminfo's agents, or the `Name:` / `Marketing Name:` lines of an excerpt of it."""
        agents: list[dict] = []
        for match in _bounded(AGENT_LINE, text, MAX_REPORT_LINES):
            key, value = match.group(1).lower(), match.group(2)
            if key == "name" and value.lower().startswith("amdgcn-") and agents:
                agents[-1]["lines"].append(match.span())  # the agent's own ISA
            elif key == "name":
                agents.append({"name": value, "lines": [match.span()], "at": match.start()})
            elif agents and key not in agents[-1]:
                agents[-1][key] = value
                agents[-1]["lines"].append(match.span())
        for agent in agents:
            self.spans += agent["lines"]
            self._agent(agent)

    def _agent(self, agent: dict) -> None:
        name, kind = agent["name"], agent.get("device type", "").upper()
        gfx = GFX_NAME.fullmatch(name)
        if kind not in ("", "GPU") or (not kind and not gfx):
            return  # a CPU agent (its name may hold its integrated GPU's), an NPU, ...
        target_name = name.split(":")[0].lower()
        found = gpu_targets.target(target_name)
        if gfx and not found:
            self._add(
                "architectures",
                target_name,
                "rocminfo",
                agent["at"],
                note="no GPU target of LLVM's table (gfx000 names a CPU agent)",
            )
            return
        if found:
            self._add("architectures", found.name, "rocminfo", agent["at"], target=found.name)
        marketing = " ".join(agent.get("marketing name", "").split())[:100]
        if marketing:
            mentions = gpu_targets.mentions_in(marketing)
            product = mentions[0].product.name if mentions else marketing
            self._add(
                "gpus",
                product,
                "rocminfo",
                agent["at"],
                target=found.name if found else mentions[0].product.target if mentions else "",
            )

    def _smi(self, text: str) -> None:
        for match in _bounded(SMI_TARGET, text):
            found = gpu_targets.target(match.group(1))
            if found and not found.generic:
                self._add("architectures", found.name, "rocm-smi", match.start(), target=found.name)
            self.spans.append(match.span())
        for match in _bounded(SMI_NAME, text):
            self._gpus(match.group(1), match.start(1), "rocm-smi", first_only=True)
            self.spans.append(match.span())

    def _collect_env(self, text: str) -> None:
        for match in _bounded(COLLECT_ENV_GPU, text):
            self._gpus(match.group(1), match.start(1), "collect_env", first_only=True)
            self.spans.append(match.span())

    # --- the issue form --------------------------------------------------------------------

    def _sections(self, text: str) -> None:
        for section in form_sections(text):
            kind, value = section.kind, section.value
            if kind not in ("cpu", "gpu", "rocm", "os") or not value or value == NO_RESPONSE:
                continue
            if kind == "gpu":
                self._form_gpus(text[section.value_start : section.end], section.value_start)
            elif kind == "rocm":
                self._form_rocm(value, section.value_start)
            elif kind == "os":
                self._add(
                    "os",
                    os_in(value) or value.splitlines()[0][:100],
                    "issue form",
                    section.value_start,
                )
            self.spans.append((section.value_start, section.end))  # read, or a CPU's

    def _form_gpus(self, value: str, offset: int) -> None:
        """A GPU section names the GPU; its brand may go without saying ("680M and 780M")."""
        if self._gpus(value, offset, "issue form"):
            return
        for part in GPU_LIST_SEPARATOR.split(value)[:10]:
            for mention in gpu_targets.mentions_in(f"Radeon {part.strip()}"):
                product = mention.product
                self._add("gpus", product.name, "issue form", offset, target=product.target)

    def _form_rocm(self, value: str, offset: int) -> None:
        candidates = [*_bounded(ROCM_VERSION, value, 20), *_bounded(BARE_VERSION, value, 20)]
        for match in sorted(candidates, key=lambda m: m.start()):
            release = rocm_release(match.group(1))
            if release and self._is_mine(value, match):
                self._add("rocm_version", release, "issue form", offset + match.start())
                return

    # --- build facts -----------------------------------------------------------------------

    def _build_targets(self, text: str) -> None:
        for match in _bounded(BUILD_LINE, text):
            self._build_facts(text, match.start(), match.end(), "build flags")
        text = self._unread()
        lines: dict[int, list] = {}
        for match in _bounded(GFX_TOKEN, text):
            found = gpu_targets.target(match.group(0))
            if found is None:
                continue
            if found.generic:
                self._add(
                    "build_targets",
                    found.name,
                    "generic target",
                    match.start(),
                    confidence=CONFIDENCE["build target"],
                )
                continue
            start, end = _line_bounds(text, match.start())
            lines.setdefault(start, [end, set()])[1].add(found.name)
        for start, end in self._target_lists(text, lines):
            self._build_facts(text, start, end, "target list")

    def _target_lists(self, text: str, lines: dict[int, list]) -> list[tuple[int, int]]:
        """Lines that list targets: three on a line, in one table, or in a column of lines."""
        found = [(s, e) for s, (e, targets) in lines.items() if len(targets) >= LIST_MIN]
        rows = [(s, e, t) for s, (e, t) in lines.items() if text[s:e].lstrip().startswith("|")]
        if len(set().union(*(t for _, _, t in rows))) >= LIST_MIN:
            found += [(s, e) for s, e, _ in rows]
        column: list[tuple[int, int]] = []
        for start in sorted(lines):
            end = lines[start][0]
            if end - start > SHORT_LINE:
                continue
            if column and start != column[-1][1] + 1:
                found += column if len(column) >= LIST_MIN else []
                column = []
            column.append((start, end))
        return found + (column if len(column) >= LIST_MIN else [])

    def _build_facts(self, text: str, start: int, end: int, source: str) -> None:
        for match in _bounded(GFX_TOKEN, text[start:end]):
            found = gpu_targets.target(match.group(0))
            if found:
                self._add(
                    "build_targets",
                    found.name,
                    source,
                    start + match.start(),
                    confidence=CONFIDENCE["build target"],
                )
        self._set_aside(start, end)

    # --- free text -------------------------------------------------------------------------

    def _free_text(self, text: str) -> None:
        # a link names pages, not the writer's GPU ("...-with-vega-20-support-plus-...")
        text = _blank(text, [m.span() for m in _bounded(URL, text, MAX_MASKED)])
        source = self._text_source("gfx target")
        mentions = gpu_targets.mentions_in(text)
        named_before = {m.end: m.product for m in mentions}
        for match in _bounded(GFX_TOKEN, text) if "gfx" in self.words else ():
            found = gpu_targets.target(match.group(0))
            if found and not found.generic:
                product = _product_just_before(text, match.start(), named_before)
                if product and product.target != found.name:
                    note = f"the {product.name} before it is {product.target} (the GPU table)"
                    self._add(
                        "architectures",
                        found.name,
                        source,
                        match.start(),
                        note=note,
                        target=found.name,
                        confidence=CONFIDENCE["gfx target"],
                    )
                    continue
                self._free_gpu(text, match.start(), match.end(), found.name, found.name, source)
        for mention in mentions:
            line_start, _ = _line_bounds(text, mention.start)
            before = text[max(line_start, mention.start - CONTEXT_CHARS) : mention.start]
            integrated = gpu_targets.target(mention.product.target).integrated
            cpu = mention.product.cpu or (integrated and bool(CPU_BEFORE.search(before)))
            kind = "CPU name" if cpu else "product name"
            self._free_gpu(
                text,
                mention.start,
                mention.end,
                mention.product.name,
                mention.product.target,
                self._text_source(kind),
                cpu=cpu,
                confidence=CONFIDENCE[kind],
            )

    def _free_gpu(self, text, start, end, value, target, source, **extra) -> None:
        """A GPU named in free text, read in the words around it."""
        line_start, line_end = _line_bounds(text, start)
        before = text[max(line_start, start - CONTEXT_CHARS) : start]
        after = text[end : min(line_end, end + CONTEXT_CHARS)]
        if BUILD_BEFORE.search(before) or BUILD_AFTER.search(after):
            self._add("build_targets", target, "build target", start)
            return
        name = "architectures" if value == target else "gpus"
        extra.setdefault("confidence", CONFIDENCE["gfx target"])
        if OVERRIDE_BEFORE.search(before):
            extra["note"] = "what the GPU is made to act as (HSA_OVERRIDE_GFX_VERSION), not the GPU"
        contrast = bool(CONTRAST_BEFORE.search(before) or CONTRAST_AFTER.search(after))
        denied = bool(DENIED_BEFORE.search(before))
        self._add(
            name, value, source, start, target=target, contrast=contrast, denied=denied, **extra
        )

    # --- versions --------------------------------------------------------------------------

    def _is_mine(self, text: str, match, group: int = 1, start: int | None = None) -> bool:
        start = match.start() if start is None else start
        before = text[max(0, start - CONTEXT_CHARS) : start]
        before = before.rsplit("\n", 1)[-1]
        if NOT_MINE_BEFORE.search(before) and not MINE_AFTER_UPGRADE.search(before):
            return False
        sentence = text[max(0, start - SENTENCE_CHARS) : start].rsplit("\n", 1)[-1]
        if ASKED_OF_YOU.search(sentence):
            return False  # "Would you be open to trying JAX 0.5.0 + ROCm 6.4.1?": not what runs
        after = text[match.end(group) : match.end(group) + CONTEXT_CHARS].split("\n", 1)[0]
        return not NOT_MINE_AFTER.search(after)

    def _rocm(self, text: str) -> None:
        links = [m.span() for m in _bounded(URL, text, MAX_MASKED)]
        for match in _bounded(ROCM_VERSION, text, 50):
            link = next((span for span in links if span[0] <= match.start() < span[1]), None)
            if link and not TORCH_INDEX.search(text[link[0] : link[1]]):
                continue  # a page's address names a release, not the one run
            torch_build = match.group(0).startswith("+")
            if (
                not torch_build
                and not QUALIFIED.match(match.group(0))
                and PACKAGE_SUFFIX.search(text[max(0, match.start() - 2) : match.start()])
                and PACKAGE_VERSION_AFTER.match(match.group(0)[4:])
            ):
                continue  # tensorflow-rocm 2.4.0, pytorch-triton-rocm==3.0.0: a package's version
            torch_build = torch_build or link is not None  # download.pytorch.org/whl/rocm6.2
            kind = "torch build" if torch_build else "ROCm version"
            word = text[_word_start(text, match.start()) : match.start()]
            if not torch_build and KERNEL_BUILD_WORD.search(word):
                continue  # 4.11.0-kfd-compute-rocm-rel-1.6: a kernel that ROCm's team built
            release = rocm_release(match.group(1))
            if release.count(".") == 1 and match.group(1).count(".") == 2:
                kind = "torch build" if torch_build else "ROCm build"  # 6.2.41512: a tool's output
            note = ""
            if not release:
                note = "no ROCm release (a kernel, driver or other version)"
            elif not self._is_mine(text, match, start=_word_start(text, match.start())):
                note = "named as fixed in, working with, to upgrade to or required, not as run"
            source = kind if kind in ("torch build", "ROCm build") else self._text_source(kind)
            self._add(
                "rocm_version",
                release or match.group(1),
                source,
                match.start(),
                note=note,
                confidence=CONFIDENCE[kind],
            )
        for match in _bounded(DOCKER_TAG, text, 10):
            release = rocm_release(match.group(1))
            if release and self._is_mine(text, match):
                self._add("rocm_version", release, "docker image", match.start())
        for match in _bounded(FROM_TO, text, 5):
            if release := rocm_release(match.group(1)):
                self._add(
                    "rocm_version",
                    release,
                    self._text_source("ROCm version"),
                    match.start(1),
                    confidence=CONFIDENCE["ROCm version"],
                )
        for match in _bounded(TORCH_BUILD_ROCM, text, 5):
            if release := rocm_release(match.group(1)):
                self._add("rocm_version", release, "torch build", match.start())

    def _hip(self, text: str) -> None:
        for match in _bounded(HIP_VERSION, text, 10):
            version = match.group(1) or match.group(2)
            self._add("hip_version", version, "HIP version", match.start())
            release = rocm_release(version.split("-")[0])
            if release and self._is_mine(text, match, 1 if match.group(1) else 2):
                major_minor = ".".join(release.split(".")[:2])
                runtime = "runtime" in match.group(0).lower()  # collect_env: torch's own HIP
                source = "HIP version" if runtime else "ROCm build"
                self._add(
                    "rocm_version",
                    major_minor,
                    source,
                    match.start(),
                    confidence=CONFIDENCE[source],
                )
        for match in _bounded(HIP_SDK, text, 10):
            if (release := rocm_release(match.group(1))) and self._is_mine(text, match):
                self._add("rocm_version", release, "HIP SDK", match.start())

    def _package_builds(self, text: str) -> None:
        """6.2.1.60201: a ROCm package's version, whatever the package is called."""
        for match in _bounded(PACKAGE_BUILD, text, 20):
            major, minor, patch, build = (int(g) for g in match.groups())
            release = rocm_release(f"{major}.{minor}.{patch}")
            encoded = major * 10000 + minor * 100 + patch
            if release and build == encoded and self._is_mine(text, match):
                self._add("rocm_version", release, "packages", match.start())

    def _packages(self, text: str) -> None:
        for match in _bounded(ROCM_PACKAGE, text, 20):
            group = next(i for i in (1, 2, 3) if match.group(i))
            release = rocm_release(match.group(group))
            if release and self._is_mine(text, match, group):
                self._add("rocm_version", release, "packages", match.start())
        for match in _bounded(AMDGPU_INSTALL, text, 10):
            major, minor, build = match.group(1), match.group(2), match.group(3)
            release = rocm_release(f"{major}.{minor}.{int(build[3:])}")
            if release and build[0] == major and self._is_mine(text, match, 3):
                self._add("rocm_version", release, "packages", match.start())

    def _first(self, name: str, patterns: list, text: str, source: str) -> None:
        for pattern in patterns:
            match = pattern.search(text)
            if match:
                value = next(g for g in match.groups() if g).rstrip(".,;)")
                self._add(
                    name,
                    value,
                    self._text_source(source),
                    match.start(),
                    confidence=CONFIDENCE["ROCm version"],
                )
                return

    def _versions(self, text: str) -> None:
        if self._mentions("rocm", "therock", "roc-"):
            self._rocm(text)
        if self._mentions("hip"):
            self._hip(text)
        if self._mentions("rocm-", "amdgpu-install", "repo.radeon"):
            self._packages(text)
        self._package_builds(text)
        if self._mentions("@"):
            for match in _bounded(SPACK_SPEC, text, 10):
                if release := rocm_release(match.group(1)):
                    self._add("rocm_version", release, "packages", match.start())
        for name, patterns, words in VERSION_READERS:
            if self._mentions(*words):
                self._first(name, patterns, text, "text")
        if os_name := os_in(text):
            self._add(
                "os", os_name, self._text_source("text"), 0, confidence=CONFIDENCE["ROCm version"]
            )


# (fact, patterns, a word one of which the text must hold for them to match)
VERSION_READERS = (
    ("torch_version", TORCH_VERSIONS, ("torch",)),
    ("triton_version", TRITON_VERSIONS, ("triton",)),
    ("python_version", [PYTHON_VERSION], ("python",)),
    ("kernel_version", [KERNEL_VERSION], ("kernel", "linux", "uname", "-")),
    ("driver_version", [DRIVER_VERSION], ("rock module", "amdgpu")),
    ("gfx_override", [GFX_OVERRIDE], ("hsa_override_gfx_version",)),
)


def text_facts(text: str, *, title: bool = False) -> TextFacts:
    """The environment facts of one text, each with its source and confidence."""
    return _Reader(text, title=title).read()
