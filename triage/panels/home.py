"""triage's sections of the home page and the settings page (listed in settings.*_PANELS)."""

from __future__ import annotations

from django.conf import settings
from django.utils import timezone

from triage.panels import Panel
from triage.selectors import home as selectors_home
from triage.selectors import issues as selectors
from triage.selectors import social as selectors_social
from triage.sources.github import app_auth


def triage_panel(*, request) -> Panel:
    return Panel(
        title="Triage",
        template="triage/home/triage.html",
        context=selectors_home.triage_summary(),
        slug="triage",
    )


def activity_panel(*, request) -> Panel:
    chart = selectors_home.issues_opened_closed_per_week(weeks=12, now=timezone.now())
    return Panel(
        title="Issues opened and closed per week",
        template="triage/home/activity.html",
        context={
            "chart": {
                "type": "bar",
                "labels": chart["labels"],
                "datasets": [
                    {"label": "opened", "data": chart["opened"], "color": "#1a7f37"},
                    {"label": "closed", "data": chart["closed"], "color": "#8250df"},
                ],
            },
            "totals": {"opened": sum(chart["opened"]), "closed": sum(chart["closed"])},
        },
        slug="activity",
    )


def social_panel(*, request) -> Panel:
    return Panel(
        title="Social",
        template="triage/home/social.html",
        context=selectors_home.social_summary(now=timezone.now()),
        slug="social",
    )


def models_panel(*, request) -> Panel:
    return Panel(
        title="Models",
        template="triage/home/models.html",
        context={"models": selectors_home.model_health()},
        slug="models",
        wide=True,
    )


def github_budgets_panel(*, request) -> Panel | None:
    """Each GitHub rate budget (the token's, or an App installation's): what is left, when it
    resets, and the repositories still backfilling on it. None while nothing is tracked."""
    budgets = selectors.rate_budgets()
    if not budgets:
        return None
    return Panel(
        title="GitHub rate budgets",
        template="triage/home/github_budgets.html",
        context={"budgets": budgets, "problems": app_auth.installation_problems()},
        slug="github-budgets",
        wide=True,
    )


def repositories_settings_panel(*, request) -> Panel:
    return Panel(
        title="Tracked repositories",
        template="triage/settings/repositories.html",
        context={
            "overviews": selectors.repository_overviews(),
            "configured_repos": settings.GITHUB_REPOS,
            "app_problems": app_auth.installation_problems(),
            "budgets": selectors.rate_budgets(),
            "reserve": settings.GITHUB_RATE_RESERVE,
        },
        slug="repositories",
    )


def saved_searches_settings_panel(*, request) -> Panel:
    return Panel(
        title="Saved X searches",
        template="triage/settings/saved_searches.html",
        context={
            "searches": selectors_social.saved_searches(),
            "x_enabled": bool(settings.X_BEARER_TOKEN),
        },
        slug="saved-searches",
    )
