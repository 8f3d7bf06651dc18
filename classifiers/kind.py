"""kind: what a report is (bug, feature, question, docs, performance), by rules and a model.

The rules read the symptom (classifiers/symptom.py: a triager's decision when there is one, else
the symptom rules' own reading): a docs, feature, question or performance symptom is that kind;
a report that asks a question (its title, or its description's opening) and names no failure
worse than an install or set-up problem is a question ("Which distro should I use for my RX
9070 XT?" is a question about installing); any other failure is a bug. Where the symptom rules
found nothing clear, the rules are unsure: the trained model decides when it is sure (its
class's precision threshold, measured out of fold), else the rules' guess goes to a triager.
Once the model learned from enough people's decisions (classifiers.symptom.decisions_to_overrule:
triagers' corrections, maintainers' labels, labelled real reports), a sure model outranks the
rules. The evidence says which one spoke.
"""

from classifiers.entries import ModelEntry
from classifiers.facts import IssueFacts
from classifiers.symptom import (
    DECIDING_POINTS,
    STRONG,
    Reading,
    decisions_to_overrule,
    model_spoke,
    symptom_read,
)
from classifiers.text_classifier import Prediction, TextClassifier

LABELS = ("bug", "feature", "question", "docs", "performance")
KIND_OF_SYMPTOM = {
    "docs": "docs",
    "feature": "feature",
    "question": "question",
    "performance": "performance",
}
# a question about these is a support request, not a bug report
ASKED_ABOUT = ("install", "other", "question")


def kind_read(reading: Reading, symptom: str) -> tuple[str, bool, str]:
    """(kind, sure, why) from the symptom and the symptom rules' reading."""
    asked = reading.points.get("question", 0.0)
    if symptom in KIND_OF_SYMPTOM:
        return KIND_OF_SYMPTOM[symptom], reading.decided, f"the symptom is {symptom}"
    if symptom in ASKED_ABOUT and asked >= STRONG:
        return "question", True, f"it asks a question about {symptom.replace('_', ' ')}"
    if symptom == "other" or (not reading.decided and symptom == reading.guess):
        return "bug", False, "no symptom named clearly: most reports are bugs"
    margin = reading.margin >= DECIDING_POINTS / 2 or reading.label != symptom
    return "bug", margin, f"it reports a failure ({symptom.replace('_', ' ')})"


def kind_predict(
    reading: Reading, symptom: str, model: Prediction | None, *, corrections: int
) -> Prediction:
    label, sure, why = kind_read(reading, symptom)
    evidence = [{"rule": why, "kind": label, "symptom": symptom}]
    if model is not None:
        evidence.append({"model": model.label, "confidence": round(model.confidence, 4)})
        evidence.extend(model.evidence)
    model_sure = model is not None and not model.needs_triage
    taught = corrections >= decisions_to_overrule()
    if model_sure and model.label != label and (not sure or taught):
        who = f"the model, taught by {corrections} decisions" if taught else "the model"
        evidence.insert(0, {"rule": f"{who} (the rules were {'sure' if sure else 'unsure'})"})
        return model_spoke(model, evidence, needs_triage=False)
    disagrees = model_sure and model.label != label
    return Prediction(
        label=label,
        confidence=1.0 if sure else 0.5,
        needs_triage=not sure or disagrees,
        evidence=evidence,
        probabilities=model.probabilities if model is not None else {},
    )


class KindClassifier(TextClassifier):
    name = "kind"
    labels = LABELS
    input = "issue"
    description = "bug / feature / question / docs / performance"
    embedding_weight = 1.0  # with the embeddings extra switched on (CLASSIFIER_EMBEDDINGS)
    # each repository's own model, with the other repositories' issues at a lower weight
    per_repository = True
    other_repositories_setting = "CLASSIFIER_KIND_OTHER_REPOSITORIES_WEIGHT"
    follows = ("symptom",)  # predicted again when a triager corrects the symptom

    @staticmethod
    def rules_predict(facts: IssueFacts, model: Prediction | None, corrections: int) -> Prediction:
        reading = symptom_read(facts.title, facts.body, facts.labels)
        symptom = facts.predicted.get("symptom") or reading.label
        return kind_predict(reading, symptom, model, corrections=corrections)


# Its line in the registry (config/wiring.py's CLASSIFIER_MODELS names it).
ENTRY = ModelEntry(
    KindClassifier,
    correction="choice",
    page=True,
    queue_key="a",
    triaged=True,
    writes_labels=True,
)
