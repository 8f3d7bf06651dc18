"""component: which part of the stack an issue hits. The classes come from the training data."""

from classifiers.entries import ModelEntry
from classifiers.text_classifier import TextClassifier


class ComponentClassifier(TextClassifier):
    name = "component"
    input = "issue"
    description = "part of the stack (classes from the repositories' component labels and forms)"
    target_precision = 0.85


# Its line in the registry (config/wiring.py's CLASSIFIER_MODELS names it).
ENTRY = ModelEntry(
    ComponentClassifier,
    correction="name",
    page=True,
    queue_key="m",
    triaged=True,
    writes_labels=True,
)
