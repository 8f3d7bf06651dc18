from django.urls import path

from releases import views, views_actions

urlpatterns = [
    path("releases/", views.train_timeline, name="release-timeline"),
    path(
        "releases/backports/<int:pk>/<str:decision>/",
        views_actions.backport_decide_view,
        name="release-backport-decide",
    ),
    path(
        "releases/fix-links/<str:action>/",
        views_actions.fix_link_view,
        name="release-fix-link",
    ),
    path("releases/targets/", views_actions.target_set_view, name="release-target-set"),
    path("releases/<str:version>/", views.train_detail, name="release-train"),
    path("releases/<str:version>/notes/", views.release_notes, name="release-notes"),
    path(
        "releases/<str:version>/notes/save/",
        views_actions.notes_save_view,
        name="release-notes-save",
    ),
    path(
        "releases/<str:version>/backports/",
        views_actions.backport_nominate_view,
        name="release-backport-nominate",
    ),
    path("releases/<str:version>/rc/", views_actions.rc_tag_view, name="release-rc-tag"),
]
