"""What the commands' arguments share."""

from __future__ import annotations

from django.core.management.base import CommandError

from triage.models import Repository


def repository_argument(full_name: str | None) -> Repository | None:
    """The repository an OWNER/NAME argument names (None when none was given); CommandError when
    this service does not hold it."""
    if not full_name:
        return None
    repository = Repository.objects.filter(full_name__iexact=full_name).first()
    if repository is None:
        raise CommandError(f"{full_name} is not a repository this service holds")
    return repository
