"""The release manager's actions on the dashboard: POST only, CSRF-protected, permission-checked,
thin (validate with a form, call one service).

htmx: a request with the HX-Request header gets back a partial (the backports table, or a short
result with the error in a role="alert" element) with status 200 so that htmx swaps it in;
any other request is redirected (to `next` when it is a local URL, else the train page) with a
message.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from releases import calendar, forms, selectors
from releases.models import Backport
from releases.readiness import readiness_build, reasons_linked
from releases.services.backports import (
    BackportError,
    NotReleaseManager,
    backport_approve,
    backport_nominate,
    backport_reject,
)
from releases.services.candidates import CandidateError, train_rc_tag
from releases.services.fixes import FixLinkError, fix_link_add, fix_link_remove
from releases.services.notes import NotesError, notes_draft_discard, notes_draft_save
from releases.services.targets import TargetError, target_set
from triage.permissions import APPROVE_BACKPORT, MANAGE_TRAINS

ACTION_ERRORS = (
    BackportError,
    CandidateError,
    FixLinkError,
    NotesError,
    TargetError,
    calendar.CalendarError,
    ValidationError,
)


def _is_htmx(request) -> bool:
    return request.headers.get("HX-Request") == "true"


def _series(request):
    return selectors.series_get(request.POST.get("series") or request.GET.get("series", ""))


def _back(request, series, version: str = ""):
    wanted = request.POST.get("next", "")
    if wanted and url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return redirect(wanted)
    if version:
        return redirect(f"{reverse('release-train', args=[version])}?series={series.name}")
    return redirect("release-timeline")


def _answer(request, *, series, version="", ok: bool, message: str, partial=None, context=None):
    if _is_htmx(request):
        template = partial or "releases/_action_result.html"
        return render(
            request,
            template,
            {"ok": ok, "message": message, "series": series, "version": version, **(context or {})},
        )
    (messages.success if ok else messages.error)(request, message)
    return _back(request, series, version)


def _backports_context(series, version: str) -> dict:
    """The backports section again, and the readiness section with it (htmx swaps it out of
    band: its pending-backport count and notes change with a nomination or a decision)."""
    train = selectors.train_get(series, version)
    today = selectors.today_in(series, timezone.now())
    report = readiness_build(series=series, version=train.version, as_of=today)
    return {
        "train": train,
        "backports": selectors.backports_of_train(series, train.version),
        "missed": report["missed_backports"],
        "report": report,
        "linked_reasons": reasons_linked(report),
        "readiness_oob": True,
    }


@login_required
@require_POST
@permission_required(MANAGE_TRAINS, raise_exception=True)
def backport_nominate_view(request, version: str):
    series = _series(request)
    form = forms.NominateForm(request.POST)

    def refused(message: str):
        # the section again, the error inside its form and what was typed kept
        try:
            section = _backports_context(series, version)
        except Http404:  # no such train: nothing to show again
            return _answer(request, series=series, version=version, ok=False, message=message)
        return _answer(
            request,
            series=series,
            version=version,
            ok=False,
            message=message,
            partial="releases/_backports.html",
            context={
                **section,
                "nominate_failed": True,
                "nominate_issue": request.POST.get("issue", "")[:400],
                "nominate_reason": request.POST.get("reason", "")[:255],
            },
        )

    if not form.is_valid():
        return refused(forms.first_error(form))
    try:
        backport = backport_nominate(
            issue=form.cleaned_data["issue"],
            series=series,
            version=version,
            user=request.user,
            reason=form.cleaned_data["reason"],
        )
    except ACTION_ERRORS as exc:
        return refused(str(exc))
    return _answer(
        request,
        series=series,
        version=backport.train_version,
        ok=True,
        message=f"{backport.issue.reference} nominated for {backport.train_version} "
        f"({backport.state})",
        partial="releases/_backports.html",
        context=_backports_context(series, backport.train_version),
    )


@login_required
@require_POST
@permission_required(APPROVE_BACKPORT, raise_exception=True)
def backport_decide_view(request, pk: int, decision: str):
    backport = get_object_or_404(Backport.objects.select_related("series", "issue"), pk=pk)
    decide = {"approve": backport_approve, "reject": backport_reject}.get(decision)
    if decide is None:
        raise Http404("approve or reject")
    series = backport.series
    try:
        backport = decide(backport=backport, user=request.user)
    except (BackportError, NotReleaseManager) as exc:
        ok, message = False, str(exc)
    else:
        ok, message = True, f"backport of {backport.issue.reference} is {backport.state}"
    return _answer(
        request,
        series=series,
        version=backport.train_version,
        ok=ok,
        message=message,
        partial="releases/_backports.html",
        context=_backports_context(series, backport.train_version),
    )


@login_required
@require_POST
@permission_required(MANAGE_TRAINS, raise_exception=True)
def fix_link_view(request, action: str):
    series = _series(request)
    service = {"add": fix_link_add, "remove": fix_link_remove}.get(action)
    if service is None:
        raise Http404("add or remove")
    form = forms.FixLinkForm(request.POST)
    if not form.is_valid():
        return _answer(request, series=series, ok=False, message=forms.first_error(form))
    try:
        link = service(
            issue=form.cleaned_data["issue"],
            pull_request=form.cleaned_data["pull_request"],
            user=request.user,
        )
    except ACTION_ERRORS as exc:
        return _answer(request, series=series, ok=False, message=str(exc))
    what = "removed" if link.removed else f"linked (train {link.train_version or 'none'})"
    return _answer(
        request,
        series=series,
        version=link.train_version,
        ok=True,
        message=f"{link.pull_request.reference} → {link.issue.reference}: {what}",
    )


@login_required
@require_POST
@permission_required(MANAGE_TRAINS, raise_exception=True)
def target_set_view(request):
    series = _series(request)
    form = forms.TargetForm(request.POST)
    if not form.is_valid():
        return _answer(request, series=series, ok=False, message=forms.first_error(form))
    data = form.cleaned_data
    try:
        target = target_set(
            issue=data["issue"],
            series=series,
            version=data["version"],
            flags=None if data["keep_flags"] else data["flags"],
            note=data["note"] or None,
            user=request.user,
        )
    except ACTION_ERRORS as exc:
        return _answer(request, series=series, ok=False, message=str(exc))
    flags = ", ".join(target.flags) or "no flags"
    return _answer(
        request,
        series=series,
        version=target.train_version,
        ok=True,
        message=f"{target.issue.reference}: train {target.train_version or 'untargeted'}, {flags}",
    )


@login_required
@require_POST
@permission_required(MANAGE_TRAINS, raise_exception=True)
def rc_tag_view(request, version: str):
    series = _series(request)
    form = forms.CandidateForm(request.POST)
    if not form.is_valid():
        return _answer(
            request, series=series, version=version, ok=False, message=forms.first_error(form)
        )
    try:
        candidate = train_rc_tag(
            series=series, version=version, tag=form.cleaned_data["tag"], user=request.user
        )
    except ACTION_ERRORS as exc:
        return _answer(request, series=series, version=version, ok=False, message=str(exc))
    return _answer(
        request,
        series=series,
        version=candidate.train_version,
        ok=True,
        message=f"{candidate.tag} tagged: verification requested for "
        f"{candidate.verification_requested} fixed issue(s)",
    )


@login_required
@require_POST
@permission_required(MANAGE_TRAINS, raise_exception=True)
def notes_save_view(request, version: str):
    series = _series(request)
    notes_url = f"{reverse('release-notes', args=[version])}?series={series.name}"
    if request.POST.get("discard"):
        try:
            notes_draft_discard(series=series, version=version)
        except ACTION_ERRORS as exc:
            messages.error(request, str(exc))
            return redirect(notes_url)
        messages.success(request, "Draft discarded: the notes are generated again.")
        return redirect(notes_url)
    form = forms.NotesForm(request.POST)
    try:
        if not form.is_valid():
            raise NotesError(forms.first_error(form))
        notes_draft_save(
            series=series, version=version, text=form.cleaned_data["text"], user=request.user
        )
    except ACTION_ERRORS as exc:
        if _is_htmx(request):
            return _answer(request, series=series, version=version, ok=False, message=str(exc))
        messages.error(request, str(exc))
        return redirect(notes_url)
    if _is_htmx(request):
        return _answer(request, series=series, version=version, ok=True, message="Draft saved.")
    messages.success(request, "Draft saved: the download exports it.")
    return redirect(notes_url)
