"""GitHub's payloads into the one upsert path: listings and deliveries, one page at a time.

The sync (PyGithub pages) and the webhook handlers (deliveries) both write through these: each
turns GitHub's JSON into the shared records (records.py) and hands them to
triage/services/upsert.py, which says what it did (created / updated / unchanged, the changed
issues). Also GitHub's repositories: found by name in any case or by a former name.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction

from triage.models import Repository
from triage.services import upsert
from triage.services.upsert import UpsertResult
from triage.sources.github import records


def issues_upsert(
    *, repository: Repository, items: list[dict], from_webhook: bool = False
) -> UpsertResult:
    """Upsert issues (and PRs as the issues API lists them) of one repository."""
    return upsert.issues_upsert(
        repository=repository,
        records=[records.issue(item) for item in items],
        from_webhook=from_webhook,
    )


def pulls_upsert(
    *, repository: Repository, items: list[dict], from_webhook: bool = False
) -> UpsertResult:
    """Upsert pull requests from the pulls API or a pull_request delivery (their PR fields)."""
    return upsert.pulls_upsert(
        repository=repository,
        records=[records.pull(item) for item in items],
        from_webhook=from_webhook,
    )


def comments_upsert(
    *,
    repository: Repository,
    items: list[dict],
    issue_number: int | None = None,
    from_webhook: bool = False,
) -> UpsertResult:
    """Upsert issue comments of one repository (see upsert.comments_upsert)."""
    return upsert.comments_upsert(
        repository=repository,
        records=[records.comment(item, issue_number) for item in items],
        from_webhook=from_webhook,
    )


def labels_upsert(*, repository: Repository, labels: list[dict]) -> dict[str, int]:
    return upsert.labels_upsert(repository=repository, labels=records.labels(labels))


def label_delete(*, repository: Repository, label: dict) -> int:
    found = records.label(label) or records.LabelRecord(name=str(label.get("name") or ""))
    return upsert.label_delete(repository=repository, label=found)


def comment_mark_deleted(*, github_id: int) -> int:
    return upsert.comment_mark_deleted(source=records.SOURCE, external_id=str(github_id))


# --- repositories --------------------------------------------------------------------------


def repository_named(full_name: str) -> Repository | None:
    """GitHub's repository of OWNER/NAME, compared as GitHub compares names (in any case), or
    the one that had that name before GitHub renamed it."""
    github = Repository.objects.on_github()
    found = github.filter(full_name__iexact=full_name).first()
    if found is None:
        found = github.filter(former_names__full_name__iexact=full_name).first()
    return found


def repository_get_or_create(*, full_name: str, tracked: bool = True) -> Repository:
    owner, _, name = full_name.strip().partition("/")
    if not owner or not name or "/" in name or ":" in owner:
        raise ValueError(f"expected OWNER/NAME of a GitHub repository, got {full_name!r}")
    repository = repository_named(f"{owner}/{name}")
    if repository is None:
        try:
            with transaction.atomic():
                repository = Repository.objects.create(
                    owner=owner, name=name, full_name=f"{owner}/{name}", tracked=tracked
                )
        except IntegrityError:
            # created meanwhile by a concurrent delivery or sync (two workers taking the first
            # deliveries of a new repository at once): the insert waited for it; use that row
            repository = Repository.objects.get(full_name__iexact=f"{owner}/{name}")
    return repository


def repository_update_from_github(*, repository: Repository, data: dict) -> Repository:
    """Refresh a repository's own fields from GitHub's repository object."""
    repository.github_id = data.get("id") or repository.github_id
    full_name = records.string(data.get("full_name"))
    if full_name and "/" in full_name:
        repository.full_name = full_name
        repository.owner, repository.name = full_name.split("/", 1)
    repository.description = records.string(data.get("description"))
    repository.html_url = upsert.web_url(data.get("html_url"))
    repository.default_branch = records.string(data.get("default_branch"))[:255]
    repository.private = bool(data.get("private"))
    repository.save()
    return repository
