"""Dashboard pages of releases: thin, one selector or service each."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_safe

from releases import calendar, selectors
from releases.burndown import burndown_build
from releases.history import history_load
from releases.readiness import readiness_build, reasons_linked
from releases.report_formats import release_notes_markdown


@login_required
@require_safe
def train_timeline(request):
    series_list = selectors.series_all()
    now = timezone.now()
    timelines = []
    for series in series_list:
        past, current, after = calendar.trains_window(
            series.spec(), now, past=calendar.TIMELINE_PAST, upcoming=calendar.TIMELINE_UPCOMING
        )
        position = None
        if current is not None:
            previous = (
                past[-1].release
                if past
                else current.release - timezone.timedelta(days=series.cadence_days)
            )
            span = (current.release - previous).days or 1
            position = round(100 * (selectors.today_in(series, now) - previous).days / span)
        timelines.append(
            {
                "series": series,
                "past": past,
                "current": current,
                "after": after,
                "position": position,
                **_verdicts(series, current, after, now),
            }
        )
    return render(request, "releases/timeline.html", {"timelines": timelines, "today": now.date()})


def _verdicts(series, current, after, now) -> dict:
    """The verdict of each train still to ship (the current one with its first reason), from
    one read of the series' history: {"current_verdict": {...}, "after_verdicts": [...]}."""
    today = selectors.today_in(series, now)
    history = history_load(series) if current or after else None

    def verdict(train) -> dict:
        report = readiness_build(series=series, version=train.version, as_of=today, history=history)
        return {"verdict": report["verdict"], "reason": report["reasons"][0]}

    return {
        "current_verdict": verdict(current) if current else None,
        "after_verdicts": [{"train": train, **verdict(train)} for train in after],
    }


@login_required
@require_safe
def train_detail(request, version: str):
    series = selectors.series_get(request.GET.get("series", ""))
    train = selectors.train_get(series, version)
    today = selectors.today_in(series, timezone.now())
    history = history_load(series)
    report = readiness_build(series=series, version=train.version, as_of=today, history=history)
    burndown = burndown_build(series=series, train=train, today=today, history=history)
    return render(
        request,
        "releases/train_detail.html",
        {
            "series": series,
            "train": train,
            "report": report,
            "linked_reasons": reasons_linked(report),
            "burndown": burndown,
            "backports": selectors.backports_of_train(series, train.version),
            "missed": report["missed_backports"],
        },
    )


@login_required
@require_safe
def release_notes(request, version: str):
    series = selectors.series_get(request.GET.get("series", ""))
    train = selectors.train_get(series, version)
    draft = selectors.notes_draft_of(series, train.version)
    if draft is not None:
        text = draft.text
    else:
        report = readiness_build(
            series=series, version=train.version, as_of=selectors.today_in(series, timezone.now())
        )
        text = release_notes_markdown(report, product=series.title or series.name)
    if request.GET.get("download"):
        response = HttpResponse(text, content_type="text/markdown; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="release-notes-{train.label}.md"'
        return response
    return render(
        request,
        "releases/notes.html",
        {"series": series, "train": train, "notes": text, "draft": draft},
    )
