"""docs/ARCHITECTURE.md's recipes, followed: a classifier model, a repro backend and an act on
GitHub built as the page says (tests/recipes/), each plugged in by its one wiring line only."""

from __future__ import annotations

import pytest

from automation.outbox import services as outbox
from automation.outbox.models import GitHubWrite
from classifiers import registry
from config import wiring
from kernels_ci import backends
from triage import pipeline
from triage.checks import queue_keys_check


def test_a_model_is_its_module_and_one_wiring_line(monkeypatch):
    monkeypatch.setattr(
        wiring, "CLASSIFIER_MODELS", [*wiring.CLASSIFIER_MODELS, "tests.recipes.toy_model.ENTRY"]
    )
    assert registry.entry("needs_info").labels == ("complete", "needs-info")
    assert "needs_info" in registry.names(page=True, triaged=True)
    assert registry.label_validate("needs_info", "needs-info") == "needs-info"
    assert queue_keys_check(None) == []


def test_a_model_taking_a_key_already_taken_stops_the_start(monkeypatch):
    monkeypatch.setattr(
        wiring, "CLASSIFIER_MODELS", [*wiring.CLASSIFIER_MODELS, "tests.recipes.toy_model.CLASHING"]
    )
    (error,) = queue_keys_check(None)
    assert error.id == "triage.E001" and "share the queue key 'a'" in error.msg


def test_a_backend_is_its_module_and_one_wiring_line(monkeypatch):
    monkeypatch.setattr(
        wiring,
        "REPRO_BACKENDS",
        {**wiring.REPRO_BACKENDS, "triton-nvidia-gpu": "tests.recipes.toy_backend"},
    )
    assert backends.describe("triton-nvidia-gpu").queue_for("sm_90") == "repro.sm_90"
    assert "sm_90" in backends.known_targets()
    assert backends.target_vendor("sm_90") == "nvidia"
    compared = [d.name for d in backends.comparison_backends("python", True, "wrong_result")]
    assert "triton-nvidia-gpu" in compared  # it said it compares


def test_a_backend_that_does_not_say_it_compares_stays_out_of_the_comparison(monkeypatch):
    monkeypatch.setattr(
        wiring,
        "REPRO_BACKENDS",
        {**wiring.REPRO_BACKENDS, "triton-nvidia-gpu": "tests.recipes.toy_backend"},
    )
    import dataclasses  # noqa: PLC0415 - only this test builds the variant

    from tests.recipes import toy_backend

    monkeypatch.setattr(
        toy_backend, "DESCRIPTION", dataclasses.replace(toy_backend.DESCRIPTION, compares=False)
    )
    compared = [d.name for d in backends.comparison_backends("python", True, "wrong_result")]
    assert "triton-nvidia-gpu" not in compared


@pytest.mark.django_db
def test_an_act_on_github_is_its_folder_and_its_wiring_lines(
    make, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setitem(outbox.ACTIONS, "welcome.thank", "thank a first-time reporter")
    monkeypatch.setattr(
        wiring,
        "AFTER_ISSUES_CLASSIFIED",
        [*wiring.AFTER_ISSUES_CLASSIFIED, "tests.recipes.welcome.tasks.welcome_refresh"],
    )
    repository = make.repository(github_actions=["welcome.thank"], github_dry_run=True)
    issue = make.issue(repository=repository, title="hipErrorNoBinaryForGpu on gfx1151")
    for _ in range(2):  # a redelivery decides nothing new
        with django_capture_on_commit_callbacks(execute=True):
            pipeline.issues_classified([issue.pk])
    write = GitHubWrite.objects.get(issue=issue, action="welcome.thank")
    assert (write.status, write.key, write.decided_by) == ("planned", "welcome", "rule welcome")
