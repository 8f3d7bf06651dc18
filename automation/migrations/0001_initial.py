import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


MOVED = [
    "commentcommand",
    "githubwrite",
    "knownerror",
    "knownerrormatch",
    "labelwriteback",
    "needsinfo",
    "ownernotification",
    "ownershiprule",
    "replytemplate",
    "writeswitch",
]


def _relabel(apps, source: str, target: str) -> None:
    """The moved models' content types follow them, so that their permissions (held by groups
    and users) and the admin's history keep pointing at them."""
    content_type = apps.get_model("contenttypes", "ContentType")
    taken = set(
        content_type.objects.filter(app_label=target, model__in=MOVED).values_list("model", flat=True)
    )
    content_type.objects.filter(app_label=source, model__in=set(MOVED) - taken).update(
        app_label=target
    )


def content_types_move(apps, schema_editor):
    _relabel(apps, "triage", "automation")


def content_types_return(apps, schema_editor):
    _relabel(apps, "automation", "triage")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('triage', '0034_move_to_automation'),
        ('contenttypes', '0002_remove_content_type_name'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # The tables are triage's (created by its migrations 0016-0033): this app takes them over
        # in the state only, under the same names (db_table), rows and all.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='ReplyTemplate',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=64, unique=True)),
                        ('body', models.TextField()),
                        ('help', models.TextField(blank=True, default='', help_text='what it is for, its variables')),
                        ('updated_at', models.DateTimeField(default=django.utils.timezone.now)),
                    ],
                    options={
                        'db_table': 'triage_replytemplate',
                        'ordering': ['name'],
                    },
                ),
                migrations.CreateModel(
                    name='KnownError',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=100, unique=True)),
                        ('pattern', models.CharField(help_text='RE2 pattern (linear time) looked for in the title and body', max_length=500)),
                        ('when_unsupported', models.BooleanField(default=False, help_text='only when the reported gfx target is not supported by the reported ROCm release on that platform (the support matrix)')),
                        ('targets', models.CharField(blank=True, default='', help_text='only these gfx targets (comma list)', max_length=300)),
                        ('answer', models.TextField(help_text='template: {{ reporter }}, {{ target }}, {{ canonical }}')),
                        ('enabled', models.BooleanField(default=True)),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('canonical', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='known_error_signatures', to='triage.issue')),
                    ],
                    options={
                        'db_table': 'triage_knownerror',
                        'ordering': ['name'],
                    },
                ),
                migrations.CreateModel(
                    name='NeedsInfo',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('state', models.CharField(choices=[('asking', 'asked, waiting for the reporter'), ('reminded', 'reminded, waiting for the reporter'), ('satisfied', 'the reporter supplied what was missing'), ('answered', 'a maintainer answered: the clock stopped'), ('closed', 'closed as not planned')], db_index=True, max_length=16)),
                        ('missing', models.JSONField(blank=True, default=list, help_text='what is still missing')),
                        ('asked_for', models.JSONField(blank=True, default=list, help_text='what was first asked for')),
                        ('revision', models.PositiveIntegerField(default=1, help_text="the comment's edits")),
                        ('requested_by', models.CharField(blank=True, default='', help_text="'' for the rule; a person's /needinfo", max_length=200)),
                        ('asked_at', models.DateTimeField()),
                        ('reminded_at', models.DateTimeField(blank=True, null=True)),
                        ('closed_at', models.DateTimeField(blank=True, null=True)),
                        ('resolved_at', models.DateTimeField(blank=True, null=True)),
                        ('updated_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('reporter_words', models.CharField(blank=True, default='', help_text="a digest of the reporter's title, body and comments when last read: what is missing is read again only once the reporter wrote something new", max_length=64)),
                        ('issue', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='needs_info', to='triage.issue')),
                    ],
                    options={
                        'verbose_name_plural': 'needs info',
                        'db_table': 'triage_needsinfo',
                    },
                ),
                migrations.CreateModel(
                    name='OwnershipRule',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('kind', models.CharField(choices=[('component', "component (the prediction or a triager's decision)"), ('gpu_family', "GPU family (CDNA3, RDNA3 ...: the reported gfx targets')"), ('label', 'label on GitHub'), ('path', 'pull-request path (a CODEOWNERS pattern of the changed files)')], max_length=16)),
                        ('pattern', models.CharField(help_text='the value, case-insensitive; * and ? as in file names. A path: as in CODEOWNERS (/docs/, *.md, src/**/kernels/), case-sensitive', max_length=255)),
                        ('owners', models.CharField(blank=True, help_text='GitHub users and teams: @alice @ROCm/hip-maintainers (a path rule may name none: those files have no owners, as in CODEOWNERS)', max_length=500)),
                        ('order', models.PositiveIntegerField(default=100, help_text='later rules win, as in CODEOWNERS')),
                        ('repository', models.ForeignKey(blank=True, help_text='empty: every repository', null=True, on_delete=django.db.models.deletion.CASCADE, related_name='ownership_rules', to='triage.repository')),
                    ],
                    options={
                        'db_table': 'triage_ownershiprule',
                        'ordering': ['order', 'id'],
                    },
                ),
                migrations.CreateModel(
                    name='WriteSwitch',
                    fields=[
                        ('name', models.CharField(max_length=32, primary_key=True, serialize=False)),
                        ('stopped', models.BooleanField(default=False)),
                        ('reason', models.CharField(blank=True, default='', max_length=255)),
                        ('changed_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('changed_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'triage_writeswitch',
                    },
                ),
                migrations.CreateModel(
                    name='CommentCommand',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('line', models.CharField(help_text='the command as written', max_length=300)),
                        ('command', models.CharField(max_length=32)),
                        ('login', models.CharField(max_length=100)),
                        ('association', models.CharField(blank=True, default='', max_length=32)),
                        ('status', models.CharField(choices=[('done', 'Done'), ('refused', 'Refused')], max_length=16)),
                        ('detail', models.TextField(blank=True, default='')),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('comment', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='commands', to='triage.comment')),
                        ('issue', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='commands', to='triage.issue')),
                    ],
                    options={
                        'db_table': 'triage_commentcommand',
                        'ordering': ['-created_at', '-id'],
                        'constraints': [models.UniqueConstraint(fields=('comment', 'line'), name='comment_command_once')],
                    },
                ),
                migrations.CreateModel(
                    name='GitHubWrite',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('action', models.CharField(help_text='the opt-in it needs: needs_info.ask, ...', max_length=64)),
                        ('operation', models.CharField(choices=[('comment', "comment (edited in place when the bot's marked comment exists)"), ('add_labels', 'Add Labels'), ('remove_label', 'Remove Label'), ('assign', 'Assign'), ('unassign', 'Unassign'), ('close', 'Close'), ('reopen', 'Reopen'), ('edit_title', 'Edit Title'), ('lock', 'Lock'), ('unlock', 'Unlock'), ('react', 'React'), ('request_review', 'request reviews (a pull request)')], max_length=16)),
                        ('key', models.CharField(help_text='one row per issue and key', max_length=200)),
                        ('payload', models.JSONField(blank=True, default=dict)),
                        ('status', models.CharField(choices=[('planned', 'planned (dry run)'), ('pending', 'Pending'), ('sending', 'Sending'), ('done', 'Done'), ('skipped', 'Skipped'), ('failed', 'Failed')], db_index=True, max_length=16)),
                        ('reason', models.TextField(blank=True, default='', help_text='why it was decided')),
                        ('decided_by', models.CharField(help_text='rule needs-info, model kind 2026.1, alice, @bob on GitHub', max_length=200)),
                        ('model_name', models.CharField(blank=True, default='', max_length=64)),
                        ('model_version', models.CharField(blank=True, default='', max_length=100)),
                        ('detail', models.TextField(blank=True, default='', help_text="GitHub's answer or the error")),
                        ('github_id', models.BigIntegerField(blank=True, help_text='the comment written', null=True)),
                        ('attempts', models.PositiveSmallIntegerField(default=0)),
                        ('not_before', models.DateTimeField(blank=True, help_text="not sent before: a rate limit's reset, a retry's turn, a send's lease", null=True)),
                        ('created_at', models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('actor', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('issue', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='github_writes', to='triage.issue')),
                        ('repository', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='triage.repository')),
                    ],
                    options={
                        'db_table': 'triage_githubwrite',
                        'ordering': ['-created_at', '-id'],
                        'indexes': [models.Index(fields=['issue', 'operation', 'status'], name='triage_gith_issue_i_eab593_idx')],
                        'constraints': [models.UniqueConstraint(condition=models.Q(('status__in', ['pending', 'sending', 'done', 'failed'])), fields=('issue', 'key'), name='github_write_decided_once')],
                    },
                ),
                migrations.CreateModel(
                    name='KnownErrorMatch',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('state', models.CharField(choices=[('proposed', 'Proposed'), ('answered', 'Answered'), ('dismissed', 'Dismissed')], default='proposed', max_length=16)),
                        ('evidence', models.CharField(blank=True, default='', max_length=300)),
                        ('target', models.CharField(blank=True, default='', max_length=20)),
                        ('rocm_version', models.CharField(blank=True, default='', max_length=20)),
                        ('decided_by', models.CharField(blank=True, default='', max_length=200)),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('issue', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='known_errors', to='triage.issue')),
                        ('signature', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='matches', to='automation.knownerror')),
                    ],
                    options={
                        'db_table': 'triage_knownerrormatch',
                        'ordering': ['-created_at'],
                        'constraints': [models.UniqueConstraint(fields=('signature', 'issue'), name='known_error_match_once')],
                    },
                ),
                migrations.CreateModel(
                    name='LabelWriteback',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('model_name', models.CharField(max_length=64)),
                        ('model_version', models.CharField(blank=True, default='', max_length=64)),
                        ('label', models.CharField(max_length=255)),
                        ('confidence', models.FloatField(blank=True, null=True)),
                        ('status', models.CharField(choices=[('planned', 'planned (dry run)'), ('applied', 'Applied'), ('skipped', 'Skipped'), ('failed', 'Failed')], max_length=16)),
                        ('detail', models.TextField(blank=True, default='')),
                        ('created_at', models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
                        ('actor', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
                        ('issue', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='label_writebacks', to='triage.issue')),
                    ],
                    options={
                        'db_table': 'triage_labelwriteback',
                        'ordering': ['-created_at'],
                        'constraints': [models.UniqueConstraint(condition=models.Q(('status', 'applied')), fields=('issue', 'label'), name='label_writeback_applied_once')],
                    },
                ),
                migrations.CreateModel(
                    name='OwnerNotification',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('kind', models.CharField(choices=[('routed', 'Routed'), ('escalated_new', 'escalated: new critical issue or regression'), ('escalated_overdue', 'escalated: past its response deadline')], max_length=20)),
                        ('owners', models.JSONField(blank=True, default=list)),
                        ('rule', models.CharField(blank=True, default='', max_length=300)),
                        ('channels', models.JSONField(blank=True, default=list, help_text='e-mail, webhook: sent to')),
                        ('detail', models.TextField(blank=True, default='')),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('issue', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='owner_notifications', to='triage.issue')),
                    ],
                    options={
                        'db_table': 'triage_ownernotification',
                        'ordering': ['-created_at'],
                        'constraints': [models.UniqueConstraint(fields=('issue', 'kind'), name='owner_notification_once')],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(content_types_move, content_types_return),
    ]
