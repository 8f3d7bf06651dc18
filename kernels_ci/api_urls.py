from django.urls import path

from kernels_ci import api

urlpatterns = [path("", api.ReproRunListView.as_view(), name="api-repro-run-list")]
