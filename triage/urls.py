from django.urls import path

from triage.views import classification, classifier_models, issues, social
from triage.views import settings as settings_views

urlpatterns = [
    path("", issues.home, name="home"),
    path("social/", social.social_feed, name="social-feed"),
    path("social/searches/<int:pk>/", social.saved_search_detail, name="saved-search-detail"),
    path("social/links/<int:pk>/decide/", social.post_link_decide, name="post-link-decide"),
    path(
        "social/posts/<int:pk>/sentiment/",
        social.post_sentiment_decide,
        name="post-sentiment-decide",
    ),
    path("issues/", issues.issue_list, name="issue-list"),
    path(
        "issues/<str:owner>/<str:name>/<int:number>/",
        issues.issue_detail,
        name="issue-detail",
    ),
    path("triage/", classification.triage_queue, name="triage-queue"),
    path("triage/views/", classification.saved_view_create, name="saved-view-create"),
    path("triage/bulk/", classification.triage_bulk, name="triage-bulk-apply"),
    path(
        "triage/views/<int:pk>/delete/",
        classification.saved_view_delete,
        name="saved-view-delete",
    ),
    path("models/", classifier_models.models_overview, name="models"),
    path("models/retrain/", classifier_models.models_retrain, name="models-retrain"),
    path(
        "issues/<str:owner>/<str:name>/<int:number>/assignees/",
        classification.issue_assignees_set,
        name="issue-assignees-set",
    ),
    path("decisions/<int:pk>/undo/", classification.decision_undo, name="decision-undo"),
    path(
        "known-errors/<int:pk>/decide/",
        classification.known_error_decide,
        name="known-error-decide",
    ),
    path("settings/", settings_views.settings_overview, name="settings"),
    path(
        "settings/github-writes/",
        settings_views.github_writes_switch,
        name="github-writes-switch",
    ),
    path("preferences/", settings_views.preferences, name="preferences"),
    path(
        "issues/<str:owner>/<str:name>/<int:number>/predictions/<str:model_name>/",
        classification.prediction_decide,
        name="prediction-decide",
    ),
]
