"""The move of the features that act on GitHub to their own app, on Postgres (as deployed): the
same test as on SQLite (tests/automation/test_app_migration.py)."""

import pytest

from tests.automation.test_app_migration import (  # noqa: F401 - collected here, on Postgres
    test_a_database_before_the_move_upgrades_with_every_row_and_permission_and_goes_back,
)

pytestmark = pytest.mark.integration
