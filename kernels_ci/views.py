"""Dashboard pages of kernels_ci: thin views over selectors and services."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.core.paginator import Paginator
from django.db import transaction
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST, require_safe

from kernels_ci import selectors
from kernels_ci.backends import registry
from kernels_ci.models import ReproCase, ReproRun
from kernels_ci.panels import queue_cell_context
from kernels_ci.services.cases import NoReproducer, case_approve
from kernels_ci.services.runs import RunRequestError, runs_queue
from triage.permissions import APPROVE_REPRO


class RunFilterForm(forms.Form):
    issue = forms.RegexField(
        selectors.ISSUE_REF_RE, required=False, max_length=220, label="Issue (OWNER/NAME#N)"
    )
    outcome = forms.ChoiceField(required=False, choices=[("", "Any")] + ReproRun.Outcome.choices)
    status = forms.ChoiceField(required=False, choices=[("", "Any")] + ReproRun.Status.choices)
    backend = forms.ChoiceField(
        required=False, choices=lambda: [("", "Any")] + [(b, b) for b in registry()]
    )
    arch = forms.CharField(required=False, max_length=16)


@login_required
@require_safe
def run_list(request):
    form = RunFilterForm(request.GET or None)
    filters = {}
    if form.is_valid():
        filters = {k: v for k, v in form.cleaned_data.items() if v}
    page = Paginator(selectors.run_list(**filters), 50).get_page(request.GET.get("page"))
    return render(request, "kernels_ci/run_list.html", {"form": form, "page": page})


@login_required
@require_safe
def runner_list(request):
    return render(request, "kernels_ci/runner_list.html", {"runners": selectors.runners_list()})


@login_required
@require_POST
@permission_required(APPROVE_REPRO, raise_exception=True)
def case_approve_view(request, case_id: int):
    """Approve the script the maintainer was shown (its sha256 in the form) and queue its runs;
    both or neither: when the runs cannot be queued the approval is not kept either."""
    case = get_object_or_404(ReproCase.objects.select_related("issue__repository"), pk=case_id)
    issue = case.issue
    if request.POST.get("sha256") != case.sha256:
        messages.error(
            request, "The reproducer changed while you were reading it: review it again."
        )
    else:
        try:
            with transaction.atomic():
                case_approve(case=case, user=request.user, via="dashboard")
                runs = runs_queue(case=case)
            messages.success(
                request, f"Approved; {len(runs)} run(s) requested: the runs below say how they end."
            )
        except (NoReproducer, RunRequestError) as exc:
            messages.error(request, f"Not approved: {exc}")
    if request.headers.get("HX-Request") and request.POST.get("partial") == "queue-cell":
        case.refresh_from_db()
        case.latest_run = None
        context = queue_cell_context(case, can_approve=True)
        return render(
            request,
            "kernels_ci/panels/_queue_cell.html",
            {**context, "messages": messages.get_messages(request)},
        )
    return redirect(
        "issue-detail",
        owner=issue.repository.owner,
        name=issue.repository.name,
        number=issue.number,
    )
