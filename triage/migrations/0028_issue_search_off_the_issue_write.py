"""An issue's full-text vector moves to a table of its own (IssueSearch), written by the
pipeline's `index_issues` step instead of a trigger on every write of triage_issue: the trigger's
English stemming of title and body cost more than the rest of the row and its indexes. The
vectors the trigger made are kept (the same text, the same configuration), each with the digest
of its text; then the trigger, its function, the column and its GIN index go. The vectors and
the trigger are Postgres's: SQLite searches by substring."""

import importlib

import django.contrib.postgres.indexes
import django.contrib.postgres.search
import django.db.models.deletion
from django.db import migrations, models

fts_0007 = importlib.import_module("triage.migrations.0007_issue_full_text_search")

# the text the trigger made each vector of (migration 0007), and its digest
KEEP_SQL = """
INSERT INTO triage_issuesearch (issue_id, vector, digest)
SELECT id,
  coalesce(search_vector, to_tsvector('english'::regconfig,
    left(coalesce(title, ''), 1000) || ' ' || left(coalesce(body, ''), 50000))),
  encode(sha256(convert_to(
    left(coalesce(title, ''), 1000) || ' ' || left(coalesce(body, ''), 50000), 'UTF8')), 'hex')
FROM triage_issue
"""


class RemoveFtsIndex(migrations.RemoveIndex):
    """Postgres drops the GIN index; SQLite never had it as such, but a table SQLite rebuilt
    since (a later migration of Issue) copied it from the model as a plain index: gone too."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)
        else:
            schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(self.name)}")

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)


def vectors_keep_trigger_drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(KEEP_SQL)
        schema_editor.execute(fts_0007.DROP_SQL)


def trigger_back(apps, schema_editor):
    # the column is back (empty): the trigger fills it again from every issue's text
    fts_0007.trigger_create(apps, schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("triage", "0027_post_url"),
    ]

    operations = [
        migrations.CreateModel(
            name="IssueSearch",
            fields=[
                (
                    "issue",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="search",
                        serialize=False,
                        to="triage.issue",
                    ),
                ),
                ("vector", django.contrib.postgres.search.SearchVectorField()),
                ("digest", models.CharField(max_length=64)),
            ],
        ),
        fts_0007.AddIndexOnPostgres(
            model_name="issuesearch",
            index=django.contrib.postgres.indexes.GinIndex(
                fields=["vector"], name="issue_search_fts_idx"
            ),
        ),
        migrations.RunPython(vectors_keep_trigger_drop, trigger_back),
        RemoveFtsIndex(model_name="issue", name="issue_fts_idx"),
        migrations.RemoveField(model_name="issue", name="search_vector"),
    ]
