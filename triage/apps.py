from django.apps import AppConfig


class TriageConfig(AppConfig):
    name = "triage"

    def ready(self):
        # Register triage's Celery tasks in every process: outside a worker Celery imports tasks
        # modules only on demand, and the pipeline names its steps by dotted name; an eager
        # (in-process) run of an unregistered name is sent to no broker and silently lost.
        from triage import tasks  # noqa: F401
