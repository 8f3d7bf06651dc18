"""Score the active (or a given) version of a model on labelled texts it may not have seen."""

from __future__ import annotations

import numpy as np

from classifiers import artifacts
from classifiers.text_classifier import classification_metrics


def model_evaluate(
    *,
    name: str,
    texts: list[str],
    labels: list[str],
    version: str | None = None,
    groups: list[str] | None = None,
):
    """macro_f1, accuracy, per_class, coverage, precision_at_threshold, and the labels it skipped.

    Rows whose label the model does not know are left out of the scores and reported under
    `unknown_labels` (label: count). With `groups` (each row's repository), a model trained per
    repository predicts each row with that repository's model."""
    loaded = artifacts.artifact_load(name, version)
    model = loaded.model
    if not hasattr(model, "classes"):
        raise artifacts.ArtifactError(f"{name} is not a classifier; it cannot be evaluated")
    known = set(model.classes)
    unknown: dict[str, int] = {}
    kept_texts, kept_labels, kept_groups = [], [], []
    for text, label, group in zip(texts, labels, groups or [""] * len(texts), strict=True):
        if label in known:
            kept_texts.append(text)
            kept_labels.append(label)
            kept_groups.append(group)
        else:
            unknown[label] = unknown.get(label, 0) + 1
    by_repository = {"groups": kept_groups} if groups is not None else {}
    predictions = model.predict(kept_texts, with_evidence=False, **by_repository)
    metrics = (
        classification_metrics(
            kept_labels,
            [p.label for p in predictions],
            np.array([not p.needs_triage for p in predictions]),
        )
        if kept_texts
        else {
            "n": 0,
            "macro_f1": 0.0,
            "accuracy": 0.0,
            "per_class": {},
            "coverage": 0.0,
            "precision_at_threshold": 0.0,
        }
    )
    metrics.update(
        model=name,
        version=loaded.version,
        unknown_labels=unknown,
        thresholds=model.thresholds,
    )
    return metrics
