from django.urls import include, path

from triage.views import classification as decide
from triage.views import classifier_models, inbox, issue_acts, issues, social
from triage.views import settings as settings_views

# One issue's page and what a triager decides on it, below issues/<owner>/<name>/<number>/.
issue = [
    path("", issues.issue_detail, name="issue-detail"),
    path("comments/<str:comment_id>/", issues.issue_comment, name="issue-comment"),
    path("assignees/", decide.issue_assignees_set, name="issue-assignees-set"),
    path("follow/", inbox.issue_follow, name="issue-follow-set"),
    path("reply/", issue_acts.issue_reply, name="issue-reply-set"),
    path("reply/preview/", issue_acts.reply_preview, name="issue-reply-preview"),
    path("state/", issue_acts.issue_state, name="issue-state-set"),
    path("labels/", issue_acts.issue_labels, name="issue-labels-set"),
    path("title/", issue_acts.issue_title, name="issue-title-set"),
    path("lock/", issue_acts.issue_lock, name="issue-lock-set"),
    path("predictions/<str:model_name>/", decide.prediction_decide, name="prediction-decide"),
]

social_pages = [
    path("", social.social_feed, name="social-feed"),
    path("searches/<int:pk>/", social.saved_search_detail, name="saved-search-detail"),
    path("links/<int:pk>/decide/", social.post_link_decide, name="post-link-decide"),
    path("posts/<int:pk>/sentiment/", social.post_sentiment_decide, name="post-sentiment-decide"),
]

queue = [
    path("", decide.triage_queue, name="triage-queue"),
    path("views/", decide.saved_view_create, name="saved-view-create"),
    path("views/<int:pk>/delete/", decide.saved_view_delete, name="saved-view-delete"),
    path("bulk/", decide.triage_bulk, name="triage-bulk-apply"),
    path("bulk/undo/", decide.triage_bulk_undo, name="triage-bulk-undo"),
]

urlpatterns = [
    path("", issues.home, name="home"),
    path("social/", include(social_pages)),
    path("issues/", issues.issue_list, name="issue-list"),
    path("issues/<str:owner>/<str:name>/<int:number>/", include(issue)),
    path("triage/", include(queue)),
    path("models/", classifier_models.models_overview, name="models"),
    path("models/retrain/", classifier_models.models_retrain, name="models-retrain"),
    path("decisions/<int:pk>/undo/", decide.decision_undo, name="decision-undo"),
    path("known-errors/<int:pk>/decide/", decide.known_error_decide, name="known-error-decide"),
    path("settings/", settings_views.settings_overview, name="settings"),
    path(
        "settings/github-writes/", settings_views.github_writes_switch, name="github-writes-switch"
    ),
    path("preferences/", settings_views.preferences, name="preferences"),
    path("inbox/", inbox.inbox_page, name="inbox"),
    path("inbox/rows/", inbox.inbox_rows, name="inbox-rows"),
    path("inbox/count/", inbox.inbox_count, name="inbox-count"),
    path("inbox/read/", inbox.inbox_all_read, name="inbox-all-read"),
    path("inbox/<int:pk>/", inbox.inbox_item_set, name="inbox-item-set"),
]
