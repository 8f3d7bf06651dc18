from django.apps import AppConfig


class ClassifiersConfig(AppConfig):
    name = "classifiers"
