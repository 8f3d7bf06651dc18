from django.urls import path

from triage import views

urlpatterns = [
    path("", views.home, name="home"),
    path("issues/", views.issue_list, name="issue-list"),
    path(
        "issues/<str:owner>/<str:name>/<int:number>/",
        views.issue_detail,
        name="issue-detail",
    ),
]
