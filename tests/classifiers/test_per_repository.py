"""kind per repository: each repository's model learns from its own issues first, and from the
other repositories' at a lower weight (classifiers/per_repository.py)."""

import itertools

import pytest

from classifiers import artifacts, features, training
from classifiers.kind import KindClassifier
from tests.classifiers.corpus import GPUS, LIBS, kind_rows

# The same report reads differently in two trackers: on ROCm/ROCm a missing GPU agent is almost
# always a setup question answered in the thread; on ROCm/hip it is a runtime bug.
NO_AGENT = "rocminfo lists no GPU agent on {gpu} after installing {lib}"
NO_AGENT_BODY = "rocminfo prints only the CPU agent; hipGetDeviceCount returns 0 with {lib}."
CONVENTION = {"ROCm/ROCm": "question", "ROCm/hip": "bug"}


def repository_rows() -> tuple[list[str], list[str], list[str]]:
    texts, labels, groups = [], [], []
    for repository, label in CONVENTION.items():
        for row in kind_rows():
            texts.append(features.issue_text(row["title"], row["body"]))
            labels.append(row["label"])
            groups.append(repository)
        for gpu, lib in itertools.islice(itertools.product(GPUS, LIBS), 0, 40, 3):
            texts.append(
                features.issue_text(
                    NO_AGENT.format(gpu=gpu, lib=lib), NO_AGENT_BODY.format(lib=lib)
                )
            )
            labels.append(label)
            groups.append(repository)
    return texts, labels, groups


NEW_REPORT = features.issue_text(
    NO_AGENT.format(gpu="MI300X", lib="rocSPARSE"), NO_AGENT_BODY.format(lib="rocSPARSE")
)


def test_each_repository_s_model_keeps_its_own_conventions():
    texts, labels, groups = repository_rows()
    model = KindClassifier(other_weight=0.3)
    metrics = model.fit(texts, labels, groups=groups)
    assert set(model.repository_models) == {"rocm/rocm", "rocm/hip"}
    assert metrics["other_repositories_weight"] == 0.3
    assert set(metrics["per_repository"]) == {"rocm/rocm", "rocm/hip"}
    [rocm, hip, unknown] = model.predict(
        [NEW_REPORT] * 3, groups=["ROCm/ROCm", "rocm/HIP", "ROCm/TheRock"]
    )
    assert (rocm.label, hip.label) == ("question", "bug")
    assert unknown.label in {"question", "bug"}  # the pooled model: every issue at weight 1
    assert rocm.evidence and hip.evidence


def test_at_weight_one_there_is_one_pooled_model():
    texts, labels, groups = repository_rows()
    model = KindClassifier(other_weight=1.0)
    model.fit(texts, labels, groups=groups)
    assert model.repository_models == {}
    [rocm, hip] = model.predict([NEW_REPORT] * 2, groups=["ROCm/ROCm", "ROCm/hip"])
    assert rocm.label == hip.label


def test_a_weight_outside_0_to_1_is_refused():
    from django.core.exceptions import ImproperlyConfigured

    with pytest.raises(ImproperlyConfigured, match="CLASSIFIER_KIND_OTHER_REPOSITORIES_WEIGHT"):
        KindClassifier(other_weight=1.5)


def train(**options) -> training.TrainingReport:
    texts, labels, groups = repository_rows()
    return training.model_train(
        name="kind", texts=texts, labels=labels, source="test", groups=groups, **options
    )


@pytest.mark.django_db
def test_the_saved_version_predicts_per_repository_and_a_new_weight_trains_again(settings):
    settings.CLASSIFIER_KIND_OTHER_REPOSITORIES_WEIGHT = 0.3
    report = train()
    loaded = artifacts.artifact_load("kind", report.version)
    [rocm, hip] = loaded.model.predict([NEW_REPORT] * 2, groups=["ROCm/ROCm", "ROCm/hip"])
    assert (rocm.label, hip.label) == ("question", "bug")
    same = train(skip_if_unchanged=True)
    assert not same.version and "unchanged" in same.reason
    settings.CLASSIFIER_KIND_OTHER_REPOSITORIES_WEIGHT = 0.5
    again = train(skip_if_unchanged=True)
    assert again.version and again.version != report.version
