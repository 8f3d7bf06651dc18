"""The triage queue and triagers' decisions on predictions: thin views."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from triage import selectors
from triage.services import classification

QUEUE_PER_PAGE = 50


class QueueFilterForm(forms.Form):
    repo = forms.RegexField(selectors.FULL_NAME_RE, required=False, max_length=201)
    component = forms.CharField(required=False, max_length=100)
    architecture = forms.RegexField(r"^gfx[0-9a-f]{3,5}$", required=False, max_length=10)
    kind = forms.ChoiceField(
        required=False, choices=[("", "Any kind")] + [(k, k) for k in selectors.QUEUE_KINDS]
    )
    needs_triage = forms.BooleanField(required=False, label="Needs triage")

    def filters(self) -> dict:
        data = {"repo": "", "component": "", "architecture": "", "kind": "", "needs_triage": False}
        data.update(getattr(self, "cleaned_data", {}))
        return data


class DecisionForm(forms.Form):
    label = forms.CharField(max_length=255)


@login_required
def triage_queue(request):
    form = QueueFilterForm(request.GET or None)
    if form.is_bound:
        form.is_valid()
    issues = selectors.triage_queue(**form.filters())
    page = Paginator(issues, QUEUE_PER_PAGE).get_page(request.GET.get("page"))
    for issue in page.object_list:
        issue.predicted = {p.model_name: p for p in issue.predictions.all()}
    context = {
        "form": form,
        "page": page,
        "choices": selectors.triage_filter_choices(),
        "kinds": selectors.QUEUE_KINDS,
    }
    return render(request, "triage/triage_queue.html", context)


@login_required
@require_POST
def prediction_decide(request, owner: str, name: str, number: int, model_name: str):
    issue = selectors.issue_detail(owner=owner, name=name, number=number)
    form = DecisionForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose a label.")
    else:
        try:
            correction = classification.prediction_correct(
                issue=issue,
                model_name=model_name,
                label=form.cleaned_data["label"],
                user=request.user,
            )
        except classification.CorrectionError as exc:
            messages.error(request, str(exc))
        else:
            verb = "accepted" if correction.accepted else "corrected to"
            messages.success(request, f"{model_name} {verb} {correction.after}.")
    return redirect("issue-detail", owner=owner, name=name, number=number)
