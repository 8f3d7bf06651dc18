import pytest
from django.urls import reverse

from classifiers import artifacts
from classifiers.registry import models
from triage.models import TriageAction
from triage.services import classification


def _train_kind(make):
    repo = make.repository()
    titles = {
        "bug": ["crash in hipMalloc", "segfault on MI300X", "kernel hangs forever", "wrong result"],
        "feature": ["add support for gfx1151", "please support Fedora", "new API for streams"],
    }
    for label, rows in titles.items():
        for i, title in enumerate(rows * 3):
            make.issue(repository=repo, title=f"{title} {i}", labels=[label])
    return classification.classifier_train_from_database(model_name="kind", force=True)


@pytest.mark.django_db
def test_it_lists_every_model_and_says_how_to_train_one(logged_in_client):
    content = logged_in_client.get(reverse("models")).content.decode()
    for name in models():
        assert f'id="model-{name}"' in content
    assert "python manage.py train_classifier kind" in content


@pytest.mark.django_db
def test_it_shows_the_active_version_and_its_scores(logged_in_client, make):
    _train_kind(make)
    version = artifacts.active_version("kind")
    assert version
    metrics = artifacts.metadata_read("kind", version)["cv_metrics"]
    content = logged_in_client.get(reverse("models")).content.decode()
    assert version[:20] in content
    assert f"{metrics['macro_f1']:.3f}" in content


@pytest.mark.django_db
def test_only_a_triager_may_retrain(logged_in_client, triager_client):
    assert logged_in_client.post(reverse("models-retrain")).status_code == 403
    assert not TriageAction.objects.exists()
    response = triager_client.post(reverse("models-retrain"))
    assert response.status_code == 302
    assert TriageAction.objects.get().action == "models.retrain"
