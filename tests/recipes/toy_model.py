"""The recipe's classifier model (docs/ARCHITECTURE.md, "Add a classifier model"), as written."""

from classifiers.entries import ModelEntry
from classifiers.text_classifier import TextClassifier


class NeedsInfoClassifier(TextClassifier):
    name = "needs_info"
    labels = ("complete", "needs-info")
    input = "issue"
    description = "complete / needs-info"

    @staticmethod
    def weak_label(title: str, body: str, labels=()) -> str:
        return "needs-info" if "needs info" in {lb.lower() for lb in labels} else ""


ENTRY = ModelEntry(NeedsInfoClassifier, correction="choice", page=True, queue_key="i", triaged=True)
CLASHING = ModelEntry(NeedsInfoClassifier, correction="choice", page=True, queue_key="a")
