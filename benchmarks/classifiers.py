"""Quality and cost of the classifiers on real labelled data (figures for docs/PERFORMANCE.md).

    python benchmarks/classifiers.py --nlbse ../shared/data/nlbse24/issues_train.csv \
        --senti ../shared/data/senti4sd/train.csv [--json] [--skip-cost] \
        [--configs tfidf,embeddings] [--sections kind,kind_across,sentiment,cost,sentiment_cost] \
        [--other-weights 0.3,1] [--jobs N]

kind: the NLBSE'24 protocol (one model per repository, trained on its 300 issues, macro-F1
averaged over the five), in stratified 5-fold cross-validation; each outer fold trains the whole
model, thresholds included, on the other four folds only. The same with the issue-form template
headings ("### Describe the bug") stripped, since they leak the label. kind_across: the same
folds, each repository's model as the service trains it (classifiers/per_repository.py): its
own four folds at weight 1 and every issue of the other four repositories at each of
--other-weights (1: one pooled model, as a single model for every tracked repository); the test
fold is always the repository's own and never trained on. sentiment: Senti4SD in
5-fold cross-validation. Cost: training on 10,000 issues (the NLBSE issues replicated), batch
prediction throughput, and duplicate search over 100,000 issues; training sentiment on all the
Senti4SD posts and its prediction throughput.

Two configurations: "tfidf" (the default install) and "embeddings" (the optional extra, pip
install 'rocm-triage[embeddings]': kind adds the frozen sentence embedding to its TF-IDF row,
sentiment averages its SVM with the encoder fine-tuned on the training fold); the second is
measured when the extra is installed, with what it adds to an installation. --jobs trains outer
folds in parallel processes (timed in CPU seconds, as on one core each).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import sys
import time
import tomllib
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DEBUG", "1")

import numpy as np  # noqa: E402
from joblib import Parallel, delayed  # noqa: E402
from packaging.requirements import Requirement  # noqa: E402
from packaging.utils import canonicalize_name  # noqa: E402
from sklearn.metrics import f1_score  # noqa: E402
from sklearn.model_selection import StratifiedKFold  # noqa: E402

from classifiers import embeddings, features  # noqa: E402
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


def _fold(model_class, texts, y, train, test, options, others=None) -> tuple:
    """Train on one outer fold's training part; (test, labels, accepted, fit CPU s, predict CPU
    s): CPU seconds of this process, so that folds trained at once are timed as on one core.
    `others` (texts, labels): another repositories' issues trained on beside the fold's, at the
    model's other_weight; the fold's own are its repository's ("own")."""
    model = model_class(**options)
    own, extra = {}, {}
    train_texts, train_labels = [texts[i] for i in train], list(y[train])
    if others is not None:
        train_texts, train_labels = train_texts + others[0], train_labels + others[1]
        own = {"groups": ["own"] * len(test)}
        extra = {"groups": ["own"] * len(train) + [""] * len(others[0])}
    started = time.process_time()
    model.fit(train_texts, train_labels, **extra)
    fitted = time.process_time()
    predictions = model.predict([texts[i] for i in test], with_evidence=False, **own)
    predicted = time.process_time()
    return (
        test,
        [p.label for p in predictions],
        [not p.needs_triage for p in predictions],
        fitted - started,
        predicted - fitted,
    )


def cross_validate(
    model_class,
    texts: list[str],
    labels: list[str],
    folds: int = 5,
    jobs: int = 1,
    others: tuple[list[str], list[str]] | None = None,
    **options,
) -> dict:
    """jobs > 1 trains that many outer folds at once, in separate processes; `others`: texts
    and labels of other repositories, trained on in every fold, never tested on."""
    y = np.asarray(labels)
    predicted = np.empty(len(y), dtype=object)
    accepted = np.zeros(len(y), dtype=bool)
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=42)
    splits = list(splitter.split(texts, y))
    runs = Parallel(n_jobs=jobs)(  # n_jobs=1: in this process, one fold after the other
        delayed(_fold)(model_class, texts, y, train, test, options, others)
        for train, test in splits
    )
    for test, labels_, kept, _, _ in runs:
        predicted[test] = labels_
        accepted[test] = kept
    correct = predicted == y
    fit_seconds = [r[3] for r in runs]
    return {
        "macro_f1": float(f1_score(y, predicted.astype(str), average="macro")),
        "accuracy": float(correct.mean()),
        "coverage": float(accepted.mean()),
        "precision_at_threshold": float(correct[accepted].mean()) if accepted.any() else 0.0,
        "n": len(y),
        "correct_accepted": int(correct[accepted].sum()),
        "accepted": int(accepted.sum()),
        "train_size": len(splits[0][0]),
        "fit_cpu_seconds_mean": float(np.mean(fit_seconds)),
        "predict_per_cpu_second": float(len(y) / sum(r[4] for r in runs)),
    }


def _kind_texts(rows: list[dict], strip: bool) -> list[str]:
    return [
        features.issue_text(r["title"], strip_template(r["body"]) if strip else r["body"])
        for r in rows
    ]


def kind_per_repository(
    rows: list[dict],
    *,
    strip: bool,
    embeddings: bool = False,
    other_weight: float | None = None,
    jobs: int = 1,
) -> dict:
    """One model per repository on its own issues; with `other_weight`, also on the other
    repositories' issues at that weight (the service's per-repository kind model)."""
    per_repo = {}
    for repo in sorted({r["repo"] for r in rows}):
        mine = [r for r in rows if r["repo"] == repo]
        options = {"embeddings": embeddings}
        others = None
        if other_weight is not None:
            rest = [r for r in rows if r["repo"] != repo]
            others = (_kind_texts(rest, strip), [r["label"] for r in rest])
            options["other_weight"] = other_weight
        per_repo[repo] = cross_validate(
            KindClassifier,
            _kind_texts(mine, strip),
            [r["label"] for r in mine],
            jobs=jobs,
            others=others,
            **options,
        )
    accepted = sum(m["accepted"] for m in per_repo.values())
    n = sum(m["n"] for m in per_repo.values())
    return {
        "per_repository": {k: round(v["macro_f1"], 4) for k, v in per_repo.items()},
        "macro_f1_mean": float(np.mean([m["macro_f1"] for m in per_repo.values()])),
        "coverage": accepted / n,
        "precision_at_threshold": sum(m["correct_accepted"] for m in per_repo.values()) / accepted,
    }


def sentiment_cost(rows: list[dict], *, embeddings: bool = False) -> dict:
    """Training on all the posts (what `train_classifier sentiment --csv` does) and batch
    prediction over them, in CPU seconds (OMP_NUM_THREADS=1: one core)."""
    texts, labels = [r["text"] for r in rows], [r["label"] for r in rows]
    wall, cpu = time.perf_counter(), time.process_time()
    model = SentimentClassifier(embeddings=embeddings)
    model.fit(texts, labels)
    figures = {
        "n": len(texts),
        "train_seconds": time.perf_counter() - wall,
        "train_cpu_seconds": time.process_time() - cpu,
    }
    cpu = time.process_time()
    model.predict(texts, with_evidence=False)
    figures["predict_per_cpu_second"] = len(texts) / (time.process_time() - cpu)
    return figures


def kind_cost(rows: list[dict], *, embeddings: bool = False) -> dict:
    """Wall and CPU seconds: with OMP_NUM_THREADS=1 the CPU time is what one free core takes,
    the wall time also counts whatever else the machine was running."""
    texts = [features.issue_text(r["title"], r["body"]) for r in rows]
    labels = [r["label"] for r in rows]
    reps = -(-10_000 // len(texts))
    # replicate, each copy tagged so that the vectorisers see 10,000 distinct documents
    big = [f"{t}\ncopy{k}" for k in range(reps) for t in texts][:10_000]
    big_labels = (labels * reps)[:10_000]
    big_groups = ([r["repo"] for r in rows] * reps)[:10_000]
    figures = {}
    for key, weight, groups in (("", 1.0, None), ("_per_repository", None, big_groups)):
        # the pooled model; then one per repository, the others' issues at the setting's weight
        wall, cpu = time.perf_counter(), time.process_time()
        model = KindClassifier(embeddings=embeddings, other_weight=weight)
        model.fit(big, big_labels, groups=groups)
        figures[f"train_10k{key}_seconds"] = time.perf_counter() - wall
        figures[f"train_10k{key}_cpu_seconds"] = time.process_time() - cpu
    batch = big[: 1000 if embeddings else 5000]
    for key, explain in (("predict", False), ("predict_with_evidence", True)):
        wall, cpu = time.perf_counter(), time.process_time()
        model.predict(batch, with_evidence=explain, groups=big_groups[: len(batch)])
        figures[f"{key}_per_second"] = len(batch) / (time.perf_counter() - wall)
        figures[f"{key}_per_cpu_second"] = len(batch) / (time.process_time() - cpu)
    return figures


def duplicates_cost(rows: list[dict]) -> dict:
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
        "duplicates_index_100k_seconds": index_seconds,
        "duplicates_query_ms": per_query_ms,
    }


def _closure(names: list[str]) -> set[str]:
    """Installed distributions that `names` need, transitively (extras and markers ignored)."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = canonicalize_name(todo.pop())
        if name in seen:
            continue
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        seen.add(name)
        todo += [
            r.name
            for r in map(Requirement, requires)
            if r.marker is None or r.marker.evaluate({"extra": ""})
        ]
    return seen


def _megabytes(name: str) -> float:
    files = metadata.distribution(name).files or []
    return sum(f.size or 0 for f in files) / 1e6


def extra_install_size(extra: str = "embeddings") -> dict:
    """What the extra adds to a default installation: its distributions beyond the base ones."""
    root = Path(__file__).resolve().parent.parent
    pyproject = tomllib.loads((root / "pyproject.toml").read_text())
    project = pyproject["project"]
    base = _closure([Requirement(r).name for r in project["dependencies"]])
    wanted = [Requirement(r).name for r in project["optional-dependencies"][extra]]
    added = sorted(_closure(wanted) - base)
    sizes = {name: round(_megabytes(name), 1) for name in added}
    return {
        "distributions": sizes,
        "total_mb": round(sum(sizes.values()), 1),
        "torch_mb": sizes.get("torch", 0.0),
        "model_package_mb": sizes.get(canonicalize_name(embeddings.PACKAGE), 0.0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nlbse", required=True, help="nlbse24/issues_train.csv")
    parser.add_argument("--senti", required=True, help="senti4sd/train.csv")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--skip-cost", action="store_true")
    parser.add_argument(
        "--configs",
        default="tfidf,embeddings",
        help="configurations to measure; embeddings is skipped when the extra is missing",
    )
    parser.add_argument(
        "--sections",
        default="kind,kind_across,sentiment,cost,sentiment_cost",
        help="what to measure: kind (one model per repository on its own issues), kind_across "
        "(each repository's model also on the others' issues, --other-weights), sentiment, "
        "cost (kind and duplicates), sentiment_cost; "
        "with the embeddings extra sentiment fine-tunes the encoder 20 times (hours of CPU) "
        "and sentiment_cost 4 times",
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="outer folds trained at once (processes)"
    )
    parser.add_argument(
        "--other-weights",
        default="0.3,1",
        help="kind_across: the other repositories' weights to measure (1: one pooled model)",
    )
    args = parser.parse_args()
    configs = [c for c in args.configs.split(",") if c]
    if "embeddings" in configs and not embeddings.available():
        print("embeddings extra not installed: measuring the tfidf configuration only")
        configs.remove("embeddings")

    sections = set(args.sections.split(","))
    nlbse, senti = read(args.nlbse), read(args.senti)
    results = {}
    for config in configs if "kind" in sections else []:
        suffix, use = ("", False) if config == "tfidf" else ("_embeddings", True)
        results[f"kind{suffix}"] = kind_per_repository(nlbse, strip=False, embeddings=use)
        results[f"kind{suffix}_template_stripped"] = kind_per_repository(
            nlbse, strip=True, embeddings=use
        )
    for config in configs if "kind_across" in sections else []:
        suffix, use = ("", False) if config == "tfidf" else ("_embeddings", True)
        for weight in [float(w) for w in args.other_weights.split(",") if w]:
            for strip, stripped in ((False, ""), (True, "_template_stripped")):
                results[f"kind{suffix}_other_weight_{weight:g}{stripped}"] = kind_per_repository(
                    nlbse, strip=strip, embeddings=use, other_weight=weight, jobs=args.jobs
                )
    for config in configs if "sentiment" in sections else []:
        # with the extra: TF-IDF SVM + the fine-tuned encoder (SentimentClassifier.finetune)
        suffix, use = ("", False) if config == "tfidf" else ("_finetuned", True)
        results[f"sentiment{suffix}"] = cross_validate(
            SentimentClassifier,
            [r["text"] for r in senti],
            [r["label"] for r in senti],
            jobs=args.jobs,
            embeddings=use,
        )
    if not args.skip_cost and "cost" in sections:
        for config in configs:
            suffix = "" if config == "tfidf" else "_embeddings"
            results[f"cost{suffix}"] = kind_cost(nlbse, embeddings=config == "embeddings")
        results["duplicates"] = duplicates_cost(nlbse)
        if "embeddings" in configs:
            results["install_embeddings"] = extra_install_size("embeddings")
    for config in configs if "sentiment_cost" in sections and not args.skip_cost else []:
        suffix = "" if config == "tfidf" else "_finetuned"
        results[f"sentiment_cost{suffix}"] = sentiment_cost(
            senti, embeddings=config == "embeddings"
        )
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for name in [k for k in results if k.startswith("kind")]:
        r = results[name]
        print(
            f"{name}: macro-F1 {r['macro_f1_mean']:.3f} "
            f"({', '.join(f'{k} {v:.3f}' for k, v in r['per_repository'].items())}); "
            f"at thresholds precision {r['precision_at_threshold']:.3f}, "
            f"coverage {r['coverage']:.1%}"
        )
    for name in [k for k in results if k in ("sentiment", "sentiment_finetuned")]:
        s = results[name]
        print(
            f"{name}: macro-F1 {s['macro_f1']:.3f}, accuracy {s['accuracy']:.3f}; at thresholds "
            f"precision {s['precision_at_threshold']:.3f}, coverage {s['coverage']:.1%}; "
            f"training on {s['train_size']} posts {s['fit_cpu_seconds_mean']:.0f} CPU s, "
            f"prediction {s['predict_per_cpu_second']:.0f} posts per CPU s"
        )
    for name in [k for k in results if k.startswith("cost")]:
        c = results[name]
        print(
            f"{name}: training kind on 10,000 issues {c['train_10k_seconds']:.1f}s "
            f"({c['train_10k_cpu_seconds']:.1f} CPU s; one model per repository of the five "
            f"{c['train_10k_per_repository_seconds']:.1f}s, "
            f"{c['train_10k_per_repository_cpu_seconds']:.1f} CPU s); prediction "
            f"{c['predict_per_second']:.0f} issues/s ({c['predict_per_cpu_second']:.0f} per CPU s; "
            f"{c['predict_with_evidence_per_second']:.0f} with evidence)"
        )
    for name in [k for k in results if k.startswith("sentiment_cost")]:
        c = results[name]
        print(
            f"{name}: training on {c['n']} posts {c['train_seconds']:.0f}s "
            f"({c['train_cpu_seconds']:.0f} CPU s); prediction "
            f"{c['predict_per_cpu_second']:.0f} posts per CPU s"
        )
    if "duplicates" in results:
        d = results["duplicates"]
        print(
            f"duplicates over 100,000 issues: index {d['duplicates_index_100k_seconds']:.1f}s, "
            f"{d['duplicates_query_ms']:.1f} ms a query"
        )
    if "install_embeddings" in results:
        i = results["install_embeddings"]
        print(
            f"embeddings extra adds {i['total_mb']:.0f} MB installed (model package "
            f"{i['model_package_mb']:.0f} MB, torch {i['torch_mb']:.0f} MB): "
            + ", ".join(f"{k} {v:.0f}" for k, v in i["distributions"].items())
        )


if __name__ == "__main__":
    main()
