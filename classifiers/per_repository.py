"""One linear model per repository, each trained on its own issues and, at a lower weight, on
the other repositories' issues (a model that sets `per_repository = True`: kind).

A repository's model learns what its own reporters write (weight 1) without forgetting what
the others teach (weight `other_weight`, settings.CLASSIFIER_KIND_OTHER_REPOSITORIES_WEIGHT).
The TF-IDF features are the pooled model's (fitted once on every text, without labels); only
the linear model is fitted per repository. A repository with fewer than MIN_OWN_ITEMS labelled
issues, or one the model never saw, is predicted by the pooled model (every issue at weight 1).

Cross-validation uses the pooled model's folds, scored on each repository's own issues: in fold
k a repository's model trains on everything but its own issues of fold k (its own at weight 1,
the other repositories' at `other_weight`) and predicts them. Those out-of-fold predictions give
the repository's abstention thresholds and replace the pooled model's in the metrics. Each fit
starts from the pooled model of the same fold (which never saw that fold either), and the final
one from the final pooled model: a repository's model is a small step from the pooled one, and
logistic regression takes a third of the time to get there (the cost: docs/PERFORMANCE.md).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
from sklearn.base import clone

MIN_OWN_ITEMS = 30


@dataclass
class RepositoryFit:
    """Per repository: the fitted linear model and its thresholds; per item, the out-of-fold
    prediction and confidence of its repository's model (None, 0 for items it does not hold)."""

    models: dict[str, dict]
    oof_pred: np.ndarray
    oof_conf: np.ndarray
    metrics: dict[str, dict]


def group_key(name: str) -> str:
    """Repository names are compared as GitHub compares them: case-insensitively."""
    return (name or "").strip().lower()


def aligned_proba(classifier, rows, classes: np.ndarray) -> np.ndarray:
    """predict_proba with one column per class of `classes`, 0 for a class the model lacks."""
    proba = classifier.predict_proba(rows)
    if list(classifier.classes_) == list(classes):
        return proba
    out = np.zeros((proba.shape[0], len(classes)))
    out[:, np.searchsorted(classes, classifier.classes_)] = proba
    return out


def out_of_fold(estimator, x, y: np.ndarray, splits) -> tuple[np.ndarray, list]:
    """cross_val_predict's probabilities (columns: the sorted classes), and each fold's model."""
    classes = np.unique(y)
    proba = np.zeros((len(y), len(classes)))
    models = []
    for train, test in splits:
        models.append(clone(estimator).fit(x[train], y[train]))
        proba[test] = aligned_proba(models[-1], x[test], classes)
    return proba, models


def repositories_fit(
    *,
    estimator,
    x,
    y: np.ndarray,
    groups: np.ndarray,
    other_weight: float,
    splits: list,
    fold_models: list,
    pooled,
    thresholds_of,
) -> RepositoryFit:
    """`splits` and `fold_models`: the pooled model's folds and their models; `pooled`: the
    final pooled model; `thresholds_of(y_true, y_pred, confidence, classes)` picks a model's
    thresholds."""
    classes = np.unique(y)
    fit = RepositoryFit(
        models={},
        oof_pred=np.full(len(y), None, dtype=object),
        oof_conf=np.zeros(len(y)),
        metrics={},
    )
    for group, size in sorted(Counter(groups.tolist()).items()):
        mine = groups == group
        own = np.nonzero(mine)[0]
        if not group or size < MIN_OWN_ITEMS or len(set(y[own])) < 2:
            continue
        weights = np.where(mine, 1.0, other_weight)
        proba = np.zeros((len(y), len(classes)))
        for (_, test), start in zip(splits, fold_models, strict=True):
            held = test[mine[test]]  # this fold's own issues
            if len(held):
                keep = np.ones(len(y), dtype=bool)
                keep[held] = False
                model = _from(estimator, start, y[keep]).fit(
                    x[keep], y[keep], sample_weight=weights[keep]
                )
                proba[held] = aligned_proba(model, x[held], classes)
        pred, conf = classes[proba[own].argmax(axis=1)], proba[own].max(axis=1)
        fit.oof_pred[own], fit.oof_conf[own] = pred, conf
        fit.models[group] = {
            "classifier": _from(estimator, pooled, y).fit(x, y, sample_weight=weights),
            "thresholds": thresholds_of(y[own], pred, conf, classes),
        }
        fit.metrics[group] = {"n": int(size), "accuracy": float((pred == y[own]).mean())}
    return fit


def _from(estimator, start, y: np.ndarray):
    """A fresh copy of `estimator` that starts its fit from `start`'s coefficients (a linear
    model that can, trained on the same classes), else from scratch."""
    model = clone(estimator)
    can = "warm_start" in model.get_params() and hasattr(start, "coef_")
    if can and list(start.classes_) == list(np.unique(y)):
        model.set_params(warm_start=True)
        model.coef_, model.intercept_ = start.coef_.copy(), start.intercept_.copy()
    return model
