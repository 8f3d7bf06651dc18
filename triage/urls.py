from django.urls import include, path

from triage.views import classification as decide
from triage.views import classifier_models, inbox, issues, social
from triage.views import settings as settings_views

# One issue's page and what a triager decides on it, below issues/<owner>/<name>/<number>/.
issue = [
    path("", issues.issue_detail, name="issue-detail"),
    path("comments/<str:comment_id>/", issues.issue_comment, name="issue-comment"),
    path("follow/", inbox.issue_follow, name="issue-follow-set"),
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
    path("settings/", settings_views.settings_overview, name="settings"),
    path("preferences/", settings_views.preferences, name="preferences"),
    path("inbox/", inbox.inbox_page, name="inbox"),
    path("inbox/rows/", inbox.inbox_rows, name="inbox-rows"),
    path("inbox/count/", inbox.inbox_count, name="inbox-count"),
    path("inbox/read/", inbox.inbox_all_read, name="inbox-all-read"),
    path("inbox/<int:pk>/", inbox.inbox_item_set, name="inbox-item-set"),
]
