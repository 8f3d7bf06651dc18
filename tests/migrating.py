"""Moving the test database to a migration and back, for tests of data migrations."""

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate(targets):
    """Migrate to `targets` ([(app, migration)]); returns the apps as they were there."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def migrate_to_latest() -> None:
    """Every app to its latest migration: going back in one app also took back the migrations of
    the apps that depend on it (automation on triage, releases on kernels_ci ...)."""
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
