"""The classifier registry: the one place that knows each model's facts.

A model is a module of its own (classifiers/kind.py ...) holding its class and its ENTRY (a
classifiers.entries.ModelEntry), which says what the rest of the service needs to know of it;
config/wiring.py's CLASSIFIER_MODELS lists the entries, and triage and releases ask here:

- `labels`: its classes (empty: they come from the training data, as component's do);
- `predicts`: "issue" (every issue gets one, classified in one batch with the others),
  "similar" (the duplicates index: the most similar issues), "text" (comments and posts);
- `correction`: how a triager corrects it on an issue: "choice" (one of its labels), "name"
  (a short name: component), "reference" (OWNER/NAME#N of an issue: duplicates), "" (never);
- `trained_from_database`: the weekly retraining trains it from the database;
- `page`: it has a row on the issue page's classification panel and a column in the triage
  queue, `queue_key` being the key that accepts it there;
- `triaged`: while its prediction needs triage, releases count the issue as untriaged;
- `writes_labels`: its class can be written back to GitHub as a repository label;
- its weak labeller: a model whose class defines `weak_label(title, body, labels)` labels the
  issues it trains on by its own rules; kind and component read theirs from repository labels
  (triage's label maps);
- its rules: a model whose class defines `rules_predict(facts, model, corrections)` predicts
  from an issue's facts (classifiers.facts) and its trained model's prediction, and is
  predicted without a trained model too; the models after it in entries() read its label, and
  those it `follows` are predicted again when a triager corrects one of them (the severity
  follows from the symptom).

A new model is a model file (its class and its ENTRY), a line in CLASSIFIER_MODELS and its tests.
"""

from __future__ import annotations

from functools import cache

from django.utils.module_loading import import_string

from classifiers.entries import ModelEntry
from config import linear_re, wiring

__all__ = ["ModelEntry", "entries", "entry", "label_validate", "model_class", "models", "names"]

COMPONENT_NAME = linear_re.compile(r"[\w .+/-]{1,100}")
REFERENCE = linear_re.compile(r"^([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)#(\d{1,9})$")


class UnknownModel(LookupError):
    pass


class InvalidLabel(ValueError):
    """A triager's label that the model does not take (the message says what it takes)."""


def entries() -> dict[str, ModelEntry]:
    """{name: entry}, in CLASSIFIER_MODELS order: the list as it is now (a test may replace it),
    each list imported once."""
    return _entries(tuple(wiring.CLASSIFIER_MODELS))


@cache
def _entries(paths: tuple[str, ...]) -> dict[str, ModelEntry]:
    return {entry.name: entry for entry in (import_string(path) for path in paths)}


def models() -> dict[str, type]:
    """{name: model class}."""
    return {name: entry.cls for name, entry in entries().items()}


def entry(name: str) -> ModelEntry:
    try:
        return entries()[name]
    except KeyError:
        raise UnknownModel(
            f"unknown model {name!r}; choose one of: {', '.join(sorted(entries()))}"
        ) from None


def model_class(name: str) -> type:
    return entry(name).cls


def names(**facts) -> tuple[str, ...]:
    """The models whose entries have these facts, in entries() order: names(page=True)."""
    return tuple(
        name
        for name, found in entries().items()
        if all(getattr(found, fact) == value for fact, value in facts.items())
    )


def label_validate(name: str, label: str) -> str:
    """The label a triager's decision stores, or InvalidLabel saying what the model takes.

    A reference is checked for its shape only: whether that issue exists is triage's to say."""
    found = entries().get(name)
    label = (label or "").strip()
    if found is None or not found.correction:
        raise InvalidLabel(f"{name!r} predictions cannot be corrected")
    if not label:
        raise InvalidLabel("choose a label")
    if found.correction == "choice" and label not in found.labels:
        raise InvalidLabel(f"{name} is one of {', '.join(found.labels)}")
    if found.correction == "name":
        label = label.lower()
        if not COMPONENT_NAME.fullmatch(label):
            raise InvalidLabel("a component is a short name (letters, digits, . + / - _)")
    if found.correction == "reference" and not REFERENCE.match(label):
        raise InvalidLabel("name an existing issue as OWNER/NAME#NUMBER")
    return label
