from django.urls import path

from triage import views, views_classification, views_models, views_settings, views_social

urlpatterns = [
    path("", views.home, name="home"),
    path("social/", views_social.social_feed, name="social-feed"),
    path("social/searches/<int:pk>/", views_social.saved_search_detail, name="saved-search-detail"),
    path("social/links/<int:pk>/decide/", views_social.post_link_decide, name="post-link-decide"),
    path(
        "social/posts/<int:pk>/sentiment/",
        views_social.post_sentiment_decide,
        name="post-sentiment-decide",
    ),
    path("issues/", views.issue_list, name="issue-list"),
    path(
        "issues/<str:owner>/<str:name>/<int:number>/",
        views.issue_detail,
        name="issue-detail",
    ),
    path("triage/", views_classification.triage_queue, name="triage-queue"),
    path("triage/views/", views_classification.saved_view_create, name="saved-view-create"),
    path(
        "triage/views/<int:pk>/delete/",
        views_classification.saved_view_delete,
        name="saved-view-delete",
    ),
    path("models/", views_models.models_overview, name="models"),
    path("models/retrain/", views_models.models_retrain, name="models-retrain"),
    path("settings/", views_settings.settings_overview, name="settings"),
    path("preferences/", views_settings.preferences, name="preferences"),
    path(
        "issues/<str:owner>/<str:name>/<int:number>/predictions/<str:model_name>/",
        views_classification.prediction_decide,
        name="prediction-decide",
    ),
]
