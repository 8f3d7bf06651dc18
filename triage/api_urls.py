from django.urls import path

from triage import api

urlpatterns = [
    path("issues/", api.IssueListView.as_view(), name="api-issue-list"),
    path(
        "issues/<str:owner>/<str:name>/<int:number>/",
        api.IssueDetailView.as_view(),
        name="api-issue-detail",
    ),
]
