"""Each maintainer's inbox (triage.services.inbox): the page, its rows and the menu's count for
polling, read / unread / snooze, and following an issue."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST, require_safe

from triage.models import InboxItem, UserPreference
from triage.selectors import issues as selectors
from triage.services import inbox

SHOWS = {"unread": "Unread", "all": "All", "snoozed": "Snoozed"}
PER_PAGE = 50


def _context(request) -> dict:
    show = request.GET.get("show", "unread")
    show = show if show in SHOWS else "unread"
    page = Paginator(inbox.items(user=request.user, show=show), PER_PAGE).get_page(
        request.GET.get("page")
    )
    preference = UserPreference.objects.filter(user=request.user).first()
    return {
        "show": show,
        "shows": SHOWS,
        "page": page,
        "unread": inbox.unread_count(request.user),
        "poll_seconds": settings.INBOX_POLL_SECONDS,
        "without_login": not (preference and preference.github_login),
    }


@require_safe
def inbox_page(request):
    return render(request, "triage/inbox.html", _context(request))


@require_safe
def inbox_rows(request):
    """The list alone, for htmx polling: new items show without a reload."""
    return render(request, "triage/_inbox_rows.html", _context(request))


@require_safe
def inbox_count(request):
    count = inbox.unread_count(request.user)
    return render(request, "triage/_inbox_count.html", {"count": count})


@require_POST
def inbox_item_set(request, pk: int):
    do, _, days = request.POST.get("do", "").partition(":")
    try:
        item = inbox.item_set(
            user=request.user, pk=pk, do=do, days=int(days) if days.isdigit() else 1
        )
    except InboxItem.DoesNotExist:
        raise Http404("no such item in your inbox") from None
    except ValueError:
        messages.error(request, "Choose read, unread, snooze or wake.")
    else:
        if do.startswith("snooze"):
            until = "the reporter answers" if item.until_reply else f"{item.snoozed_until:%Y-%m-%d}"
            messages.success(request, f"Snoozed until {until}.")
    show = request.POST.get("show", "unread")
    return redirect(f"/inbox/?show={show if show in SHOWS else 'unread'}")


@require_POST
def inbox_all_read(request):
    messages.success(request, f"{inbox.all_read(user=request.user)} marked read.")
    return redirect("inbox")


@require_POST
def issue_follow(request, owner: str, name: str, number: int):
    issue = selectors.issue_detail(owner=owner, name=name, number=number)
    on = request.POST.get("follow") == "1"
    inbox.follow(user=request.user, issue=issue, on=on)
    messages.success(
        request,
        "Following: replies reach your inbox." if on else "No longer following this issue.",
    )
    return redirect("issue-detail", owner=owner, name=name, number=number)
