"""severity: critical / high / medium / low, following from the symptom, the hardware, the reach
and regression signals, each an explained part (as priority's are).

1. symptom: a crash, hang or wrong result is `high`; performance, a build or install failure or
   another report `medium`; docs, a question or a feature request `low` (nothing moves those).
2. hardware: the tier of the reporter's GPU (the environment's gfx targets, else its GPU names)
   in settings.SEVERITY_HARDWARE_TIERS over DEFAULT_HARDWARE_TIERS (ROCm's support matrix):
   `datacenter`, `consumer` (a supported Radeon, Radeon PRO or Ryzen) or `unsupported`. An
   install failure on supported hardware is `high`; a crash, hang or wrong result on unsupported
   hardware is `medium` ("unsupported hardware with a workaround").
3. scope: words of a common path ("every model", "even the simplest kernel", "unusable") or of
   a narrow case ("only with", "a specific shape", "corner case"); the reach (other people's
   "+1"s, reactions, confirmed duplicates, posts on X): a wide reach counts as a common path.
4. silent wrong results (no error, corrupt data), and regressions.

`critical` is reached only by a wrong result on hardware not unsupported that is in a common
path, silent or of a wide reach; by a hang of a datacenter GPU (a hung GPU stops every job on
it); or by a crash of a datacenter GPU in a common path, that regressed or of a wide reach. A
narrow case is never critical.

The rules give the weak labels the model trains on (from the text alone: reach is not in it);
the model decides over them once triagers' corrections taught it (classifiers.symptom's rule),
and a triager's decision stands above both.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from classifiers.entries import ModelEntry
from classifiers.extraction import environment_extract
from classifiers.facts import IssueFacts, Reach
from classifiers.kind import kind_read
from classifiers.symptom import FAILURES, decisions_to_overrule, model_spoke, symptom_read
from classifiers.text_classifier import Prediction, TextClassifier
from config import linear_re

LABELS = ("critical", "high", "medium", "low")
LEVELS = {"low": 0, "medium": 1, "high": 2, "critical": 3}
BASE = {
    "crash": "high",
    "hang": "high",
    "wrong_result": "high",
    "install": "high",  # an install failure on a supported setup (below: on another, medium)
    "performance": "medium",
    "build": "medium",
    "other": "medium",
    "docs": "low",
    "feature": "low",
    "question": "low",
}
TIERS = ("datacenter", "consumer", "unsupported")
TIER_NAMES = {
    "datacenter": "a supported datacenter GPU",
    "consumer": "a supported consumer or workstation GPU",
    "unsupported": "unsupported hardware",
}
# ROCm's support matrix on Linux: the compatibility matrix of ROCm 6.0-6.3 lists gfx942, gfx90a,
# gfx908 (AMD Instinct), gfx1100 and gfx1030 (Radeon, Radeon PRO); the system requirements of
# ROCm 6.4 and 7.x add gfx950 (Instinct MI350X/MI355X), gfx1101, gfx1200 and gfx1201 (Radeon RX
# 7800 XT, 9060 and 9070 series, Radeon AI PRO R9700) and gfx1151 (Ryzen AI Max). Targets the
# matrix no longer or never listed are unsupported; a target in neither list moves nothing.
DEFAULT_HARDWARE_TIERS: dict[str, str] = {
    **dict.fromkeys(("gfx950", "gfx942", "gfx941", "gfx940", "gfx90a", "gfx908"), "datacenter"),
    # Instinct MI50 / MI60 (and Radeon VII): in the matrix until ROCm 6.0, maintained since
    "gfx906": "datacenter",
    **dict.fromkeys(("gfx1201", "gfx1200", "gfx1151", "gfx1101", "gfx1100", "gfx1030"), "consumer"),
    **dict.fromkeys(
        (
            "gfx904",
            "gfx902",
            "gfx900",
            "gfx90c",
            "gfx803",
            "gfx802",
            "gfx801",
            "gfx1010",
            "gfx1011",
            "gfx1012",
            "gfx1013",
            "gfx1031",
            "gfx1032",
            "gfx1033",
            "gfx1034",
            "gfx1035",
            "gfx1036",
            "gfx1102",
            "gfx1103",
            "gfx1150",
            "gfx1152",
            "gfx1153",
        ),
        "unsupported",
    ),
    # GPU names, for an environment that names the GPU but no target (lower case, substrings)
    **dict.fromkeys(
        ("instinct", "mi300", "mi325", "mi350", "mi355", "mi250", "mi210"), "datacenter"
    ),
}

COMMON_PATH = linear_re.compile(
    r"\ball (?:models|kernels|ops|operations|gpus|devices|tests|workloads|inputs|shapes)\b|"
    r"\bevery (?:model|kernel|run|time|gpu|call|request|workload|input|shape)\b|"
    r"\bany (?:model|kernel|input|size|shape|workload|program|code)\b|"
    r"\b(?:even )?(?:the |a )?simple(?:st)? (?:example|program|test|matmul|kernel|script|case)|"
    r"\bhello world\b|\bbasic (?:operations?|ops|example|matmul|tests?)\b|"
    r"\bdefault (?:settings|configuration|config)\b|\bout of the box\b|\bunusable\b|"
    r"\bcompletely (?:broken|unusable)|\bin production\b|\bblocks? (?:us|our|all)\b",
    linear_re.I,
)
NARROW = linear_re.compile(
    r"\bonly (?:when|with|for|on|if|in|at)\b|\bspecific\b|\bcertain\b|\bparticular\b|"
    r"\bcorner[- ]cases?\b|\bedge[- ]cases?\b|\bdegenerate\b|\bsmall\b|\brare(?:ly)?\b|"
    r"\bsometimes\b|\boccasionally\b|\bsome (?:cases|shapes|sizes|configurations|inputs)\b",
    linear_re.I,
)
SILENT = linear_re.compile(
    r"\bsilent(?:ly)?\b|\bno (?:error|warning)s?\b|\bwithout (?:any )?(?:error|warning)s?\b|"
    r"\bcorrupt(?:s|ed|ion)?\b",
    linear_re.I,
)
REGRESSION = linear_re.compile(
    r"\bregress(?:ion|ed)\b|used to work|worked (?:fine |well )?(?:in|with|on|before)|"
    r"after (?:upgrad|updat)\w*|no longer works?|since (?:rocm|version|v)\s*\d",
    linear_re.I,
)
URL = linear_re.compile(r"\b(?:https?|ftp)://\S+", linear_re.I)
# the rubric's "unsupported-hardware trouble with a workaround" is medium
WORKAROUND = linear_re.compile(
    r"\bwork(?:ed|s|ing)?[ -]?around\b|\bHSA_OVERRIDE_GFX_VERSION\b", linear_re.I
)
# an install problem on a set-up ROCm does not support: a distribution or environment it does
# not list, WSL or a container that hides the GPU
UNSUPPORTED_SETUP = linear_re.compile(
    r"\b(?:not|isn'?t|aren'?t) (?:\w+ )?(?:officially |yet )?supported\b|\bunsupported\b|"
    r"\bwsl2?\b|\bdocker\b|\bcontainer\b",
    linear_re.I,
)
LOW_KINDS = ("question", "feature", "docs")  # a support request is low whatever it asks about
RAISING_SIGNALS = 2


@dataclass
class Assessment:
    label: str
    parts: list[dict] = field(default_factory=list)

    def evidence(self) -> list[dict]:
        """A one-line rule (the symptom and what moved it), then every part."""
        symptom = self.parts[0]["why"].split(":")[0] if self.parts else ""
        moved = [p["why"] for p in self.parts[1:] if p["effect"]]
        return [{"rule": "; ".join([symptom, *moved])}, *self.parts]


def _part(name: str, effect: int, why: str) -> dict:
    return {"name": name, "effect": effect, "why": why}


def hardware_tiers(overrides: dict | None = None) -> dict[str, str]:
    tiers = dict(DEFAULT_HARDWARE_TIERS)
    tiers.update({str(k).lower(): v for k, v in (overrides or {}).items() if v in TIERS})
    return tiers


def hardware_tier(architectures, gpus=(), tiers: dict | None = None) -> tuple[str, str]:
    """(tier, why): the best tier of the reporter's targets, else of its GPU names; "" when
    nothing is known."""
    tiers = tiers if tiers is not None else hardware_tiers()
    found = [(tiers[a.lower()], a) for a in architectures if a.lower() in tiers]
    if not found:
        names = [str(g).lower() for g in gpus]
        found = [
            (t, n)
            for key, t in tiers.items()
            if not key.startswith("gfx")
            for n in names
            if key in n
        ]
    if not found:
        return "", "no GPU named"
    tier, named = min(found, key=lambda pair: TIERS.index(pair[0]))
    return tier, f"{named}: {TIER_NAMES[tier]}"


def severity_assess(
    *,
    symptom: str,
    text: str,
    architectures=(),
    gpus=(),
    reach: Reach | None = None,
    regression_label: bool = False,
    tiers: dict | None = None,
    kind: str = "",
) -> Assessment:
    """The severity of one report from its parts (the module docstring says how)."""
    reach = reach or Reach()
    text = URL.sub(" ", text or "")
    base = BASE.get(symptom, "medium")
    level = LEVELS[base]
    parts = [_part("symptom", 0, f"{symptom.replace('_', ' ')}: {base}")]
    if LEVELS[base] == 0:
        parts.append(_part("hardware", 0, "does not change a docs, question or feature report"))
        return Assessment(base, parts)
    if kind in LOW_KINDS:
        parts.append(_part("kind", -level, f"a {kind} report: low, whatever its symptom"))
        return Assessment("low", parts)
    tier, why = hardware_tier(architectures, gpus, tiers)
    workaround = WORKAROUND.search(text)
    unsupported_setup = UNSUPPORTED_SETUP.search(text)
    if symptom == "install" and tier == "unsupported":
        parts.append(_part("hardware", -1, f"{why}: an install problem outside ROCm's support"))
        level -= 1
    elif symptom == "install" and unsupported_setup:
        said = unsupported_setup.group(0)
        parts.append(
            _part("hardware", -1, f"a set-up outside ROCm's support: the text says {said!r}")
        )
        level -= 1
    elif symptom in FAILURES and tier == "unsupported" and workaround:
        said = workaround.group(0)
        parts.append(_part("hardware", -1, f"{why}, with a workaround (the text says {said!r})"))
        level -= 1
    else:
        parts.append(_part("hardware", 0, why))

    narrow = NARROW.search(text)
    datacenter_hang = symptom == "hang" and tier == "datacenter"
    can_raise = not narrow and (
        (symptom == "wrong_result" and tier != "unsupported")
        or (symptom in ("crash", "hang") and tier == "datacenter")
    )
    common = COMMON_PATH.search(text)
    signals = {  # part: why it is there ("" when not), in the order they can raise
        "scope": _said(common, "a common path")
        or ("a hung datacenter GPU stops every job on it" if datacenter_hang else ""),
        "silent": _said(SILENT.search(text), "silent") if symptom == "wrong_result" else "",
        "regression": "regression label"
        if regression_label
        else _said(REGRESSION.search(text), "a regression"),
        "reach": reach.summary() if reach.wide else "",
    }
    if symptom == "wrong_result":
        signals["regression"] = ""  # a wrong result is as bad whether or not it regressed
    # critical takes two of them: one alone (a "default config", a hung MI300X) is high
    raisers = [name for name, why in signals.items() if why] if can_raise else []
    raiser = raisers[0] if len(raisers) >= RAISING_SIGNALS else ""
    if raiser:
        level += 1
    for name, why in signals.items():
        if name == "silent" and symptom != "wrong_result":
            continue
        if name == "scope" and narrow:
            why = f"a narrow case: the text says {narrow.group(0)!r}"
        elif name == "reach":
            why = reach.summary()
        why = why or f"no {name} signal"
        effect = 1 if name == raiser else 0
        if effect:
            also = "; ".join(signals[other] for other in raisers[1:])
            why += f", and {also}: critical on this hardware"
        parts.append(_part(name, effect, why))
    return Assessment(LABELS[3 - max(0, min(level, 3))], parts)


def _said(match, what: str) -> str:
    """What a match says ("a common path: the text says 'every model'"); "" for no match."""
    return f"{what}: the text says {match.group(0)!r}" if match else ""


def severity_predict(
    assessment: Assessment, model: Prediction | None, *, corrections: int, unsure: bool
) -> Prediction:
    """One issue's severity: its parts' level, or the model's once people's decisions taught it
    and it is sure; `unsure` (the symptom needs triage) marks it for a triager."""
    evidence = assessment.evidence()
    if model is not None:
        evidence.append({"model": model.label, "confidence": round(model.confidence, 4)})
    taught = corrections >= decisions_to_overrule()
    if model is not None and taught and not model.needs_triage:
        if model.label != assessment.label:
            evidence.insert(0, {"rule": f"the model, taught by {corrections} decisions"})
        return model_spoke(model, evidence, needs_triage=unsure)
    return Prediction(
        label=assessment.label, confidence=1.0, needs_triage=unsure, evidence=evidence
    )


def severity_of_text(title: str, body: str, labels=()) -> Assessment:
    """The parts from the text alone (the weak labels; the demo and the tests read them)."""
    reading = symptom_read(title, body, labels)
    env = environment_extract(title, body)
    return severity_assess(
        symptom=reading.label,
        kind=kind_read(reading, reading.label)[0],
        text=f"{title}\n{body}",
        architectures=env.architectures,
        gpus=env.gpus,
        regression_label=any("regression" in str(name).lower() for name in labels),
        tiers=hardware_tiers(_setting_tiers()),
    )


class SeverityClassifier(TextClassifier):
    name = "severity"
    labels = LABELS
    input = "issue"
    description = "critical / high / medium / low (from symptom, hardware, reach, regression)"
    target_precision = 0.85
    follows = ("symptom",)  # predicted again when a triager corrects the symptom

    @staticmethod
    def weak_label(title: str, body: str, labels=()) -> str:
        return severity_of_text(title, body, labels).label

    @staticmethod
    def rules_predict(facts: IssueFacts, model: Prediction | None, corrections: int) -> Prediction:
        env = facts.environment
        assessment = severity_assess(
            symptom=facts.predicted.get("symptom", "other"),
            kind=facts.predicted.get("kind", ""),
            text=facts.text,
            architectures=env.get("architectures") or (),
            gpus=env.get("gpus") or (),
            reach=facts.reach,
            regression_label=any("regression" in name.lower() for name in facts.labels),
            tiers=hardware_tiers(_setting_tiers()),
        )
        unsure = facts.unsure.get("symptom", False)
        return severity_predict(assessment, model, corrections=corrections, unsure=unsure)


def _setting_tiers() -> dict:
    try:
        return dict(getattr(settings, "SEVERITY_HARDWARE_TIERS", {}) or {})
    except ImproperlyConfigured:  # used outside a configured Django project
        return {}


# Its line in the registry (config/wiring.py's CLASSIFIER_MODELS names it).
ENTRY = ModelEntry(SeverityClassifier, correction="choice", page=True, queue_key="v", triaged=True)
