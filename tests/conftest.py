"""Shared fixtures: logged-in clients and a maker of triage rows built directly with the ORM."""

import itertools
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from triage.models import Comment, Issue, Label, Person, Repository, SyncState, WebhookDelivery


@pytest.fixture(autouse=True)
def _test_settings(settings, tmp_path):
    # The manifest storage used without DEBUG needs `collectstatic`; tests render templates
    # without having run it. WhiteNoise warns when STATIC_ROOT is missing.
    Path(settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    # Fast password hashing: every test that logs in creates a user.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # Nothing cached by one test is seen by the next.
    from django.core.cache import cache

    cache.clear()
    # Trained models go to a folder of their own per test.
    settings.CLASSIFIER_ARTIFACT_DIR = tmp_path / "models"


def user_with_role(django_user_model, username: str, *roles: str):
    """A user in the role groups of settings.ROLES (kept in step by migrate)."""
    from django.contrib.auth.models import Group

    member = django_user_model.objects.create_user(username=username, password=f"pw-{username}-1")
    member.groups.set(Group.objects.filter(name__in=roles))
    return member


@pytest.fixture
def user(db, django_user_model):
    """A viewer: reads every page, changes nothing."""
    return user_with_role(django_user_model, "alice", "viewers")


@pytest.fixture
def triager(db, django_user_model):
    return user_with_role(django_user_model, "tess", "triagers")


@pytest.fixture
def release_manager(db, django_user_model):
    return user_with_role(django_user_model, "rmgr", "release managers")


@pytest.fixture
def triager_client(triager):
    from django.test import Client

    client = Client()
    client.force_login(triager)
    return client


@pytest.fixture
def release_manager_client(release_manager):
    from django.test import Client

    client = Client()
    client.force_login(release_manager)
    return client


@pytest.fixture
def logged_in_client(client, user):
    client.force_login(user)
    return client


@pytest.fixture
def api_token(user):
    return Token.objects.create(user=user)


@pytest.fixture
def api_client(api_token):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {api_token.key}")
    return client


class RowMaker:
    """Builds Repository, Person, Label, Issue, Comment ... rows with sensible defaults."""

    def __init__(self):
        self._ids = itertools.count(1000)
        self.now = timezone.now()

    def next_id(self) -> int:
        return next(self._ids)

    def repository(self, full_name="ROCm/ROCm", **fields):
        existing = Repository.objects.filter(full_name__iexact=full_name).first()
        if existing:
            return existing
        fields.setdefault("html_url", f"https://github.com/{full_name}")
        return Repository.objects.create(full_name=full_name, **fields)

    def person(self, login="octocat", **fields):
        existing = Person.objects.filter(login=login).first()
        if existing:
            return existing
        fields.setdefault("external_id", str(self.next_id()))
        return Person.objects.create(login=login, **fields)

    def label(self, name="bug", *, repository=None, color="d73a4a", **fields):
        repository = repository or self.repository()
        label, _ = Label.objects.get_or_create(
            repository=repository, name_key=name.lower(), defaults={"name": name, "color": color}
        )
        for key, value in fields.items():
            setattr(label, key, value)
        if fields:
            label.save()
        return label

    def issue(
        self,
        *,
        repository=None,
        number=None,
        title="Something is broken",
        labels=(),
        author="octocat",
        updated_at=None,
        **fields,
    ):
        repository = repository or self.repository()
        number = number or self.next_id()
        created_at = fields.pop("created_at", self.now - timedelta(days=2))
        issue = Issue.objects.create(
            repository=repository,
            number=number,
            external_id=str(self.next_id()),
            title=title,
            author=self.person(author) if author else None,
            html_url=f"https://github.com/{repository.full_name}/issues/{number}",
            created_at=created_at,
            updated_at=updated_at or self.now - timedelta(minutes=number % 997),
            **fields,
        )
        if labels:
            issue.labels.set(
                [
                    label if isinstance(label, Label) else self.label(label, repository=repository)
                    for label in labels
                ]
            )
        return issue

    def pull_request(self, **fields):
        fields.setdefault("title", "Fix the thing")
        fields.setdefault("merged", False)
        return self.issue(is_pull_request=True, **fields)

    def comment(self, issue, *, body="Same here.", author="hubot", **fields):
        created_at = fields.pop("created_at", self.now - timedelta(hours=1))
        external_id = fields.pop("external_id", None) or str(self.next_id())
        return Comment.objects.create(
            issue=issue,
            external_id=external_id,
            body=body,
            author=self.person(author) if author else None,
            html_url=f"{issue.html_url}#issuecomment-{external_id}",
            created_at=created_at,
            updated_at=fields.pop("updated_at", created_at),
            **fields,
        )

    def priority(self, issue, score: int, parts=()):
        """The issue's priority as issues_prioritize stores it (the row and the queue's copy)."""
        from triage.models import IssuePriority

        Issue.objects.filter(pk=issue.pk).update(priority_score=score)
        issue.priority_score = score
        return IssuePriority.objects.create(issue=issue, score=score, parts=list(parts))

    def sync_state(self, repository, resource=SyncState.Resource.ISSUES, **fields):
        return SyncState.objects.create(repository=repository, resource=resource, **fields)

    def delivery(self, *, event="issues", action="opened", body=b"{}", **fields):
        return WebhookDelivery.objects.create(
            delivery_id=fields.pop("delivery_id", f"delivery-{self.next_id()}"),
            event=event,
            action=action,
            raw_body=body,
            **fields,
        )


@pytest.fixture
def make(db):
    return RowMaker()
