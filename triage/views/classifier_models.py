"""The models page: each classifier's versions and metrics, and a retrain button."""

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.db import transaction
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST, require_safe

from triage import permissions
from triage.models import TriageAction
from triage.selectors import home as selectors_home
from triage.tasks import classify_retrain_models


@require_safe
def models_overview(request):
    models = [
        {**row, "history": selectors_home.model_versions(row["name"])[:10]}
        for row in selectors_home.model_health()
    ]
    return render(
        request,
        "triage/models.html",
        {"models": models, "demo_data": selectors_home.holds_demo_data()},
    )


@require_POST
@permission_required(permissions.TRIAGE, raise_exception=True)
def models_retrain(request):
    force = request.POST.get("force") == "1"
    TriageAction.objects.create(actor=request.user, action="models.retrain", after={"force": force})
    transaction.on_commit(lambda: classify_retrain_models.delay(force=force))
    messages.success(
        request,
        "Retraining queued on the classify queue: a new version becomes active only if it is "
        "not worse than the active one.",
    )
    return redirect("models")
