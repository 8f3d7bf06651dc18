"""A calibrated text classifier with per-class abstention and evidence; each model subclasses it.

fit(texts, labels):
  1. the TF-IDF features are fitted once on all texts (unsupervised); with the embeddings extra
     switched on for a model that uses it, each text's sentence embedding (a frozen encoder, so
     no label is seen) is appended to its TF-IDF row;
  2. the classifier is cross-validated on them (stratified folds, fixed seed; 5, or 3 from
     LARGE_TRAINING_SET items on): the out-of-fold
     probabilities give the cross-validated metrics and, per class, the lowest confidence at which
     that class's predictions still reach `target_precision` (its abstention threshold);
  3. the classifier is fitted on everything.
A model with `finetune = True` (sentiment) trains as well, with the embeddings extra switched on,
the packaged sentence encoder fine-tuned on its labels (classifiers/finetune.py): out of fold on
min(folds, 3) folds for the metrics and thresholds, then on everything; its probabilities are
averaged with the linear model's (`finetune_weight`), and the evidence stays the TF-IDF words.
The classifier is a multinomial logistic regression (probabilities of its own, one fit) unless a
model asks for the sigmoid-calibrated linear SVM (`linear = "calibrated_svm"`, three fits) or
NB-weighted logistic regression on presence features (`linear = "nb_logistic"`, one binary fit per
class, classifiers/nb_logistic.py; kept as a plain LogisticRegression with the ratios folded in).
A prediction under its class's threshold is kept but marked `needs_triage`: a human decides.
Evidence: the words of the text with the largest weight toward the predicted class.
A model with `per_repository = True` (kind), given each text's repository, also fits one linear
model per repository on the same features (classifiers/per_repository.py); a text is predicted by
its repository's model, or by the pooled one for a repository without its own.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, f1_score, precision_recall_fscore_support
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.pipeline import FeatureUnion
from sklearn.svm import LinearSVC

from classifiers import embeddings, features, per_repository
from classifiers import finetune as tuning
from classifiers.nb_logistic import NBLogisticRegression

DEFAULT_FOLDS = 5
LARGE_TRAINING_SET = 5000  # from this size on, 3 folds: enough out-of-fold items, 2 fits fewer
SEED = 0
MIN_THRESHOLD_SUPPORT = 5
MIN_CLASS_EXAMPLES = 5  # fewer: the class is left out (too few to cross-validate)
FINETUNE_FOLDS = 3  # each fold fine-tunes the encoder once: the costly part of training


class TrainingDataError(ValueError):
    """The texts and labels cannot train this model (too few, one class, mismatched lengths)."""


@dataclass
class Prediction:
    label: str
    confidence: float
    needs_triage: bool
    evidence: list[dict] = field(default_factory=list)
    probabilities: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "label": self.label,
            "confidence": round(self.confidence, 4),
            "needs_triage": self.needs_triage,
            "evidence": self.evidence,
            "probabilities": {k: round(v, 4) for k, v in self.probabilities.items()},
        }


def classification_metrics(
    y_true: list[str], y_pred: list[str], accepted: np.ndarray | None = None
) -> dict:
    """macro_f1, accuracy, per_class, and with an abstention mask its coverage and precision."""
    labels = sorted(set(y_true) | set(y_pred))
    precision, recall, f1, support = precision_recall_fscore_support(
        y_true, y_pred, labels=labels, zero_division=0
    )
    metrics = {
        "n": len(y_true),
        "macro_f1": float(f1_score(y_true, y_pred, labels=sorted(set(y_true)), average="macro")),
        "accuracy": float(accuracy_score(y_true, y_pred)),
        "per_class": {
            label: {
                "precision": float(precision[i]),
                "recall": float(recall[i]),
                "f1": float(f1[i]),
                "support": int(support[i]),
            }
            for i, label in enumerate(labels)
        },
    }
    if accepted is not None:
        accepted = np.asarray(accepted, dtype=bool)
        kept = int(accepted.sum())
        correct = int(sum(t == p for t, p, a in zip(y_true, y_pred, accepted, strict=True) if a))
        metrics["coverage"] = kept / len(y_true) if y_true else 0.0
        metrics["precision_at_threshold"] = correct / kept if kept else 0.0
    return metrics


def abstention_thresholds(
    y_true: np.ndarray, y_pred: np.ndarray, confidence: np.ndarray, classes, target: float
) -> dict[str, float]:
    """Per class, the lowest confidence at which predictions of that class reach `target` precision.

    With too few predictions of a class to tell, the threshold is 0.5; when no threshold reaches
    the target, it is the highest confidence seen (only the surest predictions pass).
    """
    thresholds = {}
    for label in classes:
        mine = y_pred == label
        if mine.sum() < MIN_THRESHOLD_SUPPORT:
            thresholds[str(label)] = 0.5
            continue
        order = np.argsort(-confidence[mine])
        conf = confidence[mine][order]
        hits = (y_true[mine][order] == label).astype(float)
        precision = np.cumsum(hits) / np.arange(1, len(hits) + 1)
        # the largest prefix whose precision reaches the target, ending at a confidence value
        ok = np.nonzero(precision >= target)[0]
        thresholds[str(label)] = float(conf[ok[-1]]) if len(ok) else float(conf[0])
    return thresholds


def _setting(name: str, default):
    try:
        return getattr(settings, name, default)
    except ImproperlyConfigured:  # used outside a configured Django project
        return default


def _embeddings_setting() -> bool:
    return bool(_setting("CLASSIFIER_EMBEDDINGS", False))


class TextClassifier:
    """Base of the text models. Subclasses set the class attributes and may override features."""

    name: ClassVar[str] = ""
    labels: ClassVar[tuple[str, ...]] = ()  # its classes; empty: from the training data
    input: ClassVar[str] = "issue"  # "issue": (title, body) rows; "text": one text per row
    description: ClassVar[str] = ""
    target_precision: ClassVar[float] = 0.90
    linear: ClassVar[str] = "logistic"  # or "calibrated_svm", "nb_logistic"
    c: ClassVar[float] = 10.0  # inverse regularisation of the linear model
    # weight of the sentence embedding beside the TF-IDF row; 0: this model never uses them
    embedding_weight: ClassVar[float] = 0.0
    # with the embeddings extra switched on: also fine-tune the encoder (classifiers/finetune.py)
    finetune: ClassVar[bool] = False
    finetune_weight: ClassVar[float] = 0.5  # its share of the averaged probabilities
    finetune_config: ClassVar[tuning.FineTuneConfig] = tuning.FineTuneConfig()
    evidence_terms: ClassVar[int] = 6
    # one linear model per repository when fit() is given each text's repository
    per_repository: ClassVar[bool] = False
    # the setting that holds the other repositories' weight in a repository's model (1: pooled)
    other_repositories_setting: ClassVar[str] = ""

    def __init__(self, *, embeddings: bool | None = None, other_weight: float | None = None):
        """embeddings: None follows settings.CLASSIFIER_EMBEDDINGS (off when unset);
        other_weight: None follows the model's other_repositories_setting."""
        if embeddings is None:
            embeddings = _embeddings_setting()
        if other_weight is None:
            other_weight = float(_setting(self.other_repositories_setting, 1.0))
        if not 0 <= other_weight <= 1:
            raise ImproperlyConfigured(
                f"{self.other_repositories_setting or 'other_weight'} is the other repositories' "
                f"weight, from 0 to 1; got {other_weight}"
            )
        self.other_weight = other_weight
        self.repository_models: dict[str, dict] = {}
        self.use_embeddings = embeddings and (self.embedding_weight > 0 or self.finetune)
        self.features: FeatureUnion | None = None
        self.embeddings: dict | None = None  # the encoder a fitted model was trained with
        self.finetuned: tuning.FineTuned | None = None
        self.blend_weight = self.finetune_weight
        self.classifier = None
        self.classes: list[str] = []
        self.thresholds: dict[str, float] = {}
        self.cv_metrics: dict = {}
        self.oof_predictions: list[str | None] = []
        self._feature_names = None

    # --- what the subclasses vary ------------------------------------------------------------

    def build_features(self) -> FeatureUnion:
        return features.word_and_char_tfidf()

    def build_classifier(self, n_min_class: int):
        if self.linear == "calibrated_svm":
            return CalibratedClassifierCV(
                LinearSVC(C=self.c, class_weight="balanced"),
                method="sigmoid",
                cv=min(3, n_min_class),
            )
        if self.linear == "nb_logistic":
            return NBLogisticRegression(C=self.c)
        return LogisticRegression(C=self.c, max_iter=2000)

    def feature_info(self) -> dict:
        """Which features a fitted model uses (recorded in the artifact's metadata)."""
        info = {"tfidf": sorted(name for name, _ in self.features.transformer_list)}
        info["linear"] = self.linear
        if self.embeddings:
            info["embeddings"] = dict(self.embeddings)
        if self.finetuned:
            info["finetuned"] = dict(self.finetuned.info(), weight=self.blend_weight)
        return info

    def _matrix(self, texts: list[str]):
        """(the TF-IDF rows, the rows the classifier sees): the same unless embeddings are on."""
        x = self.features.transform(texts)
        return x, self._with_embeddings(x, texts)

    def _with_embeddings(self, x, texts: list[str]):
        if not self.embeddings:
            return x
        vectors = embeddings.encode([features.embedding_text(t) for t in texts])
        weight = self.embeddings["weight"]
        return sp.hstack([x, sp.csr_matrix(vectors * weight)], format="csr")

    @classmethod
    def text_of(cls, row: dict) -> str:
        if cls.input == "issue":
            return features.issue_text(row.get("title", ""), row.get("body", ""))
        return row.get("text", "") or ""

    # --- training ----------------------------------------------------------------------------

    def fit(
        self,
        texts: list[str],
        labels: list[str],
        *,
        folds: int = DEFAULT_FOLDS,
        groups: list[str] | None = None,
    ) -> dict:
        """groups: each text's repository (OWNER/NAME), for a per_repository model."""
        if len(texts) != len(labels) or (groups is not None and len(groups) != len(labels)):
            raise TrainingDataError(f"{len(texts)} texts but {len(labels)} labels")
        counts = Counter(labels)
        kept = {label for label, n in counts.items() if n >= MIN_CLASS_EXAMPLES}
        if len(kept) < 2:
            raise TrainingDataError(
                f"{self.name}: need at least two classes with {MIN_CLASS_EXAMPLES} examples each, "
                f"got {dict(counts)}"
            )
        all_labels = list(labels)
        mask = [lb in kept for lb in labels]
        texts = [t for t, keep in zip(texts, mask, strict=True) if keep]
        labels = [lb for lb, keep in zip(labels, mask, strict=True) if keep]
        if groups is not None:
            groups = [per_repository.group_key(g) for g, k in zip(groups, mask, strict=True) if k]
        y = np.asarray(labels)
        n_min = min(Counter(labels).values())
        if len(texts) >= LARGE_TRAINING_SET:
            folds = min(folds, 3)
        folds = max(2, min(folds, n_min))
        smallest_train_fold = n_min - -(-n_min // folds)  # per class, in each training fold

        self.features = self.build_features()
        self.embeddings = None
        self.finetuned = None
        if self.use_embeddings:
            try:
                encoder = embeddings.encoder_info()
            except embeddings.EmbeddingsUnavailable as exc:
                raise TrainingDataError(f"{self.name}: {exc}") from None
            if self.embedding_weight > 0:
                self.embeddings = dict(encoder, weight=self.embedding_weight)
        x = self._with_embeddings(self.features.fit_transform(texts), texts)
        estimator = self.build_classifier(smallest_train_fold)
        cv = StratifiedKFold(n_splits=folds, shuffle=True, random_state=SEED)
        splits = list(cv.split(x, y))
        by_repository = self._by_repository(groups)
        if by_repository:  # the folds' models are where the repositories' models start
            proba, fold_models = per_repository.out_of_fold(estimator, x, y, splits)
        else:
            proba = cross_val_predict(clone(estimator), x, y, cv=splits, method="predict_proba")
        classes = np.unique(y)  # cross_val_predict orders columns by sorted class
        finetuning = self.use_embeddings and self.finetune
        if finetuning:  # the encoder's texts and class indices, for its folds and final fit
            encoder_texts, index = self._encoder_texts(texts), np.searchsorted(classes, y)
            proba = self._blend(
                proba, self._finetune_out_of_fold(encoder_texts, y, index, len(classes))
            )
        oof_pred = classes[proba.argmax(axis=1)]
        oof_conf = proba.max(axis=1)
        self.thresholds = abstention_thresholds(
            y, oof_pred, oof_conf, classes, self.target_precision
        )
        accepted = np.array(
            [c >= self.thresholds[p] for p, c in zip(oof_pred, oof_conf, strict=True)]
        )
        self.classifier = estimator.fit(x, y)
        if isinstance(self.classifier, NBLogisticRegression):  # artifacts: scikit-learn only
            self.classifier = self.classifier.to_sklearn()
        self.repository_models = {}
        if by_repository:
            oof_pred, accepted = self._fit_repositories(
                x, y, np.asarray(groups), splits, fold_models, oof_pred, accepted
            )
        self.cv_metrics = classification_metrics(list(y), list(oof_pred), accepted)
        # out-of-fold prediction per input item (None for a left-out class); not saved
        oof = iter(oof_pred)
        self.oof_predictions = [str(next(oof)) if lb in kept else None for lb in all_labels]
        self.cv_metrics.update(
            folds=folds,
            seed=SEED,
            dropped_classes=sorted(set(counts) - kept),
            features=self._features_name(finetuning),
        )
        if self.repository_models:
            self.cv_metrics.update(
                other_repositories_weight=self.other_weight,
                per_repository=self._repository_metrics,
            )
        self.classes = [str(c) for c in self.classifier.classes_]
        if finetuning:
            state = tuning.finetune(encoder_texts, index, len(classes), self.finetune_config)
            # predictions come from the weights as saved (float16), in process and once loaded
            self.finetuned = tuning.FineTuned(state)
        self._feature_names = None
        return self.cv_metrics

    def _by_repository(self, groups) -> bool:
        return (
            self.per_repository
            and groups is not None
            and self.other_weight < 1
            and not (self.use_embeddings and self.finetune)
        )

    def _fit_repositories(self, x, y, groups, splits, fold_models, oof_pred, accepted):
        """Fit the per-repository models; the pooled out-of-fold predictions and acceptances
        with each modelled repository's own in place of the pooled model's."""
        fitted = per_repository.repositories_fit(
            estimator=self.classifier,
            x=x,
            y=y,
            groups=groups,
            other_weight=self.other_weight,
            splits=splits,
            fold_models=fold_models,
            pooled=self.classifier,
            thresholds_of=lambda *args: abstention_thresholds(*args, self.target_precision),
        )
        self.repository_models = fitted.models
        oof_pred, accepted = oof_pred.astype(object), accepted.copy()
        for group, model in fitted.models.items():
            own = groups == group
            oof_pred[own] = fitted.oof_pred[own]
            accepted[own] = [
                c >= model["thresholds"][p]
                for p, c in zip(fitted.oof_pred[own], fitted.oof_conf[own], strict=True)
            ]
        self._repository_metrics = fitted.metrics
        return oof_pred.astype(str), accepted

    def _features_name(self, finetuning: bool) -> str:
        if finetuning:
            return "tfidf+finetuned"
        return "tfidf+embeddings" if self.embeddings else "tfidf"

    def _finetune_out_of_fold(
        self, texts: list[str], y: np.ndarray, index: np.ndarray, n_classes: int
    ) -> np.ndarray:
        n_min = min(Counter(y.tolist()).values())
        folds = max(2, min(FINETUNE_FOLDS, n_min))
        proba = np.zeros((len(texts), n_classes))
        cv = StratifiedKFold(n_splits=folds, shuffle=True, random_state=SEED)
        for train, test in cv.split(texts, y):
            state = tuning.finetune(
                [texts[i] for i in train], index[train], n_classes, self.finetune_config
            )
            proba[test] = tuning.FineTuned(state).predict_proba([texts[i] for i in test])
        return proba

    @staticmethod
    def _encoder_texts(texts: list[str]) -> list[str]:
        return [features.embedding_text(t) for t in texts]

    def _blend(self, linear: np.ndarray, finetuned: np.ndarray) -> np.ndarray:
        """The fine-tuned encoder's share is the one the model was trained with (in its state)."""
        return (1 - self.blend_weight) * linear + self.blend_weight * finetuned

    # --- prediction --------------------------------------------------------------------------

    def predict_proba(self, texts: list[str], *, groups: list[str] | None = None) -> np.ndarray:
        return self._proba(texts, self._matrix(texts)[1], self._repositories(texts, groups))

    def _repositories(self, texts: list[str], groups: list[str] | None) -> list[str]:
        """Per text, the repository whose own model predicts it ("": the pooled model)."""
        if groups is None or not self.repository_models:
            return [""] * len(texts)
        keys = [per_repository.group_key(g) for g in groups]
        return [key if key in self.repository_models else "" for key in keys]

    def _proba(self, texts: list[str], rows, repositories: list[str]) -> np.ndarray:
        proba = self.classifier.predict_proba(rows)
        if self.finetuned:
            proba = self._blend(proba, self.finetuned.predict_proba(self._encoder_texts(texts)))
        owner = np.asarray(repositories)
        classes = np.asarray(self.classes)
        for repository in set(repositories) - {""}:
            mine = np.nonzero(owner == repository)[0]
            model = self.repository_models[repository]["classifier"]
            proba[mine] = per_repository.aligned_proba(model, rows[mine], classes)
        return proba

    def predict(
        self, texts: list[str], *, with_evidence: bool = True, groups: list[str] | None = None
    ) -> list[Prediction]:
        """groups: each text's repository (OWNER/NAME), for a model fitted per repository."""
        if not texts:
            return []
        x, full = self._matrix(texts)
        repositories = self._repositories(texts, groups)
        proba = self._proba(texts, full, repositories)
        best = proba.argmax(axis=1)
        coefs = {r: self._class_weights(r) for r in set(repositories)} if with_evidence else None
        predictions = []
        for i, column in enumerate(best):
            label = self.classes[column]
            confidence = float(proba[i, column])
            thresholds = self._thresholds(repositories[i])
            weights = coefs[repositories[i]][column] if with_evidence else None
            predictions.append(
                Prediction(
                    label=label,
                    confidence=confidence,
                    needs_triage=confidence < thresholds.get(label, 0.5),
                    evidence=self._evidence(x[i], weights) if with_evidence else [],
                    probabilities={
                        c: float(p) for c, p in zip(self.classes, proba[i], strict=True)
                    },
                )
            )
        return predictions

    def _thresholds(self, repository: str) -> dict[str, float]:
        if repository:
            return self.repository_models[repository]["thresholds"]
        return self.thresholds

    def _class_weights(self, repository: str = "") -> np.ndarray:
        """(n_classes, n_tfidf_features) weights of the linear model (averaged over calibration
        folds for the calibrated SVM); embedding dimensions explain nothing and are left out.
        With a repository, its own model's, one row per class of the pooled model."""
        classifier = (
            self.repository_models[repository]["classifier"] if repository else self.classifier
        )
        if hasattr(classifier, "calibrated_classifiers_"):
            coefs = [c.estimator.coef_ for c in classifier.calibrated_classifiers_]
            coef = np.mean(coefs, axis=0)
        else:
            coef = classifier.coef_
        if coef.shape[0] == 1:  # binary: one row for the positive class
            coef = np.vstack([-coef[0], coef[0]])
        coef = coef[:, : len(self._names())]
        if list(classifier.classes_) == self.classes:
            return coef
        rows = np.zeros((len(self.classes), coef.shape[1]))
        rows[np.searchsorted(self.classes, [str(c) for c in classifier.classes_])] = coef
        return rows

    def _names(self) -> np.ndarray:
        if self._feature_names is None:
            self._feature_names = self.features.get_feature_names_out()
        return self._feature_names

    def _evidence(self, row, weights: np.ndarray) -> list[dict]:
        row = row.tocsr()
        names = self._names()
        contributions = row.data * weights[row.indices]
        order = np.argsort(-contributions)
        evidence = []
        for j in order:
            if contributions[j] <= 0 or len(evidence) >= self.evidence_terms:
                break
            name = names[row.indices[j]]
            term = name[3:]
            # words explain; char n-grams and stop words only add weight
            if name.startswith("w__") and not set(term.split()) <= ENGLISH_STOP_WORDS:
                evidence.append({"term": term, "weight": round(float(contributions[j]), 4)})
        return evidence

    # --- state for artifacts (plain data and scikit-learn objects; no class of ours) -----------

    def state(self) -> dict:
        return {
            "features": self.features,
            "classifier": self.classifier,
            "classes": self.classes,
            "thresholds": self.thresholds,
            "cv_metrics": self.cv_metrics,
            "embeddings": self.embeddings,
            "finetuned": self.finetuned.state if self.finetuned else None,
            "finetune_weight": self.blend_weight,
            "repository_models": self.repository_models,
            "other_weight": self.other_weight,
        }

    @classmethod
    def from_state(cls, state: dict) -> TextClassifier:
        """Raises embeddings.EmbeddingsUnavailable when the state needs an encoder not installed."""
        model = cls(embeddings=False)
        model.embeddings = state.get("embeddings")
        if model.embeddings:
            embeddings.encoder_check(model.embeddings)
        if state.get("finetuned"):
            model.finetuned = tuning.FineTuned(state["finetuned"])
            model.blend_weight = state["finetune_weight"]
        model.features = state["features"]
        model.classifier = state["classifier"]
        model.classes = list(state["classes"])
        model.thresholds = dict(state["thresholds"])
        model.cv_metrics = dict(state.get("cv_metrics") or {})
        model.repository_models = dict(state.get("repository_models") or {})
        model.other_weight = state.get("other_weight", 1.0)
        return model
