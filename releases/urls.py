from django.urls import path

from releases import views

urlpatterns = [
    path("releases/", views.train_timeline, name="release-timeline"),
    path("releases/<str:version>/", views.train_detail, name="release-train"),
    path("releases/<str:version>/notes/", views.release_notes, name="release-notes"),
]
