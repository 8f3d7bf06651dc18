"""The one list of what runs after an issue, a pull request or a post changes.

Ingestion calls these hooks with the ids of the rows it changed; each step is a Celery task,
named here by its dotted name so that triage never imports the apps further down the chain
(classifiers, kernels_ci, releases). A newcomer reads the whole chain in this file.
Tasks are enqueued on commit, so a worker never sees a row that the transaction rolled back.
"""

from __future__ import annotations

from django.db import transaction
from django.utils.module_loading import import_string

# Celery task names, in order. Later issues append their steps here (classify, link fixes, ...).
AFTER_ISSUES_CHANGED: list[str] = [
    "triage.tasks.classify_issues",
    "kernels_ci.tasks.cases_refresh",  # re-extract repro cases; an edit needs re-approval
    "releases.tasks.link_fixes",  # merged PRs' closing keywords → fix links → trains
]
AFTER_COMMENTS_CHANGED: list[str] = [
    "kernels_ci.tasks.cases_refresh",  # `/repro` comments by collaborators approve and run
    "triage.tasks.classify_comments",  # sentiment of the comments (classify queue, batches)
    "triage.tasks.classify_environment",  # the reporter's own comments complete the environment
]
AFTER_POSTS_CHANGED: list[str] = ["triage.tasks.classify_posts"]
# After classify_issues has stored its predictions (it calls issues_classified).
AFTER_ISSUES_CLASSIFIED: list[str] = [
    "triage.tasks.writeback_labels",  # repositories that opted in get the labels on GitHub
]


def _enqueue(task_names: list[str], ids: list[int]) -> None:
    if not ids:
        return
    for name in task_names:
        # Import the task by its dotted name (never a silent send of an unknown name): with
        # tasks in-process (no REDIS_URL) it runs here; with a broker it goes to its queue.
        task = import_string(name)
        transaction.on_commit(lambda task=task: task.apply_async(kwargs={"ids": list(ids)}))


def issues_changed(ids: list[int]) -> None:
    _enqueue(AFTER_ISSUES_CHANGED, ids)


def comments_changed(issue_ids: list[int]) -> None:
    _enqueue(AFTER_COMMENTS_CHANGED, issue_ids)


def posts_changed(ids: list[int]) -> None:
    _enqueue(AFTER_POSTS_CHANGED, ids)


def issues_classified(ids: list[int]) -> None:
    _enqueue(AFTER_ISSUES_CLASSIFIED, ids)
