from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('triage', '0033_githubwrite_title_and_lock'),
    ]

    operations = [
        # The models of acting on GitHub leave triage's state only: their tables stay as they are,
        # and automation 0001 takes them over by name (db_table), so no table is rebuilt and a
        # deployed database keeps every row.
        migrations.SeparateDatabaseAndState(
            state_operations=[
            migrations.RemoveField(
                model_name='commentcommand',
                name='comment',
            ),
            migrations.RemoveField(
                model_name='commentcommand',
                name='issue',
            ),
            migrations.RemoveField(
                model_name='githubwrite',
                name='actor',
            ),
            migrations.RemoveField(
                model_name='githubwrite',
                name='issue',
            ),
            migrations.RemoveField(
                model_name='githubwrite',
                name='repository',
            ),
            migrations.RemoveField(
                model_name='knownerror',
                name='canonical',
            ),
            migrations.RemoveField(
                model_name='knownerrormatch',
                name='signature',
            ),
            migrations.RemoveField(
                model_name='knownerrormatch',
                name='issue',
            ),
            migrations.RemoveField(
                model_name='labelwriteback',
                name='actor',
            ),
            migrations.RemoveField(
                model_name='labelwriteback',
                name='issue',
            ),
            migrations.RemoveField(
                model_name='needsinfo',
                name='issue',
            ),
            migrations.RemoveField(
                model_name='ownernotification',
                name='issue',
            ),
            migrations.RemoveField(
                model_name='ownershiprule',
                name='repository',
            ),
            migrations.DeleteModel(
                name='ReplyTemplate',
            ),
            migrations.RemoveField(
                model_name='writeswitch',
                name='changed_by',
            ),
            migrations.DeleteModel(
                name='CommentCommand',
            ),
            migrations.DeleteModel(
                name='GitHubWrite',
            ),
            migrations.DeleteModel(
                name='KnownError',
            ),
            migrations.DeleteModel(
                name='KnownErrorMatch',
            ),
            migrations.DeleteModel(
                name='LabelWriteback',
            ),
            migrations.DeleteModel(
                name='NeedsInfo',
            ),
            migrations.DeleteModel(
                name='OwnerNotification',
            ),
            migrations.DeleteModel(
                name='OwnershipRule',
            ),
            migrations.DeleteModel(
                name='WriteSwitch',
            ),
            ],
            database_operations=[],
        ),
        migrations.AlterField(
            model_name='repository',
            name='github_actions',
            field=models.JSONField(blank=True, default=list, help_text='the writes to GitHub this repository opted in to (automation.outbox.services)'),
        ),
    ]
