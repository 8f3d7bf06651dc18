from django.apps import AppConfig


class KernelsCiConfig(AppConfig):
    name = "kernels_ci"
