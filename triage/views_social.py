"""The social feed, saved searches with their chart, and triagers' decisions on post links."""

from __future__ import annotations

from django import forms
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from triage import selectors_social
from triage.models import PostIssueLink, SavedSearch
from triage.panels import Panel
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


@login_required
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
def saved_search_detail(request, pk: int):
    search = get_object_or_404(SavedSearch, pk=pk)
    latest = search.posts.order_by("-created_at").values_list("created_at", flat=True).first()
    chart = selectors_social.posts_per_day_by_sentiment(
        search=search, days=30, end=latest or timezone.now()
    )
    context = {
        "search": search,
        "chart": chart,
        "spikes": search.spikes.order_by("-hour")[:20],
        "budget_left": max(0, search.monthly_budget - search.posts_this_month),
    }
    return render(request, "triage/social/search_detail.html", context)


@login_required
@require_POST
def post_link_decide(request, pk: int):
    link = get_object_or_404(PostIssueLink, pk=pk)
    social.post_link_decide(
        link=link, user=request.user, confirm=request.POST.get("confirm") == "1"
    )
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
        target = "social-feed"
    return redirect(target)


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
