"""Issue.repository loses its own index: the unique (repository, number) leads with it.

Only the index is dropped (by the name Django gave it, on Postgres and SQLite alike): altering
the field the usual way would re-create the foreign key on Postgres, checking every row again
under a lock, and copy the whole table on SQLite.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("triage", "0025_github_write_not_before"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="issue",
                    name="repository",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="issues",
                        to="triage.repository",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    'DROP INDEX IF EXISTS "triage_issue_repository_id_a60fc79f"',
                    reverse_sql='CREATE INDEX IF NOT EXISTS "triage_issue_repository_id_a60fc79f" '
                    'ON "triage_issue" ("repository_id")',
                ),
            ],
        ),
    ]
