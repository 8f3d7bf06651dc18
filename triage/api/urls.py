from django.urls import include, path

from triage.api import dashboard, issues, social

# One issue, below issues/<owner>/<name>/<number>/.
issue = [
    path("", issues.IssueDetailView.as_view(), name="api-issue-detail"),
    path(
        "predictions/<str:model_name>/",
        dashboard.PredictionDecideView.as_view(),
        name="api-prediction-decide",
    ),
]

urlpatterns = [
    path("posts/", social.PostListView.as_view(), name="api-post-list"),
    path("dashboard/", dashboard.DashboardView.as_view(), name="api-dashboard"),
    path("triage-queue/", dashboard.TriageQueueView.as_view(), name="api-triage-queue"),
    path("models/", dashboard.ModelListView.as_view(), name="api-model-list"),
    path("saved-searches/", dashboard.SavedSearchListView.as_view(), name="api-saved-searches"),
    path("issues/", issues.IssueListView.as_view(), name="api-issue-list"),
    path("issues/<str:owner>/<str:name>/<int:number>/", include(issue)),
]
