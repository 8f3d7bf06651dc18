"""Load the bundled, synthetic demo data set through the same upserts as the GitHub sync."""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth import get_user_model
from django.db import transaction

from triage.services import ingest

DEMO_DATA = Path(__file__).resolve().parent.parent / "fixtures" / "demo" / "github.json.gz"
PAGE = 100


@dataclass
class DemoReport:
    repositories: int = 0
    issues: ingest.UpsertResult | None = None
    pulls: ingest.UpsertResult | None = None
    comments: ingest.UpsertResult | None = None

    def summary(self) -> str:
        parts = [f"{self.repositories} repositories"]
        for name in ("issues", "pulls", "comments"):
            result = getattr(self, name)
            parts.append(
                f"{name}: {result.created} created, {result.updated} updated, "
                f"{result.unchanged} unchanged"
            )
        return "; ".join(parts)


def _pages(items: list[dict]):
    for start in range(0, len(items), PAGE):
        yield items[start : start + PAGE]


def demo_data_read(path: Path = DEMO_DATA) -> dict:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return json.load(handle)


def demo_load(*, path: Path = DEMO_DATA) -> DemoReport:
    data = demo_data_read(path)
    report = DemoReport(
        issues=ingest.UpsertResult(), pulls=ingest.UpsertResult(), comments=ingest.UpsertResult()
    )
    for entry in data["repositories"]:
        with transaction.atomic():
            repository = ingest.repository_get_or_create(full_name=entry["repository"]["full_name"])
            ingest.repository_update_from_github(repository=repository, data=entry["repository"])
            ingest.labels_upsert(repository=repository, labels=entry.get("labels", []))
            ordered = sorted(entry.get("issues", []), key=lambda item: item["updated_at"])
            for page in _pages(ordered):
                report.issues.add(ingest.issues_upsert(repository=repository, items=page))
            for page in _pages(entry.get("pulls", [])):
                report.pulls.add(ingest.pulls_upsert(repository=repository, items=page))
            for page in _pages(entry.get("comments", [])):
                report.comments.add(ingest.comments_upsert(repository=repository, items=page))
        report.repositories += 1
    return report


def demo_user_ensure(*, username: str, password: str) -> None:
    """A superuser for trying the dashboard and admin on the demo data."""
    user, _ = get_user_model().objects.get_or_create(username=username)
    user.is_staff = user.is_superuser = True
    user.set_password(password)
    user.save()
