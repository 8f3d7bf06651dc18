"""component: which part of the stack an issue hits. The classes come from the training data."""

from classifiers.text_classifier import TextClassifier


class ComponentClassifier(TextClassifier):
    name = "component"
    input = "issue"
    description = "part of the stack (classes from the repositories' component labels and forms)"
    target_precision = 0.85
