from django.apps import AppConfig


class TriageConfig(AppConfig):
    name = "triage"

    def ready(self):
        # Imported here, once every app is loaded: models, tasks and what reads them.
        from django.core import checks
        from django.db.models.signals import post_migrate

        from triage import tasks  # noqa: F401
        from triage.checks import queue_keys_check
        from triage.services.roles import roles_after_migrate

        # Register triage's Celery tasks in every process (the import above): outside a worker
        # Celery imports tasks modules only on demand, and the pipeline names its steps by
        # dotted name; an eager (in-process) run of an unregistered name is sent to no broker
        # and silently lost.
        post_migrate.connect(roles_after_migrate, dispatch_uid="triage-roles")
        checks.register(github_app_check, "github")
        checks.register(queue_keys_check)


def github_app_check(app_configs, **kwargs):
    """What is wrong with the GitHub App's settings, when a process starts (runserver, migrate,
    `manage.py check`): a warning, never a refusal to start; beat's start asks GitHub too."""
    # Imported when the check runs: the settings are read then.
    from django.core.checks import Warning

    from triage.sources.github.app_auth import app_configuration_problems

    return [
        Warning(problem, hint="docs/DEPLOYMENT.md, Running as a GitHub App", id="triage.W001")
        for problem in app_configuration_problems()
    ]
