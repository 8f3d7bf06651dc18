"""The environment of an issue as a maintainer reads it (rules, no ML): the reporter's GPUs and
gfx targets, build targets, ROCm, OS, torch, triton and Python, each with its source and
confidence, and what was set aside and why.

The facts of each text come from classifiers/environment_facts.py (the title and the body, the
reporter's own comments, other people's comments). Then:

- Only the reporter's facts describe the reporter: a comment by someone else (a maintainer's
  "Fixed as of ROCm 6.1.1", another user's "same on my MI250") never sets them; it is kept under
  `others`, by whom. The body comes before the reporter's comments (theirs count a little less).
- GPUs: rocminfo's GPU agents (and rocm-smi's, collect_env's) outrank the issue form's dropdown:
  a form GPU they do not list is set aside, and the conflict recorded. An integrated GPU (an APU
  target of LLVM's table) counts only when it is the GPU in use: no discrete GPU is named, or the
  form names it, or the reporter says they run on it; a CPU's name ("Ryzen 7 7840HS w/ Radeon
  780M") gives its GPU only when nothing else does; a GPU named to compare ("works on MI210",
  "vs gfx1100", "support for gfx1151") counts only where no other is named. Build targets
  (lists, flags, "build for gfx1151") are `build_targets`, never GPUs: on the labelled real
  issues, taking a report's single build target as its GPU was wrong every time it applied.
- One value each for ROCm, OS and the versions: the most confident, the earliest on a tie; a
  finer version of the same release is preferred ("6.2.4" over HIP's "6.2"); ROCm versions of
  sure sources that disagree are recorded as conflicts.

The `environment` prediction's evidence is `Environment.to_dict()`: `architectures` (gfx targets)
and `rocm_version` are a stable interface; `sources` says where each value came from.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from classifiers import gpu_targets
from classifiers.environment_facts import (
    CONFIDENCE,
    MACHINE_SOURCES,
    MAX_TEXT_CHARS,
    Fact,
    text_facts,
)
from classifiers.issue_forms import MAX_SECTIONS, Section, form_sections, issue_form_sections
from config import linear_re

__all__ = [
    "MAX_BODY_CHARS",
    "MAX_SECTIONS",
    "CommentText",
    "Environment",
    "Section",
    "environment_extract",
    "form_sections",
    "issue_form_sections",
]

MAX_BODY_CHARS = MAX_TEXT_CHARS
MAX_COMMENT_CHARS = 65536  # GitHub's cap on a comment
MAX_REPORTER_COMMENTS = 20
MAX_OTHER_COMMENTS = 20
MAX_OTHERS = 10  # other people whose hardware is listed
MAX_SHOWN_FACTS = 30
MAX_LABELS = 30
BARE_RELEASE = linear_re.compile(r"\d\.\d{1,2}(?:\.\d{1,2})?")  # a label "6.1.1"
COMMENT_PENALTY = 0.05
POSITION_STRIDE = 1 << 20  # orders facts by text, then by place in it
SINGLE = (
    "rocm_version",
    "os",
    "torch_version",
    "triton_version",
    "python_version",
    "hip_version",
    "kernel_version",
    "driver_version",
    "gfx_override",
)
GPU_FACTS = ("architectures", "gpus")
STATED_SOURCES = ("issue form", "label")  # a GPU stated as the report's, not found in prose


@dataclass(frozen=True)
class CommentText:
    """A comment on the issue as the extraction reads it: who wrote it, and is it the reporter."""

    body: str
    author: str = ""
    by_reporter: bool = False


@dataclass
class Environment:
    gpus: list[str] = field(default_factory=list)
    architectures: list[str] = field(default_factory=list)
    rocm_version: str = ""
    os: str = ""
    torch_version: str = ""
    triton_version: str = ""
    python_version: str = ""
    hip_version: str = ""
    kernel_version: str = ""
    driver_version: str = ""
    gfx_override: str = ""
    build_targets: list[str] = field(default_factory=list)
    sources: dict[str, dict] = field(default_factory=dict)
    facts: list[dict] = field(default_factory=list)
    conflicts: list[dict] = field(default_factory=list)
    others: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def confidence(self) -> float:
        """How sure the architectures are: their best source's confidence (0 without any)."""
        return self.sources.get("architectures", {}).get("confidence", 0.0)


def environment_extract(
    title: str = "", body: str = "", *, comments=(), reporter: str = "", labels=()
) -> Environment:
    """The reporter's environment from an issue's title, body, comments (CommentText) and
    labels (a maintainer's "ROCm 6.2.3" or "AMD Radeon RX 7900 XTX" describes the report)."""
    texts = [("title", title, reporter, True), ("issue body", body, reporter, True)]
    texts += _comment_texts(comments)
    facts, says_igpu = _label_facts(labels), False
    for index, (where, text, by, mine) in enumerate(texts):
        read = text_facts(text, title=where == "title")
        for fact in read.facts:
            fact.where, fact.by, fact.reporter = where, by, mine
            fact.position += index * POSITION_STRIDE
            if where == "comment" and mine:
                fact.confidence = round(fact.confidence - COMMENT_PENALTY, 2)
        facts += read.facts
        says_igpu = says_igpu or (mine and read.says_igpu)
    return _decide(facts, says_igpu=says_igpu)


def _label_facts(labels) -> list[Fact]:
    """The GPUs and the ROCm release that labels name; labels naming several releases ("ROCm
    5.5.1" and "ROCm 6.0.0") say none of them is the one the report runs."""
    facts = []
    for index, label in enumerate(list(labels)[:MAX_LABELS]):
        label = str(label)[:100]
        read = text_facts(label).facts
        if BARE_RELEASE.fullmatch(label.strip()):
            read = [Fact("rocm_version", label.strip(), "label", 0)]
        for fact in read:
            if fact.name in (*GPU_FACTS, "rocm_version") and not fact.note:
                fact.source, fact.confidence, fact.where = "label", CONFIDENCE["label"], "labels"
                fact.position = -POSITION_STRIDE + index
                facts.append(fact)
    versions = [f for f in facts if f.name == "rocm_version"]
    if len({_release(f.value) for f in versions}) > 1:
        for fact in versions:
            fact.note = "the labels name several ROCm releases"
    return facts


def _comment_texts(comments) -> list[tuple[str, str, str, bool]]:
    counts = {True: 0, False: 0}
    limits = {True: MAX_REPORTER_COMMENTS, False: MAX_OTHER_COMMENTS}
    texts = []
    for comment in comments:
        mine = bool(comment.by_reporter)
        if counts[mine] < limits[mine]:
            counts[mine] += 1
            body = (comment.body or "")[:MAX_COMMENT_CHARS]
            texts.append(("comment", body, comment.author, mine))
    return texts


def _decide(facts: list[Fact], *, says_igpu: bool) -> Environment:
    env = Environment()
    mine = _unique([f for f in facts if f.reporter])
    _choose_gpus(env, mine, says_igpu=says_igpu)
    env.build_targets = _values(f for f in mine if f.name == "build_targets")
    for name in SINGLE:
        _choose_single(env, [f for f in mine if f.name == name])
    env.others = _others([f for f in facts if not f.reporter])
    env.facts = [f.to_dict() for f in _shown(mine)]
    return env


def _unique(facts: list[Fact]) -> list[Fact]:
    """One fact per value and place; the most confident, the earliest."""
    best: dict[tuple, Fact] = {}
    for fact in sorted(facts, key=lambda f: (-f.confidence, f.position)):
        best.setdefault((fact.name, fact.value, fact.source, fact.where, fact.by), fact)
    return sorted(best.values(), key=lambda f: f.position)


def _values(facts) -> list[str]:
    return list(dict.fromkeys(f.value for f in facts))


def _integrated(target: str) -> bool:
    found = gpu_targets.target(target)
    return bool(found and found.integrated)


def _source(fact: Fact) -> dict:
    return {
        "source": fact.source,
        "where": fact.where,
        "by": fact.by,
        "confidence": fact.confidence,
    }


def _conflict(env: Environment, name: str, kept: Fact, set_aside: Fact) -> None:
    env.conflicts.append(
        {
            "field": name,
            "kept": {"value": kept.target or kept.value, **_source(kept)},
            "set_aside": {"value": set_aside.target or set_aside.value, **_source(set_aside)},
        }
    )


def _choose_gpus(env: Environment, mine: list[Fact], *, says_igpu: bool) -> None:
    gpus = [f for f in mine if f.name in GPU_FACTS and not f.note]
    machine = [f for f in gpus if f.source in MACHINE_SOURCES and f.target]
    listed = {f.target for f in machine}
    conflicted = set()
    for fact in gpus:
        if listed and fact.source not in MACHINE_SOURCES and fact.target not in listed:
            fact.note = f"{machine[0].source} lists {', '.join(sorted(listed))}, not this GPU"
            if fact.source in STATED_SOURCES and fact.target not in conflicted:
                conflicted.add(fact.target)
                _conflict(env, "architectures", machine[0], fact)
    denied = {f.target for f in gpus if f.denied}
    for fact in gpus:
        if fact.target in denied:
            fact.note = "the reporter says they do not have this GPU"
    stated = {f.target for f in gpus if f.source in (*MACHINE_SOURCES, *STATED_SOURCES)}
    _compared_set_aside(gpus, stated=stated)
    _integrated_in_use(gpus, says_igpu=says_igpu)
    kept = sorted((f for f in gpus if not f.note), key=lambda f: (-f.confidence, f.position))
    for fact in kept:
        fact.used = True
    env.architectures = _values(Fact(f.name, f.target, f.source, 0) for f in kept)
    env.gpus = _gpu_names(kept)
    if kept:
        env.sources["architectures"] = _source(kept[0])
    if env.gpus:
        env.sources["gpus"] = _source(next(f for f in kept if f.name == "gpus"))


def _gpu_names(kept: list[Fact]) -> list[str]:
    """One name per target: a product's name before a CPU's ("Radeon 8060S", not "Ryzen AI Max")."""
    names: dict[str, str] = {}
    for fact in sorted((f for f in kept if f.name == "gpus"), key=lambda f: f.cpu):
        names.setdefault(fact.target or fact.value, fact.value)
    return list(names.values())


def _compared_set_aside(gpus: list[Fact], *, stated: set[str]) -> None:
    """A GPU named to compare ("works on MI210", "vs gfx1100", "support for gfx1151") anywhere
    is set aside where another GPU is named; never one the machine, the form or a label names."""
    live = [f for f in gpus if not f.note]
    named = {f.target for f in live if not f.contrast} | stated  # named otherwise, somewhere
    compared = {f.target for f in live if f.contrast} - named
    if not compared or not named & {f.target for f in live}:
        return
    for fact in live:
        if fact.target in compared:
            fact.note = (
                "named to compare ('works on', 'vs', 'support for'), not as the GPU at fault"
            )


def _integrated_in_use(gpus: list[Fact], *, says_igpu: bool) -> None:
    """Set aside integrated GPUs that are not the GPU in use, and CPU names beside a GPU."""
    live = [f for f in gpus if not f.note]
    discrete = any(not _integrated(f.target) for f in live)
    named = any(not f.cpu for f in live)
    for fact in live:
        if says_igpu and _integrated(fact.target) and not fact.cpu:
            continue
        if _integrated(fact.target) and discrete:
            fact.note = "a CPU's integrated graphics, not the GPU in use: a discrete GPU is named"
        elif fact.cpu and named:
            fact.note = "a CPU's name: its integrated GPU counts only when no GPU is named"


def _release(version: str) -> str:
    return ".".join(version.split(".")[:2])


def _choose_single(env: Environment, candidates: list[Fact]) -> None:
    live = [f for f in candidates if not f.note]
    if not live:
        return
    best = min(live, key=lambda f: (-f.confidence, f.position))
    finer = [f for f in live if f.value.startswith(best.value + ".")]
    chosen = max(finer, key=lambda f: (f.confidence, -f.position)) if finer else best
    best.used = chosen.used = True
    setattr(env, best.name, chosen.value)
    env.sources[best.name] = _source(best)
    for fact in live:
        if fact.value in (best.value, chosen.value):
            fact.used = True  # another source says the same
        if fact.used:
            continue
        fact.note = f"outranked by the {best.source} ({best.value})"
        sure = fact.confidence >= CONFIDENCE["HIP version"]
        if best.name == "rocm_version" and sure and _release(fact.value) != _release(best.value):
            _conflict(env, best.name, best, fact)


def _others(facts: list[Fact]) -> list[dict]:
    """Other people's hardware and ROCm, by whom: never the reporter's."""
    people: dict[str, dict] = {}
    for fact in sorted(facts, key=lambda f: f.position):
        if fact.note or fact.name not in (*GPU_FACTS, "rocm_version"):
            continue
        person = people.setdefault(
            fact.by or "someone", {"by": fact.by, "architectures": [], "gpus": [], "rocm": []}
        )
        if fact.name in GPU_FACTS and fact.target not in person["architectures"]:
            person["architectures"].append(fact.target)
        if fact.name == "gpus" and fact.value not in person["gpus"]:
            person["gpus"].append(fact.value)
        if fact.name == "rocm_version" and fact.value not in person["rocm"]:
            person["rocm"].append(fact.value)
    return list(people.values())[:MAX_OTHERS]


def _shown(mine: list[Fact]) -> list[Fact]:
    """The facts a maintainer sees: those used, then those set aside with the reason."""
    shown = [f for f in mine if f.used or f.note]
    order = {name: i for i, name in enumerate((*GPU_FACTS, "build_targets", *SINGLE))}
    shown.sort(key=lambda f: (not f.used, order.get(f.name, 99), -f.confidence, f.position))
    return shown[:MAX_SHOWN_FACTS]
