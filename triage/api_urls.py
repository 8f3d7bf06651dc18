from django.urls import path

from triage import api, api_social

urlpatterns = [
    path("posts/", api_social.PostListView.as_view(), name="api-post-list"),
    path("issues/", api.IssueListView.as_view(), name="api-issue-list"),
    path(
        "issues/<str:owner>/<str:name>/<int:number>/",
        api.IssueDetailView.as_view(),
        name="api-issue-detail",
    ),
]
