from django.apps import AppConfig


class KernelsCiConfig(AppConfig):
    name = "kernels_ci"
    verbose_name = "Kernel bug reproduction"

    def ready(self) -> None:
        from kernels_ci import worker  # noqa: F401 - connects the runner's Celery signals
