from django.apps import AppConfig


class TriageConfig(AppConfig):
    name = "triage"

    def ready(self):
        # Register triage's Celery tasks in every process: outside a worker Celery imports tasks
        # modules only on demand, and the pipeline names its steps by dotted name; an eager
        # (in-process) run of an unregistered name is sent to no broker and silently lost.
        from django.db.models.signals import post_migrate

        from triage import tasks  # noqa: F401
        from triage.services.roles import roles_after_migrate

        post_migrate.connect(roles_after_migrate, dispatch_uid="triage-roles")
