"""Two workers refresh needs-info for the same new issue at once, on Postgres.

A new bug's classification and its comments' environment both end in a needs-info refresh, on
different workers. The first starts asking (its transaction still open) while the second, with
another new bug in its batch, reaches the same issue: the second must wait for the first, follow
the state it started, and still ask on its other issue, not fail its whole batch on the
one-state-per-issue rule.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from automation.needs_info import services as needs_info
from automation.needs_info.models import NeedsInfo
from tests.integration.concurrency import start_and_meet
from triage.models import IssuePrediction
from triage.services import classification

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

BARE = "hipMemcpy returns an error after a few iterations and the program exits."


def _new_bug(make, repository, number):
    issue = make.issue(
        repository=repository,
        number=number,
        title=f"Crash in hipMemcpy {number}",
        body=BARE,
        author=f"reporter{number}",
        created_at=timezone.now() - timedelta(hours=1),
    )
    IssuePrediction.objects.create(issue=issue, model_name="kind", label="bug", confidence=0.95)
    classification.issues_environment_refresh(ids=[issue.pk])
    return issue


def test_a_second_refresh_of_the_same_issue_waits_and_its_batch_still_asks(real_services, make):
    repository = make.repository("ROCm/ROCm")
    repository.github_actions = ["needs_info.ask", "needs_info.label"]
    repository.save()  # a dry run: the writes are planned, the states are what is tested
    first = _new_bug(make, repository, 101)
    second = _new_bug(make, repository, 102)
    outcome: dict = {}

    def other_worker():
        try:
            outcome["report"] = needs_info.needs_info_refresh(ids=[first.pk, second.pk])
        except Exception as exc:  # what the worker's task would have died of
            outcome["error"] = exc

    with transaction.atomic():
        needs_info.needs_info_refresh(ids=[first.pk])  # asks; commits only when this block ends
        worker = start_and_meet(other_worker)
    worker.join(timeout=30)

    assert "error" not in outcome, f"the second refresh failed: {outcome.get('error')!r}"
    assert NeedsInfo.objects.filter(issue=first).count() == 1
    assert NeedsInfo.objects.filter(issue=second, state=NeedsInfo.State.ASKING).exists(), (
        "the other issue of the second batch was asked too"
    )
