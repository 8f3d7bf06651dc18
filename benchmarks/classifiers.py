"""Quality and cost of the classifiers on real labelled data (figures for docs/PERFORMANCE.md).

    python benchmarks/classifiers.py --nlbse ../shared/data/nlbse24/issues_train.csv \
        --senti ../shared/data/senti4sd/train.csv [--json] [--skip-cost]

kind: the NLBSE'24 protocol (one model per repository, trained on its 300 issues, macro-F1
averaged over the five), in stratified 5-fold cross-validation; each outer fold trains the whole
model, thresholds included, on the other four folds only. The same with the issue-form template
headings ("### Describe the bug") stripped, since they leak the label. sentiment: Senti4SD in
5-fold cross-validation. Cost: training on 10,000 issues (the NLBSE issues replicated), batch
prediction throughput, and duplicate search over 100,000 issues.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DEBUG", "1")

import numpy as np  # noqa: E402
from sklearn.metrics import f1_score  # noqa: E402
from sklearn.model_selection import StratifiedKFold  # noqa: E402

from classifiers import features  # noqa: E402
from classifiers.duplicates import DuplicateIndex  # noqa: E402
from classifiers.kind import KindClassifier  # noqa: E402
from classifiers.sentiment import SentimentClassifier  # noqa: E402

csv.field_size_limit(2**31 - 1)
HEADING = re.compile(r"^\s*(?:#{1,6}\s.*|\*\*[^*\n]{1,60}\*\*:?\s*|_No response_)\s*$", re.M)


def read(path: str) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def strip_template(body: str) -> str:
    return HEADING.sub(" ", body or "")


def cross_validate(model_class, texts: list[str], labels: list[str], folds: int = 5) -> dict:
    y = np.asarray(labels)
    predicted = np.empty(len(y), dtype=object)
    accepted = np.zeros(len(y), dtype=bool)
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=42)
    for train, test in splitter.split(texts, y):
        model = model_class()
        model.fit([texts[i] for i in train], list(y[train]))
        for i, p in zip(
            test, model.predict([texts[i] for i in test], with_evidence=False), strict=True
        ):
            predicted[i] = p.label
            accepted[i] = not p.needs_triage
    correct = predicted == y
    return {
        "macro_f1": float(f1_score(y, predicted.astype(str), average="macro")),
        "accuracy": float(correct.mean()),
        "coverage": float(accepted.mean()),
        "precision_at_threshold": float(correct[accepted].mean()) if accepted.any() else 0.0,
        "n": len(y),
        "correct_accepted": int(correct[accepted].sum()),
        "accepted": int(accepted.sum()),
    }


def kind_per_repository(rows: list[dict], *, strip: bool) -> dict:
    per_repo = {}
    for repo in sorted({r["repo"] for r in rows}):
        mine = [r for r in rows if r["repo"] == repo]
        texts = [
            features.issue_text(r["title"], strip_template(r["body"]) if strip else r["body"])
            for r in mine
        ]
        per_repo[repo] = cross_validate(KindClassifier, texts, [r["label"] for r in mine])
    accepted = sum(m["accepted"] for m in per_repo.values())
    n = sum(m["n"] for m in per_repo.values())
    return {
        "per_repository": {k: round(v["macro_f1"], 4) for k, v in per_repo.items()},
        "macro_f1_mean": float(np.mean([m["macro_f1"] for m in per_repo.values()])),
        "coverage": accepted / n,
        "precision_at_threshold": sum(m["correct_accepted"] for m in per_repo.values()) / accepted,
    }


def cost(rows: list[dict]) -> dict:
    texts = [features.issue_text(r["title"], r["body"]) for r in rows]
    labels = [r["label"] for r in rows]
    reps = -(-10_000 // len(texts))
    # replicate, each copy tagged so that the vectorisers see 10,000 distinct documents
    big = [f"{t}\ncopy{k}" for k in range(reps) for t in texts][:10_000]
    big_labels = (labels * reps)[:10_000]
    started = time.perf_counter()
    model = KindClassifier()
    model.fit(big, big_labels)
    train_seconds = time.perf_counter() - started

    batch = big[:5000]
    started = time.perf_counter()
    model.predict(batch, with_evidence=False)
    plain = len(batch) / (time.perf_counter() - started)
    started = time.perf_counter()
    model.predict(batch, with_evidence=True)
    explained = len(batch) / (time.perf_counter() - started)

    raw = [f"{r['title']}\n{r['body'][:2000]}" for r in rows]
    corpus = [f"{raw[i % len(raw)]} build{i} host{i % 977}" for i in range(100_000)]
    started = time.perf_counter()
    index = DuplicateIndex()
    index.fit(corpus, list(range(len(corpus))))
    index_seconds = time.perf_counter() - started
    queries = corpus[:200]
    started = time.perf_counter()
    for start in range(0, len(queries), 20):
        index.query(queries[start : start + 20], exclude=list(range(start, start + 20)))
    per_query_ms = (time.perf_counter() - started) / len(queries) * 1000
    return {
        "train_10k_seconds": train_seconds,
        "predict_per_second": plain,
        "predict_with_evidence_per_second": explained,
        "duplicates_index_100k_seconds": index_seconds,
        "duplicates_query_ms": per_query_ms,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nlbse", required=True, help="nlbse24/issues_train.csv")
    parser.add_argument("--senti", required=True, help="senti4sd/train.csv")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--skip-cost", action="store_true")
    args = parser.parse_args()

    nlbse, senti = read(args.nlbse), read(args.senti)
    results = {"kind": kind_per_repository(nlbse, strip=False)}
    results["kind_template_stripped"] = kind_per_repository(nlbse, strip=True)
    results["sentiment"] = cross_validate(
        SentimentClassifier, [r["text"] for r in senti], [r["label"] for r in senti]
    )
    if not args.skip_cost:
        results["cost"] = cost(nlbse)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for name in ("kind", "kind_template_stripped"):
        r = results[name]
        print(
            f"{name}: macro-F1 {r['macro_f1_mean']:.3f} "
            f"({', '.join(f'{k} {v:.3f}' for k, v in r['per_repository'].items())}); "
            f"at thresholds precision {r['precision_at_threshold']:.3f}, "
            f"coverage {r['coverage']:.1%}"
        )
    s = results["sentiment"]
    print(
        f"sentiment: macro-F1 {s['macro_f1']:.3f}, accuracy {s['accuracy']:.3f}; at thresholds "
        f"precision {s['precision_at_threshold']:.3f}, coverage {s['coverage']:.1%}"
    )
    if "cost" in results:
        c = results["cost"]
        print(
            f"cost: training on 10,000 issues {c['train_10k_seconds']:.1f}s; prediction "
            f"{c['predict_per_second']:.0f} issues/s ({c['predict_with_evidence_per_second']:.0f} "
            f"with evidence); duplicates over 100,000 issues: index "
            f"{c['duplicates_index_100k_seconds']:.1f}s, {c['duplicates_query_ms']:.1f} ms a query"
        )


if __name__ == "__main__":
    main()
