from django.urls import path

from kernels_ci import api

urlpatterns = [
    path("repro-runs/", api.ReproRunListView.as_view(), name="api-repro-run-list"),
    path("runners/", api.RunnerListView.as_view(), name="api-runner-list"),
    path(
        "repro-cases/<int:case_id>/",
        api.ReproCaseDetailView.as_view(),
        name="api-repro-case-detail",
    ),
    path(
        "repro-cases/<int:case_id>/approve/",
        api.CaseApproveView.as_view(),
        name="api-repro-case-approve",
    ),
]
