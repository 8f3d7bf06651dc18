"""Reads for the home page: what needs a maintainer today (triage's part of it)."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from django.db.models import Count, Q
from django.db.models.functions import TruncWeek

from classifiers import artifacts, registry
from triage.models import Issue, Post, Repository, Spike
from triage.selectors import issues as selectors

HOME_QUEUE_TOP = 5
# The synthetic demo's GitHub pages are on this host (triage/fixtures/demo/build_demo_data.py).
DEMO_HOST_PREFIX = "https://github.demo.invalid/"


def holds_demo_data() -> bool:
    """Whether the database holds the synthetic demo data set (its repositories' pages are on a
    host that cannot exist): scores measured on it say nothing of real reports."""
    return Repository.objects.filter(html_url__startswith=DEMO_HOST_PREFIX).exists()


def untriaged_issues():
    """Open issues that are untriaged, by the one definition (selectors.untriaged)."""
    return Issue.objects.filter(
        deleted_at__isnull=True, is_pull_request=False, state=Issue.State.OPEN
    ).filter(selectors.untriaged())


def triage_summary() -> dict:
    open_issues = Issue.objects.filter(
        deleted_at__isnull=True, is_pull_request=False, state=Issue.State.OPEN
    )
    return {
        "open": open_issues.count(),
        "untriaged": untriaged_issues().count(),
        "top": list(selectors.triage_queue()[:HOME_QUEUE_TOP]),
    }


def issues_opened_closed_per_week(*, weeks: int = 12, now: datetime) -> dict:
    """{"labels": [Monday ISO dates], "opened": [...], "closed": [...]} for the last `weeks`."""
    today = now.date()
    first = today - timedelta(days=today.weekday(), weeks=weeks - 1)
    visible = Issue.objects.filter(deleted_at__isnull=True, is_pull_request=False)

    def per_week(field: str) -> dict[date, int]:
        rows = (
            visible.filter(**{f"{field}__date__gte": first})
            .annotate(week=TruncWeek(field))
            .values("week")
            .annotate(n=Count("id"))
            .order_by()
        )
        return {_as_date(r["week"]): r["n"] for r in rows}

    opened, closed = per_week("created_at"), per_week("closed_at")
    mondays = [first + timedelta(weeks=i) for i in range(weeks)]
    return {
        "labels": [m.isoformat() for m in mondays],
        "opened": [opened.get(m, 0) for m in mondays],
        "closed": [closed.get(m, 0) for m in mondays],
    }


def _as_date(value) -> date:
    return value.date() if isinstance(value, datetime) else value


def social_summary(*, now: datetime, hours: int = 48) -> dict:
    since = now - timedelta(hours=hours)
    by_sentiment = dict(
        Post.objects.filter(created_at__gte=since)
        .values_list("sentiment")
        .annotate(n=Count("id"))
        .order_by()
    )
    return {
        "hours": hours,
        "posts": sum(by_sentiment.values()),
        "negative": by_sentiment.get(Post.Sentiment.NEGATIVE, 0),
        "spikes": list(
            Spike.objects.filter(Q(hour__gte=since) | Q(announced_at__gte=since))
            .select_related("search")
            .order_by("-hour")[:5]
        ),
    }


def model_health() -> list[dict]:
    """Per registered model: its active version, when it was trained, on what, its scores."""
    rows = []
    for name in sorted(registry.models()):
        row = {"name": name, "version": artifacts.active_version(name), "versions": 0}
        row["versions"] = len(artifacts.versions(name))
        if row["version"]:
            try:
                metadata = artifacts.metadata_read(name, row["version"])
            except artifacts.ArtifactError as exc:
                row["error"] = str(exc)
            else:
                row.update(_metadata_summary(metadata))
        rows.append(row)
    return rows


def model_versions(name: str) -> list[dict]:
    """Every saved version of one model, newest first, with its metadata summary."""
    registry.model_class(name)  # UnknownModel for a bad name
    active = artifacts.active_version(name)
    rows = []
    for version in reversed(artifacts.versions(name)):
        try:
            metadata = artifacts.metadata_read(name, version)
        except artifacts.ArtifactError as exc:
            rows.append({"version": version, "error": str(exc), "active": version == active})
            continue
        rows.append(
            {"version": version, "active": version == active, **_metadata_summary(metadata)}
        )
    return rows


def _metadata_summary(metadata: dict) -> dict:
    metrics = metadata.get("cv_metrics") or {}
    return {
        "created_at": metadata.get("created_at", ""),
        "n_samples": metadata.get("n_samples"),
        "source": metadata.get("source", ""),
        "macro_f1": metrics.get("macro_f1"),
        "accuracy": metrics.get("accuracy"),
        "coverage": metrics.get("coverage"),
        "precision_at_threshold": metrics.get("precision_at_threshold"),
        "sklearn_version": metadata.get("sklearn_version", ""),
        "git_revision": metadata.get("git_revision", ""),
        "classes": metadata.get("classes", []),
        "activation": metadata.get("activation", ""),
    }
