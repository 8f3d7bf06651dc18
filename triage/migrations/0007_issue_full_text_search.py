# Full-text search of issues on Postgres: a tsvector column kept by a trigger from the title and
# the body (bounded, so a huge body can neither exceed tsvector's 1 MB nor fail the row's write),
# with a GIN index. SQLite (the embedded default) searches by substring: the column stays empty
# there and gets no index or trigger.

import django.contrib.postgres.indexes
import django.contrib.postgres.search
from django.db import migrations

TRIGGER_SQL = """
CREATE OR REPLACE FUNCTION triage_issue_search_vector() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.title IS NOT DISTINCT FROM OLD.title
     AND NEW.body IS NOT DISTINCT FROM OLD.body AND OLD.search_vector IS NOT NULL THEN
    NEW.search_vector := OLD.search_vector;
  ELSE
    NEW.search_vector := to_tsvector('english'::regconfig,
      left(coalesce(NEW.title, ''), 1000) || ' ' || left(coalesce(NEW.body, ''), 50000));
  END IF;
  RETURN NEW;
END
$$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS triage_issue_search_vector ON triage_issue;
CREATE TRIGGER triage_issue_search_vector BEFORE INSERT OR UPDATE ON triage_issue
  FOR EACH ROW EXECUTE FUNCTION triage_issue_search_vector();
UPDATE triage_issue SET search_vector = NULL;
"""
DROP_SQL = """
DROP TRIGGER IF EXISTS triage_issue_search_vector ON triage_issue;
DROP FUNCTION IF EXISTS triage_issue_search_vector();
"""


class AddIndexOnPostgres(migrations.AddIndex):
    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)


def trigger_create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(TRIGGER_SQL)


def trigger_drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP_SQL)


class Migration(migrations.Migration):
    dependencies = [
        ("triage", "0006_sync_resume_commits_reactions_writeback_once"),
    ]

    operations = [
        migrations.AddField(
            model_name="issue",
            name="search_vector",
            field=django.contrib.postgres.search.SearchVectorField(
                blank=True, editable=False, null=True
            ),
        ),
        migrations.RunPython(trigger_create, trigger_drop),
        AddIndexOnPostgres(
            model_name="issue",
            index=django.contrib.postgres.indexes.GinIndex(
                fields=["search_vector"], name="issue_fts_idx"
            ),
        ),
    ]
