from django.urls import include, path

from releases import api

# One train, below <version>/.
train = [
    path("readiness/", api.ReadinessView.as_view(), name="api-release-readiness"),
    path("backports/", api.BackportNominateView.as_view(), name="api-release-backport-nominate"),
    path("rc/", api.CandidateTagView.as_view(), name="api-release-rc-tag"),
]

urlpatterns = [
    path("", api.TrainListView.as_view(), name="api-release-list"),
    path(
        "backports/<int:pk>/<str:decision>/",
        api.BackportDecideView.as_view(),
        name="api-release-backport-decide",
    ),
    path("fix-links/", api.FixLinkAddView.as_view(), name="api-release-fix-link-add"),
    path("fix-links/remove/", api.FixLinkRemoveView.as_view(), name="api-release-fix-link-remove"),
    path("targets/", api.TargetSetView.as_view(), name="api-release-target-set"),
    path("<str:version>/", include(train)),
]
