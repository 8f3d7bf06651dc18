"""NB-weighted logistic regression (sentiment's linear model): its ratios, and its hand-over to a
plain scikit-learn LogisticRegression that artifacts keep. Texts written for these tests."""

import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression

from classifiers.nb_logistic import NBLogisticRegression
from classifiers.sentiment import SentimentClassifier
from tests.classifiers.corpus import sentiment_rows


def presence(rows: list[list[int]]):
    return sp.csr_matrix(np.asarray(rows, dtype=np.float32))


def test_a_feature_seen_only_with_a_class_pulls_toward_it():
    x = presence([[1, 0, 1], [1, 0, 0], [0, 1, 1], [0, 1, 0]] * 3)
    y = np.array(["negative", "negative", "positive", "positive"] * 3)
    model = NBLogisticRegression(C=1.0).fit(x, y)
    assert list(model.predict(presence([[1, 0, 0], [0, 1, 0]]))) == ["negative", "positive"]
    assert model.coef_.shape == (1, 3)  # two classes: one decision
    assert model.coef_[0][1] > 0 > model.coef_[0][0]


def test_the_plain_logistic_regression_it_hands_on_decides_the_same():
    x = presence([[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 1], [1, 1, 0, 0], [0, 0, 1, 0]] * 4)
    y = np.array(["negative", "neutral", "positive", "negative", "positive"] * 4)
    model = NBLogisticRegression(C=1.0).fit(x, y)
    plain = model.to_sklearn()
    assert type(plain) is LogisticRegression
    assert np.allclose(plain.predict_proba(x), model.predict_proba(x), atol=1e-6)
    assert list(plain.predict(x)) == list(model.predict(x))


def test_the_sentiment_model_trains_on_presence_and_keeps_scikit_learn_objects_only():
    rows = sentiment_rows()
    model = SentimentClassifier(embeddings=False)
    model.fit([r["text"] for r in rows], [r["label"] for r in rows])
    assert type(model.classifier) is LogisticRegression
    [prediction] = model.predict(["Thanks, this works great!"])
    assert prediction.label == "positive" and prediction.evidence
