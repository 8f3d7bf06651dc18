"""Model names to classes. One module per model; add a model here and nowhere else."""

from __future__ import annotations

from classifiers.component import ComponentClassifier
from classifiers.duplicates import DuplicateIndex
from classifiers.kind import KindClassifier
from classifiers.sentiment import SentimentClassifier
from classifiers.severity import SeverityClassifier

MODELS: dict[str, type] = {
    cls.name: cls
    for cls in (
        KindClassifier,
        ComponentClassifier,
        SeverityClassifier,
        SentimentClassifier,
        DuplicateIndex,
    )
}


class UnknownModel(LookupError):
    pass


def model_class(name: str) -> type:
    try:
        return MODELS[name]
    except KeyError:
        raise UnknownModel(
            f"unknown model {name!r}; choose one of: {', '.join(sorted(MODELS))}"
        ) from None
