from importlib import import_module
from importlib.util import find_spec

from django.apps import AppConfig


class AutomationConfig(AppConfig):
    """Acting on GitHub: one folder per feature (automation/features.py)."""

    name = "automation"

    def ready(self):
        # Register every feature's Celery tasks in every process: Celery's autodiscovery looks
        # for automation.tasks only, and an eager run of an unregistered name is lost.
        from automation.features import FEATURES

        for feature in FEATURES:
            if find_spec(f"automation.{feature}.tasks") is not None:
                import_module(f"automation.{feature}.tasks")
