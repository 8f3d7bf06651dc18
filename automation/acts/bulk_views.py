"""The triage queue's bulk actions: one action on the selected issues, its preview and its undo
(thin views over automation.acts.bulk; each action under its own permission)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from automation.acts import bulk


@login_required
@require_POST
def triage_bulk(request):
    """One action on the selected issues of the queue; back to the queue as it was filtered.
    Each action has its own permission (triage.permissions.ACTION_PERMISSIONS): a triager's bar
    decides, a release manager's targets trains."""
    if not bulk.actions_for(request.user):
        raise PermissionDenied
    ids = [int(i) for i in request.POST.getlist("ids") if i.isdigit()]
    action, argument = request.POST.get("action", ""), request.POST.get("argument", "")[:400]
    query = request.POST.get("query", "")[:1000]
    preview = request.POST.get("preview") == "1"
    try:
        report = bulk.bulk_apply(
            issue_ids=ids, action=action, argument=argument, user=request.user, preview=preview
        )
    except bulk.BulkError as exc:
        messages.error(request, str(exc))
    else:
        if preview:  # what it would do, issue by issue, and the writes to GitHub; nothing kept
            context = {
                "report": report,
                "label": bulk.ACTIONS[action],
                "action": action,
                "argument": argument,
                "ids": ids,
                "query": query,
            }
            return render(request, "triage/bulk_preview.html", context)
        level = messages.success if not report.refused else messages.warning
        level(request, f"{bulk.ACTIONS[action]}: {report.summary()}")
    return redirect(f"{reverse('triage-queue')}?{query}" if query else "triage-queue")


@login_required
@require_POST
def triage_bulk_undo(request):
    """Undo the user's latest bulk action (its batch), as far as it can be undone."""
    if not bulk.actions_for(request.user):
        raise PermissionDenied
    try:
        report = bulk.bulk_undo(batch=request.POST.get("batch", "")[:64], user=request.user)
    except bulk.BulkError as exc:
        messages.error(request, str(exc))
    else:
        level = messages.success if not report.refused else messages.warning
        level(request, f"Undone: {report.summary()}")
    query = request.POST.get("query", "")[:1000]
    return redirect(f"{reverse('triage-queue')}?{query}" if query else "triage-queue")
