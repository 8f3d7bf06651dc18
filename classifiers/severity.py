"""severity: critical / high / medium / low, learned from explainable rules and corrections.

The rules name the signal that sets the severity (a crash, a hang, wrong results, a performance
regression, a build failure, something cosmetic). They give the weak labels the model trains on,
and maintainers' corrections outrank them; the model then generalises past the keywords. The page
shows both the signal and the model's evidence.
"""

from __future__ import annotations

from classifiers.text_classifier import TextClassifier
from config import linear_re

LABELS = ("critical", "high", "medium", "low")

# (signal, severity, pattern), first match wins: the worst outcome decides.
SIGNALS: list[tuple[str, str, str]] = [
    (
        "data corruption or wrong results",
        "critical",
        r"wrong (?:result|output|value|answer)s?|incorrect (?:result|output|value)s?|"
        r"silent(?:ly)? (?:corrupt|wrong)|data corruption|"
        r"mismatch(?:es)? (?:the )?(?:cpu|reference)|"
        r"outputs? differ|\bnan\b|\bnans\b",
    ),
    (
        "crash",
        "critical",
        r"segfault|segmentation fault|core dumped|memory access fault|page fault|"
        r"illegal (?:address|instruction)|hipErrorIllegalAddress|kernel panic|"
        r"\bcrash(?:es|ed|ing)?\b|"
        r"\bgpu reset\b|abort(?:ed)?\b",
    ),
    ("hang", "high", r"\bhangs?\b|\bhung\b|deadlock|freez(?:e|es)|stuck|timeout"),
    (
        "regression",
        "high",
        r"regression|used to work|worked (?:in|with|on)|after upgrad|no longer",
    ),
    (
        "performance",
        "medium",
        r"\bslow(?:er|down)?\b|performance|throughput|latency|\bperf\b",
    ),
    (
        "not detected or fails to run",
        "medium",
        r"not detect|no gpu|not (?:found|supported)|fails? to (?:run|load|launch)|error",
    ),
    (
        "build or install",
        "low",
        r"build|compile|install|cmake|packag|dependenc|link(?:er|ing)? error",
    ),
    (
        "documentation or cosmetic",
        "low",
        r"\bdocs?\b|documentation|typo|readme|cosmetic",
    ),
]
DEFAULT = ("no severity signal", "low")
_SIGNAL_SET = linear_re.PatternSet([pattern for _, _, pattern in SIGNALS], linear_re.I)


def severity_signal(text: str) -> tuple[str, str]:
    """(signal, severity) of the first rule that matches, else ('no severity signal', 'low')."""
    matching = _SIGNAL_SET.matching(text or "")
    if not matching:
        return DEFAULT
    signal, severity, _ = SIGNALS[matching[0]]
    return signal, severity


class SeverityClassifier(TextClassifier):
    name = "severity"
    labels = LABELS
    input = "issue"
    description = "critical / high / medium / low (rules give weak labels, corrections outrank)"
    target_precision = 0.85

    @staticmethod
    def weak_label(title: str, body: str) -> str:
        return severity_signal(f"{title}\n{body}")[1]

    def predict(self, texts, *, with_evidence=True):
        predictions = super().predict(texts, with_evidence=with_evidence)
        for text, prediction in zip(texts, predictions, strict=True):
            signal, severity = severity_signal(text)
            prediction.evidence.insert(0, {"rule": signal, "severity": severity})
        return predictions
