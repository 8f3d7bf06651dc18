"""The real-issue benchmark's own scoring and delivery building (benchmarks/real_issues.py).

The texts are ours: a labelled issue that the benchmark would read from its data file."""

from benchmarks.real_issues import (
    Outcome,
    asks_score,
    gfx_score,
    issue_deliveries,
    label_score,
    outcome_of,
    rocm_version_score,
    split_items,
    split_make,
    version_equal,
    version_minor_equal,
)
from tests.fakes.github_webhooks import fixture_payload

ITEM = {
    "repository": "ROCm/hip",
    "number": 77,
    "title": "hipMemcpyAsync never returns on MI210 with ROCm 6.1.2",
    "text": "Our solver stops in hipMemcpyAsync after a few minutes.\n\nGPU: AMD Instinct MI210",
    "labels": ["bug"],
    "author": "solver-dev",
    "comments": [
        {"author": "hip-maintainer", "association": "MEMBER", "body": "Fixed as of ROCm 6.2."},
        {"author": "solver-dev", "association": "NONE", "body": "rocminfo says gfx90a."},
    ],
    "gold": {
        "kind": "bug",
        "symptom": "hang",
        "severity": "critical",
        "gfx_targets": ["gfx90a"],
        "rocm_version": "6.1.2",
        "component": "HIP",
    },
}


def _outcome(ref, gold, **got):
    return Outcome(ref=ref, gold={**ITEM["gold"], **gold}, **got)


def test_it_counts_a_release_with_or_without_its_zero_patch_as_equal():
    assert version_equal("6.2", "6.2.0")
    assert version_equal("6.2.0", "ROCm 6.2")
    assert not version_equal("6.2", "6.2.1")
    assert not version_equal("6.2", "6.20")
    assert not version_equal(None, None)
    assert not version_equal("6.2", "7.2.53211-local")
    assert version_minor_equal("7.2", "7.2.53211")


def test_it_scores_gfx_targets_over_every_target_of_every_issue():
    outcomes = [
        _outcome("a#1", {"gfx_targets": ["gfx90a"]}, gfx_targets=["gfx90a", "gfx906"]),
        _outcome("a#2", {"gfx_targets": ["gfx942", "gfx1100"]}, gfx_targets=["gfx942"]),
        _outcome("a#3", {"gfx_targets": []}, gfx_targets=[]),
    ]
    score = gfx_score(outcomes)
    assert (score["true_positives"], score["false_positives"], score["false_negatives"]) == (
        2,
        1,
        1,
    )
    assert score["precision"] == 0.667 and score["recall"] == 0.667
    assert score["exact"] == 0.333
    assert [miss["issue"] for miss in score["worst"]] == ["a#1", "a#2"]


def test_it_scores_versions_only_where_the_gold_has_one_and_lists_invented_ones():
    outcomes = [
        _outcome("a#1", {"rocm_version": "6.1"}, rocm_version="6.1.0"),
        _outcome("a#2", {"rocm_version": "6.1.2"}, rocm_version="6.2"),
        _outcome("a#3", {"rocm_version": None}, rocm_version="5.7"),
    ]
    score = rocm_version_score(outcomes)
    assert score["issues"] == 2 and score["accuracy"] == 0.5
    assert score["major_minor_accuracy"] == 0.5
    assert score["given_where_gold_has_none"] == 1
    assert [miss["issue"] for miss in score["worst"]] == ["a#2", "a#3"]


def test_it_scores_severity_exactly_and_within_one_level_and_puts_the_furthest_first():
    outcomes = [
        _outcome("a#1", {"severity": "critical"}, labels={"severity": "high"}),
        _outcome("a#2", {"severity": "low"}, labels={"severity": "critical"}),
        _outcome("a#3", {"severity": "medium"}, labels={"severity": "medium"}),
    ]
    score = label_score(outcomes, "severity")
    assert score["accuracy"] == 0.333 and score["within_one"] == 0.667
    assert [miss["issue"] for miss in score["worst"]] == ["a#2", "a#1"]


def test_it_says_n_a_for_a_prediction_the_service_does_not_make():
    outcomes = [_outcome("a#1", {}, labels={"kind": "bug"})]
    score = label_score(outcomes, "symptom")
    assert score["accuracy"] is None and "no symptom prediction" in score["note"]


def test_it_compares_components_without_case_or_separators_and_within_the_models_classes():
    classes = {"component": ["composable_kernel", "hip"]}
    outcomes = [
        _outcome(
            "a#1",
            {"component": "Composable Kernel"},
            labels={"component": "composable_kernel"},
            classes=classes,
        ),
        _outcome("a#2", {"component": "rocm-smi"}, labels={"component": "hip"}, classes=classes),
        _outcome("a#3", {"component": None}, labels={"component": "hip"}, classes=classes),
    ]
    score = label_score(outcomes, "component")
    assert score["issues"] == 2 and score["accuracy"] == 0.5
    assert score["gold_outside_model_classes"] == 1
    assert score["accuracy_within_model_classes"] == 1.0


def test_it_delivers_the_issue_then_each_comment_as_its_author():
    templates = {n: fixture_payload(n) for n in ("issues__opened", "issue_comment__created")}
    repository = {**templates["issues__opened"]["repository"], "full_name": "ROCm/hip"}
    deliveries = issue_deliveries(ITEM, index=3, repository=repository, templates=templates)
    assert [event for event, _ in deliveries] == ["issues", "issue_comment", "issue_comment"]
    opened = deliveries[0][1]
    assert opened["action"] == "opened"
    assert opened["issue"]["number"] == 77 and opened["issue"]["user"]["login"] == "solver-dev"
    assert [label["name"] for label in opened["issue"]["labels"]] == ["bug"]
    first, second = deliveries[1][1], deliveries[2][1]
    assert first["comment"]["user"]["login"] == "hip-maintainer"
    assert first["comment"]["author_association"] == "MEMBER"
    assert second["comment"]["body"] == "rocminfo says gfx90a."
    assert first["comment"]["id"] != second["comment"]["id"]
    assert second["issue"]["comments"] == 2 and second["issue"]["number"] == 77


def test_it_reads_the_judgements_from_the_api_detail():
    detail = {
        "predictions": [
            {
                "model": "environment",
                "label": "gfx90a",
                "confidence": 1.0,
                "evidence": {"architectures": ["gfx90a"], "rocm_version": "6.1.2", "gpus": []},
            },
            {
                "model": "severity",
                "label": "high",
                "confidence": 0.6,
                "evidence": {"terms": [], "probabilities": {"high": 0.6, "low": 0.4}},
            },
            {"model": "duplicates", "label": "", "confidence": 0.0, "evidence": {}},
        ]
    }
    outcome = outcome_of(ITEM, detail)
    assert outcome.ref == "ROCm/hip#77"
    assert outcome.gfx_targets == ["gfx90a"] and outcome.rocm_version == "6.1.2"
    assert outcome.labels == {"severity": "high"}
    assert outcome.classes == {"severity": ["high", "low"]}


def _item(repository: str, number: int) -> dict:
    return {"repository": repository, "number": number, "url": f"https://x/{repository}/{number}"}


def test_it_splits_each_repository_group_in_half_whatever_the_files_order():
    items = [_item("ROCm/legacy-rocm-build", n) for n in range(10)]
    items += [_item("ROCm/hip", n) for n in range(6)] + [
        _item("vllm-project/vllm", n) for n in (1, 2)
    ]
    split = split_make(items, seed=3)
    assert split["counts"] == {"tune": 9, "check": 9}
    assert split_make(list(reversed(items)), seed=3) == split
    assert split_make(items, seed=4)["tune"] != split["tune"]
    tune = set(split["tune"])
    for group, size in (("legacy-rocm-build", 5), ("ROCm/hip", 3), ("vllm", 1)):
        assert sum(group in url for url in tune) == size
    by_url = {url: part for part in ("tune", "check") for url in split[part]}
    parts = split_items([*items, _item("ROCm/hip", 99)], by_url)
    assert len(parts["tune"]) == len(parts["check"]) == 9 and parts["unsplit"] == [18]


def test_it_counts_asks_for_facts_the_gold_says_the_report_gives():
    gold = {"gpu_models": ["AMD Instinct MI210"], "gfx_targets": ["gfx90a"], "rocm_version": None}
    outcomes = [
        _outcome("a#1", {**gold, "has_complete_reproducer": True}, missing=["gpu", "steps", "os"]),
        _outcome("a#2", {**gold, "gpu_models": [], "gfx_targets": []}, missing=["gpu", "rocminfo"]),
        _outcome("a#3", {**gold, "rocm_version": "6.2"}, missing=["rocm_version"]),
    ]
    score = asks_score(outcomes)
    assert score["false_asks"] == 3 and score["issues_with_a_false_ask"] == 2
    assert score["by_fact"] == {"gpu": 1, "rocm_version": 1, "steps": 1}
    assert score["would_ask"] == 3 and score["asks"] == 6
    assert [miss["issue"] for miss in score["worst"]] == ["a#1", "a#3"]
