"""Train a model, save it as a new version, and activate it if it is not worse than the active one.

"Not worse" is judged on the same items: those of the new training set that the active version
was not trained on (new issues, corrected labels). On them the candidate's out-of-fold
predictions (cross-validation folds of the new set) and the active version's predictions are
scored by macro-F1. With fewer than MIN_FRESH such items the two cross-validated scores are
compared instead. --force activates regardless. A scheduled run (skip_if_unchanged) trains
nothing on the data the active version, or the newest saved candidate, was trained on.

`groups` names each item's repository: a model trained per repository (kind) fits one model per
repository on them, and both versions are compared on what each predicts for its repository.
The repositories and the other repositories' weight are part of "the data" a version was
trained on: a changed weight is trained again.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field

import numpy as np

from classifiers import artifacts
from classifiers.registry import model_class
from classifiers.text_classifier import classification_metrics

TOLERANCE = 0.005
MIN_FRESH = 20


@dataclass
class TrainingReport:
    name: str
    n_samples: int
    version: str = ""
    activated: bool = False
    reason: str = ""
    metrics: dict = field(default_factory=dict)
    active_metrics: dict | None = None
    seconds: float = 0.0

    def summary(self) -> str:
        if not self.version:
            return f"{self.name}: {self.reason}"
        score = self.metrics.get("macro_f1")
        scored = f", cross-validated macro-F1 {score:.3f}" if score is not None else ""
        state = "active" if self.activated else "saved, not activated"
        return (
            f"{self.name} {self.version}: {self.n_samples} samples{scored}, "
            f"{self.seconds:.1f}s; {state} ({self.reason})"
        )


def model_train(
    *,
    name: str,
    texts: list[str],
    labels: list,
    source: str,
    force: bool = False,
    skip_if_unchanged: bool = False,
    groups: list[str] | None = None,
) -> TrainingReport:
    """Fit, save and maybe activate. `labels` are issue ids for the duplicates index."""
    cls = model_class(name)
    report = TrainingReport(name=name, n_samples=len(texts))
    model = cls()
    groups = groups if getattr(model, "per_repository", False) else None
    digest = _digest(model, texts, labels, groups)
    active = _active_or_none(name)
    if skip_if_unchanged and active and (unchanged := _unchanged(name, digest, active)):
        report.reason = unchanged
        return report

    started = time.perf_counter()
    fit_options = {"groups": groups} if groups is not None else {}
    # raises TrainingDataError before anything is saved
    report.metrics = model.fit(texts, labels, **fit_options)
    report.seconds = time.perf_counter() - started

    activate, report.reason = True, "no active version" if active is None else "forced"
    items = artifacts.item_hashes(texts, labels)
    if active is not None and not force and getattr(cls, "needs_labels", True):
        new, old, basis = _compare(model, active, texts, labels, items, groups)
        report.active_metrics = {"macro_f1": old, "basis": basis}
        activate = new >= old - TOLERANCE
        report.reason = f"macro-F1 {new:.3f} vs active {old:.3f} {basis}" + (
            "" if activate else "; keeping the active version (use --force to replace it)"
        )
    elif active is not None and not force:
        report.reason = "index rebuilt"
    report.version = artifacts.artifact_save(
        name=name,
        model=model,
        data_sha256=digest,
        n_samples=len(texts),
        source=source,
        items=items,
        extra={"training_seconds": round(report.seconds, 2)},
    )
    if activate:
        artifacts.artifact_activate(name=name, version=report.version)
    report.activated = activate
    return report


def _digest(model, texts: list[str], labels: list, groups: list[str] | None) -> str:
    """The data hash; trained per repository, of each item's repository and the weight too."""
    if groups is None:
        return artifacts.data_hash(texts, labels)
    keyed = [f"{label}\x1d{group.lower()}" for label, group in zip(labels, groups, strict=True)]
    digest = artifacts.data_hash(texts, keyed)
    return hashlib.sha256(f"{digest} {model.other_weight!r}".encode()).hexdigest()


def _unchanged(name: str, digest: str, active) -> str:
    """Why a scheduled run trains nothing ("" if it trains): the active version, or the newest
    saved candidate (not activated), was trained on exactly this data; training again would
    only save the same candidate, week after week."""
    if active.metadata.get("data_sha256") == digest:
        return f"unchanged training data, version {active.version} stays active"
    saved = artifacts.versions(name)
    try:
        newest = saved and artifacts.metadata_read(name, saved[-1])
    except artifacts.ArtifactError:
        return ""
    if newest and newest.get("data_sha256") == digest:
        return (
            f"unchanged training data: version {saved[-1]} was trained on it and not activated, "
            f"{active.version} stays active"
        )
    return ""


def _active_or_none(name: str):
    try:
        return artifacts.artifact_load(name)
    except artifacts.ArtifactError:
        return None  # none yet, or unusable (foreign, damaged): the new one replaces it


def _compare(model, active, texts, labels, items, groups=None) -> tuple[float, float, str]:
    """(candidate macro-F1, active macro-F1, on what) - see the module docstring."""
    seen = artifacts.items_read(active.name, active.version)
    fresh = np.ones(len(texts), dtype=bool) if seen is None else ~np.isin(items, seen)
    index = [i for i in np.nonzero(fresh)[0] if model.oof_predictions[i] is not None]
    if len(index) < MIN_FRESH:
        return (
            model.cv_metrics["macro_f1"],
            active.metadata.get("cv_metrics", {}).get("macro_f1", 0.0),
            "cross-validated (too few new items to compare on)",
        )
    y = [labels[i] for i in index]
    candidate = [model.oof_predictions[i] for i in index]
    by_repository = {"groups": [groups[i] for i in index]} if groups is not None else {}
    current = [
        p.label
        for p in active.model.predict(
            [texts[i] for i in index], with_evidence=False, **by_repository
        )
    ]
    return (
        classification_metrics(y, candidate)["macro_f1"],
        classification_metrics(y, current)["macro_f1"],
        f"on the {len(index)} items the active version was not trained on",
    )
