import pytest

from classifiers import features
from classifiers.duplicates import DuplicateIndex
from classifiers.registry import UnknownModel, model_class, models
from classifiers.severity import SeverityClassifier
from classifiers.text_classifier import TrainingDataError
from tests.classifiers.corpus import kind_rows, sentiment_rows


def issue_texts(rows):
    return [features.issue_text(r["title"], r["body"]) for r in rows]


def test_the_registry_names_every_model():
    assert set(models()) == {"kind", "component", "symptom", "severity", "sentiment", "duplicates"}
    with pytest.raises(UnknownModel, match="choose one of"):
        model_class("colour")


def test_kind_trains_and_predicts_with_evidence_and_thresholds():
    rows = kind_rows()
    model = model_class("kind")()
    metrics = model.fit(issue_texts(rows), [r["label"] for r in rows])
    assert metrics["macro_f1"] > 0.8
    assert set(model.thresholds) == {"bug", "feature", "question", "docs", "performance"}
    [bug, feature] = model.predict(
        [
            features.issue_text("MIOpen crashes with a segmentation fault", "stack trace below"),
            features.issue_text("Feature request: please add support for bf16", "new API"),
        ]
    )
    assert (bug.label, feature.label) == ("bug", "feature")
    assert 0 < bug.confidence <= 1
    assert abs(sum(bug.probabilities.values()) - 1) < 1e-6
    assert {"crashes", "segmentation"} & {e["term"] for e in bug.evidence}
    assert bug.needs_triage == (bug.confidence < model.thresholds["bug"])


def test_component_learns_its_classes_from_the_data():
    rows = kind_rows()
    labels = ["rocblas" if "rocBLAS" in r["title"] else "other" for r in rows]
    model = model_class("component")()
    model.fit(issue_texts(rows), labels)
    assert model.classes == ["other", "rocblas"]
    [prediction] = model.predict([features.issue_text("rocBLAS gemm fails", "")])
    assert prediction.label == "rocblas"


def test_severity_learns_from_the_weak_labels_of_its_rules():
    rows = kind_rows()
    labels = [SeverityClassifier.weak_label(r["title"], r["body"]) for r in rows]
    assert set(labels) == {"high", "medium", "low"}  # crashes; slowness; docs, asks, requests
    model = model_class("severity")()
    model.fit(issue_texts(rows), labels)
    [prediction] = model.predict(
        [features.issue_text("rocFFT crashes with a segmentation fault", "stack trace")]
    )
    assert prediction.label == "high"
    assert {"crashes", "segmentation"} & {e["term"] for e in prediction.evidence}


def test_sentiment_trains_and_predicts():
    rows = sentiment_rows()
    model = model_class("sentiment")()
    model.fit([r["text"] for r in rows], [r["label"] for r in rows])
    labels = [
        p.label for p in model.predict(["Thanks, great answer!", "This is terrible, useless"])
    ]
    assert labels == ["positive", "negative"]


def test_a_single_class_cannot_train():
    with pytest.raises(TrainingDataError, match="at least two classes"):
        model_class("kind")().fit(["a crash"] * 10, ["bug"] * 10)


def test_duplicates_finds_the_near_copy_and_never_the_issue_itself():
    rows = kind_rows()
    texts = issue_texts(rows)
    index = DuplicateIndex()
    index.fit(texts, list(range(len(texts))))
    [pairs] = index.query([texts[3]], k=5, exclude=[3])
    assert 3 not in [i for i, _ in pairs]
    assert len(pairs) <= 5
    assert [s for _, s in pairs] == sorted((s for _, s in pairs), reverse=True)
    # an issue ingested after the index was built is a candidate too (words the index knows)
    [fresh] = index.query(
        ["README latency TFLOPS Strix Halo"],
        extra_ids=[999],
        extra_texts=["latency and TFLOPS in the README for Strix Halo"],
    )
    assert fresh[0][0] == 999
    assert fresh[0][1] > 0.8


def test_fresh_candidates_score_the_same_on_every_query_and_after_their_text_changes():
    rows = kind_rows()
    texts = issue_texts(rows)
    index = DuplicateIndex()
    index.fit(texts[:-20], list(range(len(texts) - 20)))
    extra_ids, extra_texts = list(range(1000, 1020)), texts[-20:]
    queries = texts[-20:-15]
    first = index.query(queries, extra_ids=extra_ids, extra_texts=extra_texts)
    assert first == index.query(queries, extra_ids=extra_ids, extra_texts=extra_texts)
    assert [pairs[0][0] for pairs in first] == extra_ids[:5]  # each finds itself, fresh
    # a candidate edited since the last query is scored on its new text
    edited = ["nothing in common at all"] + extra_texts[1:]
    [again, *_] = index.query(queries, extra_ids=extra_ids, extra_texts=edited)
    assert 1000 not in [i for i, _ in again]
    rebuilt = DuplicateIndex()
    rebuilt.fit(texts[:-20], list(range(len(texts) - 20)))
    assert again == rebuilt.query(queries[:1], extra_ids=extra_ids, extra_texts=edited)[0]


def test_issue_text_drops_code_and_urls_and_repeats_the_title():
    text = features.issue_text("Crash", "see https://x.org/a\n```\nsecret_token_in_code\n```\nend")
    assert text.count("Crash") == 2
    assert "secret_token_in_code" not in text and "https://" not in text
