"""The API's acts on GitHub: one issue's reply, close, reopen, labels, title and lock."""

from django.urls import path

from automation.acts import api as acts

PREFIX = "issues/<str:owner>/<str:name>/<int:number>/"

urlpatterns = [
    path(PREFIX + "reply/", acts.ReplyView.as_view(), name="api-issue-reply-set"),
    path(PREFIX + "close/", acts.CloseView.as_view(), name="api-issue-close-set"),
    path(PREFIX + "reopen/", acts.ReopenView.as_view(), name="api-issue-reopen-set"),
    path(PREFIX + "labels/", acts.LabelsView.as_view(), name="api-issue-labels-set"),
    path(PREFIX + "title/", acts.TitleView.as_view(), name="api-issue-title-set"),
    path(PREFIX + "lock/", acts.LockView.as_view(), name="api-issue-lock-set"),
]
