"""The social feed, saved searches with their chart, and triagers' decisions on posts: their
links to issues and their sentiment.

Deciding needs triage.triage_issue; from htmx (HX-Request) the answer is the updated list of the
issue's posts (a link) or the updated post (its sentiment), otherwise a redirect back."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST, require_safe

from triage.models import PostIssueLink, SavedSearch
from triage.panels import Panel
from triage.permissions import TRIAGE
from triage.selectors import social as selectors_social
from triage.services import social

POSTS_PER_PAGE = 50


class FeedFilterForm(forms.Form):
    search = forms.ModelChoiceField(
        queryset=SavedSearch.objects.order_by("name"), required=False, label="Saved search"
    )
    sentiment = forms.ChoiceField(
        required=False,
        choices=[("", "Any sentiment")] + [(s, s) for s in selectors_social.SENTIMENTS],
    )
    component = forms.CharField(required=False, max_length=100)
    q = forms.CharField(required=False, max_length=200, label="Text")
    hour = forms.DateTimeField(required=False, widget=forms.HiddenInput)  # a spike's hour


@login_required
@require_safe
def social_feed(request):
    form = FeedFilterForm(request.GET or None)
    filters = {}
    if form.is_valid():
        data = form.cleaned_data
        filters = {
            "search_id": data["search"].pk if data["search"] else None,
            "sentiment": data["sentiment"],
            "component": data["component"].strip(),
            "q": data["q"].strip(),
            "hour": data["hour"],
        }
    page = Paginator(selectors_social.post_list(**filters), POSTS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    context = {
        "form": form,
        "page": page,
        "searches": selectors_social.saved_searches(),
        "spikes": selectors_social.recent_spikes(),
    }
    return render(request, "triage/social/feed.html", context)


@login_required
@require_safe
def saved_search_detail(request, pk: int):
    overview = selectors_social.saved_search_overview(pk=pk)
    if overview is None:
        raise Http404("no such saved search")
    context = {
        "search": overview.search,
        "chart": overview.chart,
        "spikes": overview.spikes,
        "used_this_month": overview.used_this_month,
        "budget_left": overview.budget_left,
    }
    return render(request, "triage/social/search_detail.html", context)


@login_required
@require_POST
@permission_required(TRIAGE, raise_exception=True)
def post_link_decide(request, pk: int):
    link = get_object_or_404(PostIssueLink.objects.select_related("issue"), pk=pk)
    social.post_link_decide(
        link=link, user=request.user, confirm=request.POST.get("confirm") == "1"
    )
    if request.headers.get("HX-Request"):
        context = {"ctx": _posts_context(link.issue, _next_url(request))}
        return render(request, "triage/social/_issue_posts.html", context)
    return redirect(_next_url(request) or "social-feed")


@login_required
@require_POST
@permission_required(TRIAGE, raise_exception=True)
def post_sentiment_decide(request, pk: int):
    # as the feed shows it: its searches and its links that are not rejected
    post = get_object_or_404(selectors_social.post_list(), pk=pk)
    error = ""
    try:
        # the Accept button's label, else the select's (both are named "label")
        label = next((v for v in request.POST.getlist("label") if v), "")
        social.post_sentiment_correct(post=post, label=label, user=request.user)
    except social.InvalidSentiment as exc:
        error = str(exc)
    if request.headers.get("HX-Request"):
        context = {
            "post": post,
            "show_links": request.POST.get("links") == "1",
            "show_searches": request.POST.get("searches") == "1",
            "sentiment_error": error,
        }
        return render(request, "triage/social/_post.html", context, status=400 if error else 200)
    if error:
        messages.error(request, error)
    else:
        messages.success(request, f"Sentiment of the post set to {post.sentiment}.")
    return redirect(_next_url(request) or "social-feed")


def _next_url(request) -> str:
    """The page to go back to (POST "next"), if it is one of this site's; else ""."""
    target = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
        return target
    return ""


def _posts_context(issue, next_url: str) -> dict:
    return {"links": selectors_social.issue_linked_posts(issue), "next": next_url}


def linked_posts_panel(*, issue, request) -> Panel | None:
    links = selectors_social.issue_linked_posts(issue)
    if not links:
        return None
    return Panel(
        title=f"Posts on X ({len(links)})",
        template="triage/social/_issue_posts.html",
        context={"links": links, "next": request.get_full_path()},
        slug="posts",
    )
