"""duplicates: the most similar existing issues by TF-IDF cosine similarity over title and body.

The index is a sparse, L2-normalised matrix; a query is one sparse matrix product, so 100,000
issues answer in milliseconds per query. Issues ingested after the index was built can be passed
as extra candidates until the next retraining adds them.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfVectorizer

from classifiers import features
from classifiers.entries import ModelEntry
from classifiers.text_classifier import TrainingDataError

MIN_SCORE = 0.2
FRESH_CACHE_MAX = 20_000  # vectors of fresh candidates kept per loaded index (a few MiB)


class DuplicateIndex:
    name: ClassVar[str] = "duplicates"
    input: ClassVar[str] = "issue"
    description: ClassVar[str] = "5 most similar issues (TF-IDF cosine over title and body)"
    needs_labels: ClassVar[bool] = False

    def __init__(self):
        self.vectorizer: TfidfVectorizer | None = None
        self.matrix = None
        self.ids: list = []
        self.cv_metrics: dict = {}
        # id -> (text, column indices, values) of fresh candidates already vectorised: the same
        # few thousand are passed on every query until the next retraining
        self._fresh_rows: dict = {}

    @staticmethod
    def text_of(row: dict) -> str:
        return features.issue_text(row.get("title", ""), row.get("body", ""))

    def fit(self, texts: list[str], ids: list, **_) -> dict:
        if len(texts) != len(ids):
            raise TrainingDataError(f"{len(texts)} texts but {len(ids)} ids")
        if len(texts) < 2:
            raise TrainingDataError("duplicates: need at least two issues to index")
        self.vectorizer = TfidfVectorizer(
            ngram_range=(1, 2),
            sublinear_tf=True,
            stop_words="english",
            min_df=1,
            max_features=2**20,
            dtype=np.float32,
        )
        self.matrix = self.vectorizer.fit_transform(texts).tocsr()
        self.ids = list(ids)
        self.cv_metrics = {"n": len(ids), "vocabulary": len(self.vectorizer.vocabulary_)}
        return self.cv_metrics

    def query(
        self,
        texts: list[str],
        *,
        k: int = 5,
        exclude: list | None = None,
        extra_ids: list | None = None,
        extra_texts: list[str] | None = None,
    ) -> list[list[tuple]]:
        """For each text, up to k (id, score) pairs, best first, scores ≥ MIN_SCORE.

        `exclude[i]` is an id never answered for text i (the issue itself)."""
        if not texts:
            return []
        ids = self.ids
        queries = self.vectorizer.transform(texts)
        scores = (queries @ self.matrix.T).toarray()
        if extra_texts:
            known = set(ids)
            fresh = [(i, t) for i, t in zip(extra_ids, extra_texts, strict=True) if i not in known]
            if fresh:
                # scored apart and appended: the same as stacking them under the index, without
                # copying the index or vectorising again the candidates seen by earlier queries
                extra = (queries @ self._fresh_matrix(fresh).T).toarray()
                scores = np.hstack([scores, extra])
                ids = ids + [i for i, _ in fresh]
        results = []
        for row_index, row in enumerate(scores):
            skip = exclude[row_index] if exclude else None
            top = np.argsort(-row)[: k + 1]
            pairs = [
                (ids[j], round(float(row[j]), 4))
                for j in top
                if row[j] >= MIN_SCORE and ids[j] != skip
            ]
            results.append(pairs[:k])
        return results

    def _fresh_matrix(self, fresh: list[tuple]) -> sp.csr_matrix:
        """The TF-IDF rows of (id, text) candidates, vectorising only those not cached as is."""
        cache = self._fresh_rows
        missing = [(i, t) for i, t in fresh if (hit := cache.get(i)) is None or hit[0] != t]
        if len(cache) + len(missing) > FRESH_CACHE_MAX:
            cache.clear()
            missing = fresh
        if missing:
            rows = self.vectorizer.transform([t for _, t in missing]).tocsr()
            for n, (i, t) in enumerate(missing):
                start, end = rows.indptr[n], rows.indptr[n + 1]
                cache[i] = (t, rows.indices[start:end].copy(), rows.data[start:end].copy())
        entries = [cache[i] for i, _ in fresh]
        indptr = np.zeros(len(entries) + 1, dtype=np.int64)
        np.cumsum([len(e[1]) for e in entries], out=indptr[1:])
        return sp.csr_matrix(
            (
                np.concatenate([e[2] for e in entries]),
                np.concatenate([e[1] for e in entries]),
                indptr,
            ),
            shape=(len(entries), self.matrix.shape[1]),
        )

    def feature_info(self) -> dict:
        return {"tfidf": ["w"], "similarity": "cosine"}

    def state(self) -> dict:
        return {
            "vectorizer": self.vectorizer,
            "matrix": self.matrix,
            "ids": self.ids,
            "cv_metrics": self.cv_metrics,
        }

    @classmethod
    def from_state(cls, state: dict) -> DuplicateIndex:
        index = cls()
        index.vectorizer, index.matrix = state["vectorizer"], state["matrix"]
        index.ids, index.cv_metrics = list(state["ids"]), dict(state.get("cv_metrics") or {})
        return index


# Its line in the registry (config/wiring.py's CLASSIFIER_MODELS names it).
ENTRY = ModelEntry(DuplicateIndex, predicts="similar", correction="reference")
