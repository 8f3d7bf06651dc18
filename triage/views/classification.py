"""The triage queue and triagers' decisions on predictions: thin views.

A decision (accept or correct a prediction, confirm a duplicate, override the priority with
model name "priority") needs triage.triage_issue. From htmx (HX-Request) the answer is the
issue page's updated classification panel; otherwise a redirect to the issue page."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.core.paginator import Paginator
from django.http import HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from classifiers import registry
from config import linear_re, wiring
from triage.models import PredictionCorrection, UserPreference
from triage.panels.classification import classification_panel
from triage.permissions import TRIAGE
from triage.selectors import issues as selectors
from triage.services import classification, priority, saved_views

PLACEHOLDERS = linear_re.compile("OWNER|NAME|999999999|MODEL")
QUEUE_PER_PAGE = 25  # each row carries its actions: a page a triager works through
SEVERITY_LABELS = registry.entry("severity").labels


def queue_columns() -> list[dict]:
    """The queue's prediction columns: the models the registry shows on the page."""
    entries = [registry.entry(name) for name in registry.names(page=True)]
    return [{"name": e.name, "key": e.queue_key, "choices": e.choices} for e in entries]


class QueueFilterForm(forms.Form):
    repo = forms.RegexField(selectors.FULL_NAME_RE, required=False, max_length=201)
    component = forms.CharField(required=False, max_length=100)
    architecture = forms.RegexField(r"^gfx[0-9a-f]{3,5}$", required=False, max_length=10)
    kind = forms.ChoiceField(
        required=False, choices=[("", "Any kind")] + [(k, k) for k in selectors.QUEUE_KINDS]
    )
    severity = forms.ChoiceField(
        required=False, choices=[("", "Any severity")] + [(s, s) for s in SEVERITY_LABELS]
    )
    needs_triage = forms.BooleanField(required=False, label="Needs triage")
    has_repro = forms.BooleanField(required=False, label="Has a reproducer")
    needs_info = forms.BooleanField(required=False, label="Waiting for the reporter")
    awaiting_approval = forms.BooleanField(required=False, label="Reproducer awaiting approval")
    known_error = forms.BooleanField(required=False, label="Known error to confirm")
    assignee = forms.RegexField(
        r"^@?[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$", required=False, max_length=40, label="Assignee"
    )
    mine = forms.BooleanField(required=False, label="My issues")
    sort = forms.ChoiceField(
        required=False,
        choices=[("", "Priority"), ("assignee", "Assignee")],
        label="Sort by",
    )
    q = forms.CharField(required=False, max_length=200, label="Search")

    FIELDS = (
        "repo",
        "component",
        "architecture",
        "kind",
        "severity",
        "needs_triage",
        "has_repro",
        "needs_info",
        "awaiting_approval",
        "known_error",
        "assignee",
        "mine",
        "sort",
    )

    def filters(self, *, login: str = "") -> dict:
        """The selector's arguments; `mine` becomes the user's GitHub login (preferences)."""
        data = {name: "" for name in (*self.FIELDS, "q")}
        data.update(
            needs_triage=False,
            has_repro=False,
            needs_info=False,
            awaiting_approval=False,
            known_error=False,
            mine=False,
        )
        data.update(getattr(self, "cleaned_data", {}))
        data["assignee"] = (data.get("assignee") or "").lstrip("@")
        data["mine"] = login if data.get("mine") else ""
        return data


class DecisionForm(forms.Form):
    label = forms.CharField(max_length=255)


class SavedViewForm(forms.Form):
    name = forms.CharField(max_length=100, label="Save this view as")


def _queue_query(request) -> str:
    """The queue's filters as a query string (page left out), for links and saved views."""
    params = request.GET.copy()
    params.pop("page", None)
    return params.urlencode()


@require_safe
def triage_queue(request):
    form = QueueFilterForm(request.GET or None)
    if form.is_bound:
        form.is_valid()
    preference = UserPreference.objects.filter(user=request.user).first()
    login = preference.github_login if preference else ""
    filters = form.filters(login=login)
    mine_without_login = bool(form.is_bound and form.data.get("mine") and not login)
    issues = selectors.triage_queue(**filters)
    if mine_without_login:  # nobody's issues are known to be mine: none, and the hint says why
        issues = issues.none()
    page = Paginator(issues, QUEUE_PER_PAGE).get_page(request.GET.get("page"))
    rows = queue_rows(list(page.object_list), request=request)
    context = {
        "form": form,
        "page": page,
        "rows": rows,
        "choices": selectors.triage_filter_choices(),
        "columns": queue_columns(),
        "saved_views": selectors.saved_views(user=request.user, page="triage-queue"),
        "saved_view_form": SavedViewForm(),
        "query": _queue_query(request),
        "mine_without_login": mine_without_login,
        **queue_context(request),
    }
    return render(request, "triage/triage_queue.html", context)


def queue_rows(issues: list, *, request) -> list[dict]:
    """One row per issue: its predictions by model, its top duplicate and the later stages'
    cells (wiring.QUEUE_ROW_CELLS), in a fixed number of queries whatever the page size."""
    extras = cells_of_rows(issue_ids=[i.id for i in issues], request=request)
    # One reverse() per page, not five per row: the row's URLs differ only in their parts.
    decide = reverse("prediction-decide", args=["OWNER", "NAME", 999999999, "MODEL"])
    detail = reverse("issue-detail", args=["OWNER", "NAME", 999999999])
    columns = queue_columns()
    rows = []
    for issue in issues:
        repo, number = issue.repository, str(issue.number)

        def url_of(template: str, model: str = "", repo=repo, number=number) -> str:
            values = {"OWNER": repo.owner, "NAME": repo.name, "999999999": number, "MODEL": model}
            return PLACEHOLDERS.sub(lambda found: values[found.group()], template)  # all at once

        predicted = {p.model_name: p for p in issue.predictions.all()}
        duplicates = predicted.get("duplicates")
        candidates = (duplicates.evidence or {}).get("candidates", []) if duplicates else []
        rows.append(
            {
                "issue": issue,
                "predicted": predicted,
                "predictions": [
                    dict(column, prediction=predicted.get(column["name"]))
                    | {"url": url_of(decide, column["name"])}
                    for column in columns
                ],
                "duplicate": candidates[0] if candidates else None,
                "cells": [cells.get(issue.id) for cells in extras],
                "url": url_of(detail),
                "decide": {m: url_of(decide, m) for m in ("priority", "duplicates")},
            }
        )
    return rows


def queue_context(request) -> dict:
    """What later stages add to the queue's page and rows (wiring.QUEUE_CONTEXT): the bulk bar."""
    context: dict = {}
    for dotted in wiring.QUEUE_CONTEXT:
        context.update(wiring.load(dotted)(request=request))
    return context


def cells_of_rows(*, issue_ids: list[int], request) -> list[dict]:
    return [
        wiring.load(dotted)(issue_ids=issue_ids, request=request)
        for dotted in wiring.QUEUE_ROW_CELLS
    ]


def queue_row_response(request, issue, *, undo: bool = True):
    issue = selectors.triage_queue_issue(issue_id=issue.id)
    # What was decided shows in the row it was decided in, once: read here, the messages would
    # otherwise wait for the next full page (and pile up there).
    decided = list(messages.get_messages(request))
    if issue is None:  # no longer in the queue (closed, say): the row goes
        return HttpResponse("")
    row = queue_rows([issue], request=request)[0]
    view = _queue_view_after_decision(request, issue)
    undoable = (
        classification.undoable_corrections(issue_ids=[issue.id], user=request.user).get(issue.id)
        if undo
        else None
    )
    context = {
        "row": row,
        "decided": decided,
        "undo": undoable,
        **queue_context(request),
        **view,
    }
    return render(request, "triage/_queue_row.html", context)


def _queue_view_after_decision(request, issue) -> dict:
    """Whether the decided issue still belongs to the queue as the triager filtered it (the
    row's forms send the filters: hx-include), and how many do now: the row says it left the
    view and the count changes at once, not at the next reload."""
    if "query" not in request.POST:
        return {}
    form = QueueFilterForm(QueryDict(request.POST["query"][:1000]))
    form.is_valid()
    preference = UserPreference.objects.filter(user=request.user).first()
    issues = selectors.triage_queue(
        **form.filters(login=preference.github_login if preference else "")
    )
    return {"left_view": not issues.filter(pk=issue.pk).exists(), "view_count": issues.count()}


@require_POST
def saved_view_create(request):
    form = SavedViewForm(request.POST)
    query = request.POST.get("query", "")[:1000]
    if form.is_valid():
        view = saved_views.saved_view_save(
            user=request.user, page="triage-queue", name=form.cleaned_data["name"], query=query
        )
        messages.success(request, f"Saved the view {view.name!r}.")
    else:
        messages.error(request, "Give the view a name (at most 100 characters).")
    return redirect(f"{reverse('triage-queue')}?{query}" if query else "triage-queue")


@require_POST
def saved_view_delete(request, pk: int):
    if saved_views.saved_view_delete(user=request.user, pk=pk):
        messages.success(request, "Saved view deleted.")
    return redirect("triage-queue")


def _decide(*, issue, model_name: str, label: str, user) -> str:
    """One decision; the message that says what happened."""
    if model_name == priority.OVERRIDE_MODEL:
        correction = priority.priority_override(issue=issue, label=label, user=user)
        if not correction.after:
            return "Priority override cleared."
        return f"Priority set to {correction.after}."
    correction = classification.prediction_correct(
        issue=issue, model_name=model_name, label=label, user=user
    )
    verb = "accepted" if correction.accepted else "corrected to"
    return f"{model_name} {verb} {correction.after}."


@login_required
@require_POST
@permission_required(TRIAGE, raise_exception=True)
def prediction_decide(request, owner: str, name: str, number: int, model_name: str):
    issue = selectors.issue_detail(owner=owner, name=name, number=number)
    form = DecisionForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose a label.")
    else:
        try:
            text = _decide(
                issue=issue,
                model_name=model_name,
                label=form.cleaned_data["label"],
                user=request.user,
            )
        except (classification.CorrectionError, priority.OverrideError) as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, text)
    if request.headers.get("HX-Request") and request.POST.get("partial") == "queue-row":
        return queue_row_response(request, issue)
    panel = classification_panel(issue=issue, request=request)
    if request.headers.get("HX-Request") and panel is not None:
        context = {"issue": issue, "panel": panel, "ctx": panel.context}
        return render(request, panel.template, context)
    return redirect("issue-detail", owner=owner, name=name, number=number)


@login_required
@require_POST
@permission_required(TRIAGE, raise_exception=True)
def decision_undo(request, pk: int):
    """Take back one's own latest decision on an issue (within the undo window)."""
    correction = get_object_or_404(
        PredictionCorrection.objects.select_related("issue__repository"), pk=pk
    )
    issue = correction.issue
    try:
        messages.success(
            request, classification.decision_undo(correction=correction, user=request.user)
        )
    except classification.UndoError as exc:
        messages.error(request, str(exc))
    if request.headers.get("HX-Request") and request.POST.get("partial") == "queue-row":
        return queue_row_response(request, issue, undo=False)
    panel = classification_panel(issue=issue, request=request)
    if request.headers.get("HX-Request") and panel is not None:
        return render(
            request, panel.template, {"issue": issue, "panel": panel, "ctx": panel.context}
        )
    repo = issue.repository
    return redirect("issue-detail", owner=repo.owner, name=repo.name, number=issue.number)
