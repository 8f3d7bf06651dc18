from django.urls import include, path

from releases import views
from releases import views_actions as actions

# One train's pages, below releases/<version>/.
train = [
    path("", views.train_detail, name="release-train"),
    path("notes/", views.release_notes, name="release-notes"),
    path("notes/save/", actions.notes_save_view, name="release-notes-save"),
    path("backports/", actions.backport_nominate_view, name="release-backport-nominate"),
    path("rc/", actions.rc_tag_view, name="release-rc-tag"),
]

releases = [
    path("", views.train_timeline, name="release-timeline"),
    path(
        "backports/<int:pk>/<str:decision>/",
        actions.backport_decide_view,
        name="release-backport-decide",
    ),
    path("fix-links/<str:action>/", actions.fix_link_view, name="release-fix-link"),
    path("targets/", actions.target_set_view, name="release-target-set"),
    path("<str:version>/", include(train)),
]

urlpatterns = [path("releases/", include(releases))]
