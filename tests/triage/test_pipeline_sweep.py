"""What a stored issue should have caused is never lost for good: every pipeline step retries
through database and broker outages, and the sweep does again what was lost anyway."""

from datetime import timedelta

import pytest
from django.db import OperationalError
from django.utils import timezone
from django.utils.module_loading import import_string
from kombu.exceptions import OperationalError as BrokerError

from config import wiring
from triage.models import IssuePrediction
from triage.services.pipeline_sweep import pipeline_sweep

pytestmark = pytest.mark.django_db


def test_an_issue_whose_classification_was_lost_is_classified_by_the_sweep(
    make, django_capture_on_commit_callbacks
):
    lost = make.issue(number=1, title="Segfault in rocFFT on MI210")
    lost.first_seen_at = timezone.now() - timedelta(minutes=30)
    lost.save(update_fields=["first_seen_at"])
    young = make.issue(number=2, title="Hang in RCCL")  # may still be on its way
    with django_capture_on_commit_callbacks(execute=True):
        found = pipeline_sweep()
    assert found["unclassified"] == 1
    assert IssuePrediction.objects.filter(issue=lost, model_name="environment").exists()
    assert IssuePrediction.objects.get(issue=lost, model_name="symptom").label == "crash"
    assert not IssuePrediction.objects.filter(issue=young).exists()
    with django_capture_on_commit_callbacks(execute=True):
        assert pipeline_sweep()["unclassified"] == 0  # done: nothing again


@pytest.mark.parametrize(
    "name",
    [
        *wiring.AFTER_ISSUES_CHANGED,
        *wiring.AFTER_COMMENTS_CHANGED,
        *wiring.AFTER_ISSUES_CLASSIFIED,
        *wiring.AFTER_POSTS_CHANGED,
    ],
)
def test_every_step_of_the_pipeline_retries_through_a_database_or_broker_outage(name):
    task = import_string(name)
    assert {OperationalError, BrokerError} <= set(task.autoretry_for), name
    assert (task.max_retries is None or task.max_retries >= 10) and task.acks_late, name
