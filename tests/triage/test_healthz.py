import pytest

pytestmark = pytest.mark.django_db


def test_it_answers_ok_without_a_login(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
