from django.urls import path

from triage.api import dashboard, issues, social

urlpatterns = [
    path("posts/", social.PostListView.as_view(), name="api-post-list"),
    path("dashboard/", dashboard.DashboardView.as_view(), name="api-dashboard"),
    path("triage-queue/", dashboard.TriageQueueView.as_view(), name="api-triage-queue"),
    path("models/", dashboard.ModelListView.as_view(), name="api-model-list"),
    path("saved-searches/", dashboard.SavedSearchListView.as_view(), name="api-saved-searches"),
    path(
        "issues/<str:owner>/<str:name>/<int:number>/predictions/<str:model_name>/",
        dashboard.PredictionDecideView.as_view(),
        name="api-prediction-decide",
    ),
    path("issues/", issues.IssueListView.as_view(), name="api-issue-list"),
    path(
        "issues/<str:owner>/<str:name>/<int:number>/",
        issues.IssueDetailView.as_view(),
        name="api-issue-detail",
    ),
]
