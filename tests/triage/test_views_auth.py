import pytest
from django.urls import reverse

PAGES = [
    reverse("home"),
    reverse("issue-list"),
    reverse("issue-detail", args=["ROCm", "ROCm", 1]),
]


@pytest.mark.django_db
@pytest.mark.parametrize("url", PAGES)
def test_it_redirects_anonymous_users_to_login(client, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response.url.startswith(reverse("login") + "?next=")


@pytest.mark.django_db
def test_it_shows_the_login_form_with_labels(client):
    response = client.get(reverse("login"))
    assert response.status_code == 200
    content = response.content.decode()
    assert '<label for="id_username">' in content
    assert '<label for="id_password">' in content
    assert "<main" in content


@pytest.mark.django_db
def test_it_logs_in_and_lands_on_home(client, user):
    response = client.post(
        reverse("login"), {"username": "alice", "password": "pw-alice-1"}, follow=True
    )
    assert response.redirect_chain[-1][0] == reverse("home")
    assert "alice" in response.content.decode()


@pytest.mark.django_db
def test_it_rejects_a_wrong_password(client, user):
    response = client.post(reverse("login"), {"username": "alice", "password": "nope"})
    assert response.status_code == 200
    assert "didn't match" in response.content.decode()


@pytest.mark.django_db
def test_it_logs_out_with_a_post_form(logged_in_client):
    page = logged_in_client.get(reverse("home")).content.decode()
    assert f'<form method="post" action="{reverse("logout")}"' in page
    response = logged_in_client.post(reverse("logout"))
    assert response.status_code == 302
    assert logged_in_client.get(reverse("home")).status_code == 302


@pytest.mark.django_db
def test_it_shows_the_admin_link_to_staff_only(logged_in_client, admin_client):
    admin_url = reverse("admin:index")
    assert f'href="{admin_url}"' not in logged_in_client.get(reverse("home")).content.decode()
    assert f'href="{admin_url}"' in admin_client.get(reverse("home")).content.decode()


@pytest.mark.django_db
def test_it_links_the_stylesheet_and_api_docs(logged_in_client):
    content = logged_in_client.get(reverse("home")).content.decode()
    assert "/static/css/app.css" in content
    assert 'href="/api/docs/"' in content
