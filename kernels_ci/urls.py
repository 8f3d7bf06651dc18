from django.urls import path

from kernels_ci import views

urlpatterns = [
    path("repro/", views.run_list, name="repro-run-list"),
    path("repro/cases/<int:case_id>/approve/", views.case_approve_view, name="repro-case-approve"),
    path("runners/", views.runner_list, name="runner-list"),
]
