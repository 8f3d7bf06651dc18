"""kind: what a report is (bug, feature, question, docs, performance), from title and body."""

from classifiers.entries import ModelEntry
from classifiers.text_classifier import TextClassifier

LABELS = ("bug", "feature", "question", "docs", "performance")


class KindClassifier(TextClassifier):
    name = "kind"
    labels = LABELS
    input = "issue"
    description = "bug / feature / question / docs / performance"
    embedding_weight = 1.0  # with the embeddings extra switched on (CLASSIFIER_EMBEDDINGS)
    # each repository's own model, with the other repositories' issues at a lower weight
    per_repository = True
    other_repositories_setting = "CLASSIFIER_KIND_OTHER_REPOSITORIES_WEIGHT"


# Its line in the registry (config/wiring.py's CLASSIFIER_MODELS names it).
ENTRY = ModelEntry(
    KindClassifier,
    correction="choice",
    page=True,
    queue_key="a",
    triaged=True,
    writes_labels=True,
)
