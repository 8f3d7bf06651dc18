from django.urls import include, path

from kernels_ci import api

# One repro case, below repro-cases/<case_id>/.
case = [
    path("", api.ReproCaseDetailView.as_view(), name="api-repro-case-detail"),
    path("approve/", api.CaseApproveView.as_view(), name="api-repro-case-approve"),
]

urlpatterns = [
    path("repro-runs/", api.ReproRunListView.as_view(), name="api-repro-run-list"),
    path("runners/", api.RunnerListView.as_view(), name="api-runner-list"),
    path("repro-cases/<int:case_id>/", include(case)),
]
