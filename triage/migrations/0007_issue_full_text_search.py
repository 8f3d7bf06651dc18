# Full-text search of issues: a GIN index on Postgres; SQLite (the embedded default) searches by
# substring and gets no index (the operation is recorded in the state either way).

import django.contrib.postgres.indexes
import django.contrib.postgres.search
import django.db.models.functions.text
from django.db import migrations


class AddIndexOnPostgres(migrations.AddIndex):
    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)


class Migration(migrations.Migration):
    dependencies = [
        ("triage", "0006_sync_resume_commits_reactions_writeback_once"),
    ]

    operations = [
        AddIndexOnPostgres(
            model_name="issue",
            index=django.contrib.postgres.indexes.GinIndex(
                django.contrib.postgres.search.SearchVector(
                    django.db.models.functions.text.Left("title", 1000),
                    django.db.models.functions.text.Left("body", 50000),
                    config="english",
                ),
                name="issue_fts_idx",
            ),
        ),
    ]
