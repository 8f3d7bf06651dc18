from django.urls import path

from releases import api

urlpatterns = [
    path("", api.TrainListView.as_view(), name="api-release-list"),
    path("<str:version>/readiness/", api.ReadinessView.as_view(), name="api-release-readiness"),
]
