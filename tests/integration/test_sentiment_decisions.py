"""A triager's sentiment decision against a concurrent reading of the same post, on Postgres.

The triager's transaction writes the decision and stays open while a worker's understanding of
the post starts (it reads the post as it was, predicts, then writes); the decision commits while
the worker waits on the row. The worker must keep the decision, not write its prediction over it.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest
from django.db import connection, transaction

from classifiers import training
from tests.conftest import user_with_role
from triage.models import Post
from triage.services import post_understanding, social

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

TEXTS = {
    "negative": ["awful, it crashes again", "so frustrating, hangs", "terrible, broken build"],
    "positive": ["great release, fast", "love it, works well", "excellent, thank you"],
    "neutral": ["which version to install", "reading the notes", "trying it tonight"],
}


def test_a_decision_committed_while_the_post_is_understood_is_kept(
    real_services, django_user_model
):
    texts = [t for ts in TEXTS.values() for t in ts] * 3
    labels = [label for label, ts in TEXTS.items() for _ in ts] * 3
    training.model_train(name="sentiment", texts=texts, labels=labels, source="test")
    triager = user_with_role(django_user_model, "tess", "triagers")
    post = Post.objects.create(
        external_id="1862000000000000001",
        text="awful, it crashes again and hangs",
        created_at=datetime(2026, 11, 30, tzinfo=UTC),
    )
    written, release = threading.Event(), threading.Event()
    failures = []

    def triager_decides():
        try:
            with transaction.atomic():
                social.post_sentiment_correct(
                    post=Post.objects.get(pk=post.pk), label="positive", user=triager
                )
                written.set()
                release.wait(timeout=30)  # the worker has read the post by now
        except Exception as exc:  # reported by the main thread
            failures.append(exc)
            written.set()
        finally:
            connection.close()

    decider = threading.Thread(target=triager_decides)
    decider.start()
    assert written.wait(timeout=30)
    timer = threading.Timer(1.5, release.set)  # commit while the worker waits on the row
    timer.start()
    report = post_understanding.posts_understand(ids=[post.pk])
    decider.join(timeout=30)
    timer.cancel()
    assert failures == []
    post.refresh_from_db()
    assert post.sentiment == "positive" and post.sentiment_corrected_at is not None
    assert report.sentiment == 0
    assert post.sentiment_corrections.get().after == "positive"
