"""The one list of what runs after an issue, a pull request or a post changes.

Ingestion calls these hooks with the ids of the rows it changed; each step is a Celery task,
named here by its dotted name so that triage never imports the apps further down the chain
(classifiers, kernels_ci, releases). A newcomer reads the whole chain in this file.
Tasks are enqueued on commit, so a worker never sees a row that the transaction rolled back.
"""

from __future__ import annotations

from django.db import transaction

from config.celery import app

# Celery task names, in order. Later issues append their steps here (classify, link fixes, ...).
AFTER_ISSUES_CHANGED: list[str] = []
AFTER_COMMENTS_CHANGED: list[str] = []
AFTER_POSTS_CHANGED: list[str] = []


def _enqueue(task_names: list[str], ids: list[int]) -> None:
    if not ids:
        return
    for name in task_names:
        transaction.on_commit(
            lambda name=name: app.signature(name, kwargs={"ids": list(ids)}).apply_async()
        )


def issues_changed(ids: list[int]) -> None:
    _enqueue(AFTER_ISSUES_CHANGED, ids)


def comments_changed(issue_ids: list[int]) -> None:
    _enqueue(AFTER_COMMENTS_CHANGED, issue_ids)


def posts_changed(ids: list[int]) -> None:
    _enqueue(AFTER_POSTS_CHANGED, ids)
