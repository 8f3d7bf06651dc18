"""Every entry of every list in config/wiring.py imports and provides what its list says."""

from __future__ import annotations

import inspect
from importlib import import_module
from types import ModuleType

import pytest
from celery import Task

from classifiers.entries import ModelEntry
from config import wiring
from config.celery import app as celery_app

TASK_LISTS = [
    "AFTER_ISSUES_CHANGED",
    "AFTER_COMMENTS_CHANGED",
    "AFTER_POSTS_CHANGED",
    "AFTER_ISSUES_CLASSIFIED",
    "AFTER_PULL_FILES_READ",
    "AFTER_ENVIRONMENT_READ",
]
# list name -> the keyword arguments the caller passes to each entry
CALLABLE_LISTS = {
    "AFTER_RUN_EXECUTED": {"run": None, "dispatch": True},
    "PRIORITY_PARTS": {"issue_ids": []},
    "ISSUE_PANELS": {"issue": None, "request": None},
    "HOME_PANELS": {"request": None},
    "SETTINGS_PANELS": {"request": None},
    "QUEUE_ROW_CELLS": {"issue_ids": [], "request": None},
    "QUEUE_CONTEXT": {"request": None},
    "INBOX_CONCERNS": {"issues": []},
    "PULL_FILES_WANTED": {"repository_id": 1},
    "OWNED_COMPONENTS": {"login": "alice"},
    "BEAT_START": {},
    "DEMO_LOADERS": {},
}


def entries(*names: str) -> list[tuple[str, str]]:
    return [(name, dotted) for name in names for dotted in getattr(wiring, name)]


def takes(function, arguments: dict) -> bool:
    try:
        inspect.signature(function).bind(**arguments)
    except TypeError:
        return False
    return True


@pytest.mark.parametrize(("name", "dotted"), entries(*TASK_LISTS))
def test_each_pipeline_step_is_a_celery_task_of_that_name_taking_ids(name, dotted):
    task = wiring.load(dotted)
    assert isinstance(task, Task)
    assert task.name in celery_app.tasks  # registered in every process, by its own name
    assert takes(task.run, {"ids": [1]})


@pytest.mark.parametrize(("name", "dotted"), entries(*CALLABLE_LISTS), ids=lambda value: str(value))
def test_each_entry_is_a_function_taking_what_its_caller_passes(name, dotted):
    function = wiring.load(dotted)
    assert callable(function)
    assert takes(function, CALLABLE_LISTS[name])


@pytest.mark.parametrize(("parameter", "dotted"), wiring.QUEUE_FILTERS.items())
def test_each_queue_filter_answers_without_arguments(parameter, dotted):
    assert takes(wiring.load(dotted), {})


def test_each_classifier_model_is_an_entry_with_a_name_of_its_own():
    found = [wiring.load(dotted) for dotted in wiring.CLASSIFIER_MODELS]
    assert all(isinstance(entry, ModelEntry) for entry in found)
    names = [entry.name for entry in found]
    assert len(set(names)) == len(names) == len(wiring.CLASSIFIER_MODELS)


@pytest.mark.parametrize(("name", "dotted"), wiring.REPRO_BACKENDS.items())
def test_each_backend_is_a_module_describing_itself_by_its_name(name, dotted):
    module = import_module(dotted)  # as kernels_ci.backends.backend_get does
    assert isinstance(module, ModuleType)
    assert module.DESCRIPTION.name == name
    assert callable(module.available) and callable(module.execute)


@pytest.mark.parametrize(("name", "dotted"), wiring.COMMENT_COMMANDS.items())
def test_each_comment_command_takes_what_the_comment_handler_passes_and_is_no_triage_command(
    name, dotted
):
    from automation.commands.services import TRIAGE_COMMANDS

    assert name not in TRIAGE_COMMANDS  # a triage command of the same name would shadow it
    arguments = {"issue": None, "argument": "7.9", "login": "maintainer", "ref": ""}
    assert takes(wiring.load(dotted), arguments)


@pytest.mark.parametrize("dotted", wiring.REPOSITORY_OPT_INS)
def test_each_repository_opt_in_list_says_each_action_in_words(dotted):
    actions = wiring.load(dotted)
    assert actions and all(isinstance(words, str) and words for words in actions.values())


def test_a_misspelled_entry_fails_to_load():
    with pytest.raises(ImportError):
        wiring.load("triage.panels.home.triage_panle")
