"""People, issues, comments and posts by source + external_id: the old columns and the X author table dropped; each id unique per source (see 0015)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("triage", "0016_source_external_ids_copied"),
    ]

    operations = [
        migrations.RemoveField(model_name="post", name="author"),
        migrations.RenameField(model_name="post", old_name="person", new_name="author"),
        migrations.AlterField(
            model_name="post",
            name="author",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=models.deletion.SET_NULL,
                related_name="posts",
                to="triage.person",
            ),
        ),
        migrations.DeleteModel(name="XAuthor"),
        migrations.RemoveField(model_name="person", name="github_id"),
        migrations.RemoveField(model_name="issue", name="github_id"),
        migrations.RemoveField(model_name="comment", name="github_id"),
        migrations.RemoveField(model_name="post", name="x_id"),
        migrations.AlterModelOptions(name="comment", options={"ordering": ["created_at", "id"]}),
        migrations.AddConstraint(
            model_name="person",
            constraint=models.UniqueConstraint(
                fields=("source", "external_id"), name="person_source_external_id_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="issue",
            constraint=models.UniqueConstraint(
                condition=models.Q(("external_id", ""), _negated=True),
                fields=("source", "external_id"),
                name="issue_source_external_id_unique",
            ),
        ),
        migrations.AddConstraint(
            model_name="comment",
            constraint=models.UniqueConstraint(
                fields=("source", "external_id"), name="comment_source_external_id_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="post",
            constraint=models.UniqueConstraint(
                fields=("source", "external_id"), name="post_source_external_id_unique"
            ),
        ),
    ]
