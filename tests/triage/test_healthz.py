import pytest

pytestmark = pytest.mark.django_db


def test_it_answers_ok_without_a_login(client, settings, tmp_path):
    settings.WEBHOOK_SPOOL_DIR = tmp_path / "spool"
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "webhook_spool": {"deliveries": 0, "bytes": 0, "quarantined": 0},
    }
