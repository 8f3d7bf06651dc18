"""The pages' acts on GitHub, beside triage's pages (config/urls.py includes this first)."""

from django.urls import include, path

from automation.acts import bulk_views
from automation.acts import views as acts
from automation.known_errors import views as known_errors
from automation.outbox import views as outbox

# One issue's acts, below issues/<owner>/<name>/<number>/ (the issue page is triage's).
issue = [
    path("assignees/", acts.issue_assignees_set, name="issue-assignees-set"),
    path("reply/", acts.issue_reply, name="issue-reply-set"),
    path("reply/preview/", acts.reply_preview, name="issue-reply-preview"),
    path("state/", acts.issue_state, name="issue-state-set"),
    path("labels/", acts.issue_labels, name="issue-labels-set"),
    path("title/", acts.issue_title, name="issue-title-set"),
    path("lock/", acts.issue_lock, name="issue-lock-set"),
]

urlpatterns = [
    path("issues/<str:owner>/<str:name>/<int:number>/", include(issue)),
    path("triage/bulk/", bulk_views.triage_bulk, name="triage-bulk-apply"),
    path("triage/bulk/undo/", bulk_views.triage_bulk_undo, name="triage-bulk-undo"),
    path(
        "known-errors/<int:pk>/decide/", known_errors.known_error_decide, name="known-error-decide"
    ),
    path("settings/github-writes/", outbox.github_writes_switch, name="github-writes-switch"),
]
