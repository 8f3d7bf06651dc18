"""People, issues, comments and posts: `source` + `external_id` instead of GitHub's and X's ids.

Every row is kept and every id with it: a GitHub id becomes the external_id of a "github" row, an
X id that of an "x" row. X authors become people of source "x" (their @username the login), and
posts point at them. Three migrations (new columns; the ids copied; the old columns dropped), each
its own transaction, as Postgres wants schema changes apart from the rows they move. Reversible:
going back restores github_id, x_id and the X authors.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("triage", "0014_repository_former_names"),
    ]

    operations = [
        # 1. the new columns beside the old ones
        migrations.AddField(
            model_name="person",
            name="source",
            field=models.CharField(
                choices=[("github", "GitHub"), ("x", "X")], default="github", max_length=16
            ),
        ),
        migrations.AddField(
            model_name="person",
            name="external_id",
            field=models.CharField(
                default="", help_text="the source's id of this person", max_length=100
            ),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="person",
            name="followers_count",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AlterField(
            model_name="person",
            name="github_id",
            field=models.BigIntegerField(null=True, unique=True),
        ),
        # nullable while both exist, so that going back can add them before filling them
        migrations.AlterField(
            model_name="comment",
            name="github_id",
            field=models.BigIntegerField(null=True, unique=True),
        ),
        migrations.AlterField(
            model_name="post",
            name="x_id",
            field=models.BigIntegerField(null=True, unique=True),
        ),
        migrations.AddField(
            model_name="issue",
            name="source",
            field=models.CharField(
                choices=[("github", "GitHub"), ("x", "X")], default="github", max_length=16
            ),
        ),
        migrations.AddField(
            model_name="issue",
            name="external_id",
            field=models.CharField(
                blank=True, default="", help_text="the source's id of this issue", max_length=100
            ),
        ),
        migrations.AddField(
            model_name="comment",
            name="source",
            field=models.CharField(
                choices=[("github", "GitHub"), ("x", "X")], default="github", max_length=16
            ),
        ),
        migrations.AddField(
            model_name="comment",
            name="external_id",
            field=models.CharField(
                default="", help_text="the source's id of this comment", max_length=100
            ),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="post",
            name="source",
            field=models.CharField(
                choices=[("github", "GitHub"), ("x", "X")], default="x", max_length=16
            ),
        ),
        migrations.AddField(
            model_name="post",
            name="external_id",
            field=models.CharField(
                default="", help_text="the source's id of this post", max_length=100
            ),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="post",
            name="person",
            field=models.ForeignKey(
                null=True,
                blank=True,
                on_delete=models.deletion.SET_NULL,
                related_name="+",
                to="triage.person",
            ),
        ),
    ]
