from django.urls import path

from triage import views, views_classification, views_social

urlpatterns = [
    path("", views.home, name="home"),
    path("social/", views_social.social_feed, name="social-feed"),
    path("social/searches/<int:pk>/", views_social.saved_search_detail, name="saved-search-detail"),
    path("social/links/<int:pk>/decide/", views_social.post_link_decide, name="post-link-decide"),
    path("issues/", views.issue_list, name="issue-list"),
    path(
        "issues/<str:owner>/<str:name>/<int:number>/",
        views.issue_detail,
        name="issue-detail",
    ),
    path("triage/", views_classification.triage_queue, name="triage-queue"),
    path(
        "issues/<str:owner>/<str:name>/<int:number>/predictions/<str:model_name>/",
        views_classification.prediction_decide,
        name="prediction-decide",
    ),
]
