"""kernels_ci's section of the home page: cases awaiting approval, failing runs, runners down."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import Count, Q
from django.utils import timezone

from kernels_ci import selectors
from kernels_ci.models import ReproRun, Runner
from triage.panels import Panel

OUTCOME_COLOURS = {
    ReproRun.Outcome.REPRODUCED: "#b42318",
    ReproRun.Outcome.FLAKY: "#d4a72c",
    ReproRun.Outcome.FAILED_DIFFERENTLY: "#c2410c",
    ReproRun.Outcome.FAILED: "#9a3412",
    ReproRun.Outcome.ENVIRONMENT_MISMATCH: "#0e7490",
    ReproRun.Outcome.NOT_REPRODUCED: "#1a7f37",
    ReproRun.Outcome.INVALID: "#6b7280",
    ReproRun.Outcome.INFRA_ERROR: "#8250df",
    ReproRun.Outcome.CANNOT_OBSERVE: "#57606a",
}


def runners_down(*, now):
    stale = now - timedelta(seconds=3 * settings.KERNELS_CI_HEARTBEAT_S)
    return Runner.objects.filter(
        Q(healthy=False) | Q(last_heartbeat_at__lt=stale) | Q(last_heartbeat_at__isnull=True)
    )


def outcomes_by_architecture(*, since) -> dict:
    rows = (
        ReproRun.objects.filter(created_at__gte=since, status=ReproRun.Status.DONE)
        .values_list("arch", "outcome")
        .annotate(n=Count("id"))
        .order_by()
    )
    counts: dict[str, dict[str, int]] = {}
    for arch, outcome, n in rows:
        counts.setdefault(arch, {})[outcome] = n
    archs = sorted(counts)
    return {
        "type": "bar",
        "stacked": True,
        "labels": archs,
        "datasets": [
            {
                "label": outcome.value.replace("_", " "),
                "data": [counts[a].get(outcome.value, 0) for a in archs],
                "color": colour,
            }
            for outcome, colour in OUTCOME_COLOURS.items()
        ],
    }


def repro_panel(*, request) -> Panel:
    now = timezone.now()
    week_ago = now - timedelta(days=7)
    awaiting = (
        selectors.cases_awaiting_approval()
        .select_related("issue__repository")
        .order_by("-extracted_at")
    )
    failing = ReproRun.objects.filter(
        finished_at__gte=week_ago, outcome=ReproRun.Outcome.INFRA_ERROR
    ).count()
    return Panel(
        title="Kernel repros",
        template="kernels_ci/home/repro.html",
        context={
            "awaiting_count": awaiting.count(),
            "awaiting": list(awaiting[:5]),
            "infra_errors": failing,
            "reproduced": ReproRun.objects.filter(
                finished_at__gte=week_ago, outcome=ReproRun.Outcome.REPRODUCED
            ).count(),
            "running": ReproRun.objects.filter(
                status__in=[ReproRun.Status.QUEUED, ReproRun.Status.RUNNING]
            ).count(),
            "runners_down": list(runners_down(now=now)),
            "runners_registered": Runner.objects.exists(),
            "chart": outcomes_by_architecture(since=week_ago),
        },
        slug="repro",
    )
