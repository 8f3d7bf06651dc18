"""A maintainer acts on an issue on GitHub from its page: reply, close, reopen, labels, title,
lock and assignees (thin views over automation.acts.services and .assignment; each act under its
permission, ACTION_PERMISSIONS)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from automation.acts import assignment
from automation.acts import services as issue_acts
from triage.permissions import TRIAGE, may
from triage.selectors import issues as selectors
from triage.text.rendering import render_markdown_cached


def _issue(request, act: str, owner: str, name: str, number: int):
    if not may(request.user, act):
        raise PermissionDenied
    return selectors.issue_detail(owner=owner, name=name, number=number)


def _back(owner: str, name: str, number: int):
    response = redirect("issue-detail", owner=owner, name=name, number=number)
    response["Location"] += "#acts"
    return response


@login_required
@require_POST
def issue_reply(request, owner: str, name: str, number: int):
    issue = _issue(request, "reply", owner, name, number)
    try:
        write = issue_acts.issue_reply(
            issue=issue,
            body=request.POST.get("body", "")[: issue_acts.MAX_REPLY + 1],
            user=request.user,
            mention_reporter=request.POST.get("mention") == "on",
            form_nonce=request.POST.get("nonce", "")[:64],
        )
    except issue_acts.ActRefused as exc:
        messages.error(request, f"Not replied: {exc}.")
    else:
        messages.success(request, f"Reply: {issue_acts.said(write)}.")
    return _back(owner, name, number)


@login_required
@require_POST
def reply_preview(request, owner: str, name: str, number: int):
    """The reply as GitHub will show it (our sanitized Markdown rendering), for htmx."""
    _issue(request, "reply", owner, name, number)
    text = request.POST.get("body", "")[: issue_acts.MAX_REPLY]
    html = render_markdown_cached(text) if text.strip() else "<p>Nothing to preview.</p>"
    return HttpResponse(html)


@login_required
@require_POST
def issue_state(request, owner: str, name: str, number: int):
    """Close (field `reason`: completed, not_planned, duplicate with `duplicate_of`) or reopen
    (field `reopen`)."""
    reopen = bool(request.POST.get("reopen"))
    issue = _issue(request, "reopen" if reopen else "close", owner, name, number)
    try:
        if reopen:
            said = issue_acts.said(issue_acts.issue_reopen(issue=issue, user=request.user))
        else:
            said = issue_acts.said(
                issue_acts.issue_close(
                    issue=issue,
                    reason=request.POST.get("reason", ""),
                    duplicate_of=request.POST.get("duplicate_of", "")[:220],
                    user=request.user,
                )
            )
    except issue_acts.ActRefused as exc:
        messages.error(request, f"Not {'reopened' if reopen else 'closed'}: {exc}.")
    else:
        messages.success(request, f"{'Reopen' if reopen else 'Close'}: {said}.")
    return _back(owner, name, number)


@login_required
@require_POST
def issue_title(request, owner: str, name: str, number: int):
    issue = _issue(request, "retitle", owner, name, number)
    try:
        write = issue_acts.issue_title_edit(
            issue=issue, title=request.POST.get("title", "")[:1000], user=request.user
        )
    except issue_acts.ActRefused as exc:
        messages.error(request, f"Title not changed: {exc}.")
    else:
        messages.success(request, f"Title: {issue_acts.said(write)}.")
    return _back(owner, name, number)


@login_required
@require_POST
def issue_lock(request, owner: str, name: str, number: int):
    """Lock (field `reason`: GitHub's, or empty) or unlock (field `unlock`) the conversation."""
    issue = _issue(request, "lock", owner, name, number)
    unlock = bool(request.POST.get("unlock"))
    try:
        write = issue_acts.issue_lock(
            issue=issue, user=request.user, reason=request.POST.get("reason", ""), unlock=unlock
        )
    except issue_acts.ActRefused as exc:
        messages.error(request, f"Not {'unlocked' if unlock else 'locked'}: {exc}.")
    else:
        messages.success(request, f"{'Unlock' if unlock else 'Lock'}: {issue_acts.said(write)}.")
    return _back(owner, name, number)


@login_required
@require_POST
def issue_labels(request, owner: str, name: str, number: int):
    """Add (field `add`: names, commas between) and remove (field `remove`) labels."""
    issue = _issue(request, "label", owner, name, number)
    try:
        add = request.POST.get("add", "").strip()
        remove = request.POST.get("remove", "").strip()
        writes = issue_acts.issue_labels_change(
            issue=issue,
            add=issue_acts.labels_parse(issue, add) if add else [],
            remove=issue_acts.labels_parse(issue, remove) if remove else [],
            user=request.user,
        )
    except issue_acts.ActRefused as exc:
        messages.error(request, f"Labels not changed: {exc}.")
    else:
        messages.success(request, f"Labels: {issue_acts.said(writes)}.")
    return _back(owner, name, number)


@login_required
@require_POST
@permission_required(TRIAGE, raise_exception=True)
def issue_assignees_set(request, owner: str, name: str, number: int):
    """Assign (field `assign`: logins) or unassign (field `unassign`) on GitHub."""
    issue = selectors.issue_detail(owner=owner, name=name, number=number)
    unassign = bool(request.POST.get("unassign"))
    try:
        logins = assignment.logins_parse(request.POST.get("unassign") or request.POST.get("assign"))
        write = assignment.issue_assignees_change(
            issue=issue, logins=logins, user=request.user, unassign=unassign
        )
    except assignment.AssignmentError as exc:
        messages.error(request, str(exc))
    else:
        verb = "Unassigning" if unassign else "Assigning"
        if write.status == write.Status.PENDING:
            messages.success(request, f"{verb} {', '.join(logins)} on GitHub.")
        else:
            messages.warning(
                request, f"{verb} {', '.join(logins)}: {write.get_status_display()}: {write.detail}"
            )
    return redirect("issue-detail", owner, name, number)
