"""The one switch that stops every write to GitHub, from the settings page."""

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseBadRequest
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from automation.outbox import services as outbox


@require_POST
@permission_required("triage.triage_issue", raise_exception=True)
def github_writes_switch(request):
    """Stop every write to GitHub at once (what waits is skipped): any triager may, as an
    emergency brake; allowing writes again is an admin's (change the write switch)."""
    if request.POST.get("stopped") not in ("0", "1"):
        return HttpResponseBadRequest("say stopped=1 (stop every write) or stopped=0 (allow)")
    stopped = request.POST["stopped"] == "1"
    if not stopped and not request.user.has_perm("automation.change_writeswitch"):
        raise PermissionDenied("only an admin allows writes to GitHub again")
    skipped = outbox.writes_stop(
        user=request.user, reason=request.POST.get("reason", "")[:255], stopped=stopped
    )
    if stopped:
        messages.warning(request, f"Every write to GitHub is stopped; {skipped} waiting skipped.")
    else:
        messages.success(request, "Writes to GitHub may go out again (each as opted in).")
    return redirect(f"{reverse('settings')}#github-writes")
