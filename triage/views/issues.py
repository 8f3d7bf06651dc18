"""The maintainer dashboard: thin views over triage.selectors.issues."""

from django import forms
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import render
from django.views.decorators.http import require_safe

from config import wiring
from triage.models import IssueFollow
from triage.panels import issue_panels, page_panels
from triage.selectors import issues as selectors
from triage.services import webhook_spool
from triage.text import rendering

ISSUES_PER_PAGE = 50
KIND_TO_IS_PULL_REQUEST = {"issue": False, "pr": True, "all": None}


class IssueFilterForm(forms.Form):
    repo = forms.CharField(required=False, max_length=201, label="Repository")
    state = forms.ChoiceField(
        required=False, choices=[(s, s.capitalize()) for s in selectors.ISSUE_STATES]
    )
    type = forms.ChoiceField(
        required=False,
        choices=[("all", "Issues and PRs"), ("issue", "Issues"), ("pr", "Pull requests")],
    )
    label = forms.CharField(required=False, max_length=255)
    q = forms.CharField(required=False, max_length=200, label="Search")

    def clean_repo(self):
        repo = self.cleaned_data["repo"].strip()
        if repo and not selectors.FULL_NAME_RE.match(repo):
            raise forms.ValidationError("Use OWNER/NAME, for example ROCm/rocm-libraries.")
        return repo

    def clean_state(self):
        return self.cleaned_data["state"] or "open"

    def clean_type(self):
        return self.cleaned_data["type"] or "all"

    def filters(self) -> dict:
        """The selector's arguments from the fields that validated; defaults for the rest."""
        data = {"repo": "", "state": "open", "type": "all", "label": "", "q": ""}
        data.update(getattr(self, "cleaned_data", {}))
        return {
            "repo": data["repo"],
            "state": data["state"],
            "is_pull_request": KIND_TO_IS_PULL_REQUEST[data["type"]],
            "label": data["label"].strip(),
            "q": data["q"],
        }


def _spool_stats():
    """This web host's webhook spool (deliveries the database could not take), or None."""
    try:
        return webhook_spool.spool_stats()
    except OSError:
        return None


@login_required
@require_safe
def home(request):
    context = {
        "panels": page_panels(wiring.HOME_PANELS, request=request),
        "overviews": selectors.repository_overviews(with_open_issues=True),
        "deliveries": selectors.webhook_delivery_summary(),
        "spool": _spool_stats(),
        "configured_repos": settings.GITHUB_REPOS,
    }
    return render(request, "triage/home.html", context)


@login_required
@require_safe
def issue_list(request):
    form = IssueFilterForm(request.GET or None)
    if form.is_bound:
        form.is_valid()
    issues = selectors.issue_list(**form.filters())
    page = Paginator(issues, ISSUES_PER_PAGE).get_page(request.GET.get("page"))
    context = {
        "form": form,
        "page": page,
        "repositories": selectors.repository_full_names(),
    }
    return render(request, "triage/issue_list.html", context)


@login_required
@require_safe
def issue_detail(request, owner: str, name: str, number: int):
    issue = selectors.issue_detail(owner=owner, name=name, number=number)
    panels = issue_panels(issue=issue, request=request)
    comments = issue.visible_comments
    thread = rendering.thread_folded([c.body for c in comments])
    return render(
        request,
        "triage/issue_detail.html",
        {
            "issue": issue,
            "panels": panels,
            "thread": [
                (c, html, hidden) for c, (html, hidden) in zip(comments, thread, strict=True)
            ],
            "following": IssueFollow.objects.filter(user=request.user, issue=issue).exists(),
        },
    )


@login_required
@require_safe
def issue_comment(request, owner: str, name: str, number: int, comment_id: str):
    """One comment whole, for a thread's page that showed its beginning."""
    issue = selectors.issue_detail(owner=owner, name=name, number=number)
    comment = next((c for c in issue.visible_comments if c.external_id == comment_id), None)
    if comment is None:
        raise Http404("no such comment on this issue")
    return render(request, "triage/issue_comment.html", {"issue": issue, "comment": comment})
