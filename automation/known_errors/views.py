"""A triager answers a known error's match (the answer posted, the duplicate decided) or
dismisses it."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from automation.known_errors import services as known_errors
from automation.known_errors.models import KnownErrorMatch
from triage.permissions import TRIAGE


@login_required
@require_POST
@permission_required(TRIAGE, raise_exception=True)
def known_error_decide(request, pk: int):
    """A triager posts a known error's answer (and the duplicate decision), or dismisses it."""
    match = get_object_or_404(
        KnownErrorMatch.objects.select_related("issue__repository", "signature__canonical"), pk=pk
    )
    if match.state != KnownErrorMatch.State.PROPOSED:
        messages.info(request, f"Already {match.get_state_display()}.")
    elif request.POST.get("decision") == "answer":
        write = known_errors.known_error_answer(match=match, user=request.user)
        duplicate = f"Marked duplicate of {match.signature.canonical.reference}"
        if write.status == write.Status.SKIPPED:
            messages.warning(request, f"{duplicate}; the answer was not posted: {write.detail}.")
        elif write.status == write.Status.PLANNED:
            messages.success(request, f"{duplicate}; the answer is planned only ({write.detail}).")
        else:
            messages.success(request, f"{duplicate}; the answer is being posted on GitHub.")
    else:
        known_errors.known_error_dismiss(match=match, user=request.user)
        messages.success(request, f"Dismissed {match.signature.name!r}.")
    issue = match.issue
    return redirect("issue-detail", issue.repository.owner, issue.repository.name, issue.number)
