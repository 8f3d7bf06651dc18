"""kind by its rules (from the symptom and the question the report asks) and its model: which
one speaks, and when a triager is asked. Texts written for these tests."""

import pytest

from classifiers.facts import IssueFacts
from classifiers.kind import KindClassifier, kind_predict
from classifiers.symptom import MIN_CORRECTIONS_TO_OVERRULE, symptom_read
from classifiers.text_classifier import Prediction


def kind_of(title: str, body: str = "", **facts) -> Prediction:
    return KindClassifier.rules_predict(IssueFacts(title=title, body=body, **facts), None, 0)


@pytest.mark.parametrize(
    ("title", "body", "kind"),
    [
        ("hipMemcpy segfaults on RX 7900 XTX", "Segmentation fault (core dumped)", "bug"),
        ("rocBLAS dgemm is 3x slower on ROCm 6.3", "Same shapes, same card.", "performance"),
        ("Typo in the HIP programming guide", "'recieve' on the streams page.", "docs"),
        ("[Feature]: fp8 support in rocWMMA", "It would be great to have fp8 types.", "feature"),
        ("Is there a ROCm release for gfx1151?", "I could not tell from the matrix.", "question"),
        # a question about installing is a support request, not a bug report
        ("Which distro should I use for my RX 9070 XT?", "apt install rocm fails.", "question"),
        # a question about a crash is still a bug report
        ("Why does hipGraphLaunch crash on MI300X?", "Segmentation fault in the runtime.", "bug"),
    ],
)
def test_the_rules_read_the_kind_from_the_symptom_and_the_question_asked(title, body, kind):
    predicted = kind_of(title, body)
    assert predicted.label == kind
    assert not predicted.needs_triage
    assert predicted.evidence[0]["rule"]


def test_a_triagers_symptom_decides_the_kind():
    assert kind_of("rocFFT plans", "", predicted={"symptom": "performance"}).label == (
        "performance"
    )


def _model(label: str, *, sure: bool = True) -> Prediction:
    return Prediction(label=label, confidence=0.93, needs_triage=not sure, evidence=[])


def test_the_model_decides_only_where_the_rules_are_unsure_until_it_is_taught():
    clear, unclear = symptom_read("Segfault in rocFFT", ""), symptom_read("rocFFT plans", "")
    unsure = kind_predict(unclear, unclear.label, None, corrections=0)
    assert (unsure.label, unsure.needs_triage) == ("bug", True)
    model = kind_predict(unclear, unclear.label, _model("question"), corrections=0)
    assert (model.label, model.needs_triage) == ("question", False)
    assert model.evidence[0]["rule"].startswith("the model")
    unsure_model = kind_predict(
        unclear, unclear.label, _model("question", sure=False), corrections=0
    )
    assert (unsure_model.label, unsure_model.needs_triage) == ("bug", True)
    # the rules are sure: an untaught model only flags the disagreement for a triager
    flagged = kind_predict(clear, clear.label, _model("question"), corrections=0)
    assert (flagged.label, flagged.needs_triage) == ("bug", True)
    taught = kind_predict(
        clear, clear.label, _model("question"), corrections=MIN_CORRECTIONS_TO_OVERRULE
    )
    assert taught.label == "question" and "taught by" in taught.evidence[0]["rule"]


def test_how_many_decisions_teach_a_model_to_outrank_the_rules_is_a_setting(settings):
    settings.CLASSIFIER_DECISIONS_TO_OVERRULE = 50
    clear = symptom_read("Segfault in rocFFT", "")
    assert kind_predict(clear, clear.label, _model("question"), corrections=49).label == "bug"
    assert kind_predict(clear, clear.label, _model("question"), corrections=50).label == (
        "question"
    )
