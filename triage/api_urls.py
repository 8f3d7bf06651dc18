from django.urls import path

from triage import api, api_dashboard, api_social

urlpatterns = [
    path("posts/", api_social.PostListView.as_view(), name="api-post-list"),
    path("dashboard/", api_dashboard.DashboardView.as_view(), name="api-dashboard"),
    path("triage-queue/", api_dashboard.TriageQueueView.as_view(), name="api-triage-queue"),
    path("models/", api_dashboard.ModelListView.as_view(), name="api-model-list"),
    path("saved-searches/", api_dashboard.SavedSearchListView.as_view(), name="api-saved-searches"),
    path(
        "issues/<str:owner>/<str:name>/<int:number>/predictions/<str:model_name>/",
        api_dashboard.PredictionDecideView.as_view(),
        name="api-prediction-decide",
    ),
    path("issues/", api.IssueListView.as_view(), name="api-issue-list"),
    path(
        "issues/<str:owner>/<str:name>/<int:number>/",
        api.IssueDetailView.as_view(),
        name="api-issue-detail",
    ),
]
