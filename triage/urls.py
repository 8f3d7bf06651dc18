from django.urls import path

from triage import views

urlpatterns = [
    path("", views.home, name="home"),
]
