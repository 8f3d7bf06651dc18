"""severity: critical / high / medium / low, learned from explainable rules and corrections.

The rules name the signal that sets the severity (a crash, a hang, wrong results, a performance
regression, a build failure, something cosmetic). They give the weak labels the model trains on,
and maintainers' corrections outrank them; the model then generalises past the keywords. The page
shows both the signal and the model's evidence.
"""

from __future__ import annotations

import re

from classifiers.text_classifier import TextClassifier

LABELS = ("critical", "high", "medium", "low")

# (signal, severity, pattern), first match wins: the worst outcome decides.
SIGNALS: list[tuple[str, str, re.Pattern]] = [
    (
        "data corruption or wrong results",
        "critical",
        re.compile(
            r"wrong (?:result|output|value|answer)s?|incorrect (?:result|output|value)s?|"
            r"silent(?:ly)? (?:corrupt|wrong)|data corruption|"
            r"mismatch(?:es)? (?:the )?(?:cpu|reference)|"
            r"outputs? differ|\bnan\b|\bnans\b",
            re.I,
        ),
    ),
    (
        "crash",
        "critical",
        re.compile(
            r"segfault|segmentation fault|core dumped|memory access fault|page fault|"
            r"illegal (?:address|instruction)|hipErrorIllegalAddress|kernel panic|"
            r"\bcrash(?:es|ed|ing)?\b|"
            r"\bgpu reset\b|abort(?:ed)?\b",
            re.I,
        ),
    ),
    ("hang", "high", re.compile(r"\bhangs?\b|\bhung\b|deadlock|freez(?:e|es)|stuck|timeout", re.I)),
    (
        "regression",
        "high",
        re.compile(r"regression|used to work|worked (?:in|with|on)|after upgrad|no longer", re.I),
    ),
    (
        "performance",
        "medium",
        re.compile(r"\bslow(?:er|down)?\b|performance|throughput|latency|\bperf\b", re.I),
    ),
    (
        "not detected or fails to run",
        "medium",
        re.compile(
            r"not detect|no gpu|not (?:found|supported)|fails? to (?:run|load|launch)|error", re.I
        ),
    ),
    (
        "build or install",
        "low",
        re.compile(r"build|compile|install|cmake|packag|dependenc|link(?:er|ing)? error", re.I),
    ),
    (
        "documentation or cosmetic",
        "low",
        re.compile(r"\bdocs?\b|documentation|typo|readme|cosmetic", re.I),
    ),
]
DEFAULT = ("no severity signal", "low")


def severity_signal(text: str) -> tuple[str, str]:
    """(signal, severity) of the first rule that matches, else ('no severity signal', 'low')."""
    for signal, severity, pattern in SIGNALS:
        if pattern.search(text or ""):
            return signal, severity
    return DEFAULT


class SeverityClassifier(TextClassifier):
    name = "severity"
    input = "issue"
    description = "critical / high / medium / low (rules give weak labels, corrections outrank)"
    target_precision = 0.85

    def predict(self, texts, *, with_evidence=True):
        predictions = super().predict(texts, with_evidence=with_evidence)
        for text, prediction in zip(texts, predictions, strict=True):
            signal, severity = severity_signal(text)
            prediction.evidence.insert(0, {"rule": signal, "severity": severity})
        return predictions
