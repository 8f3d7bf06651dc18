"""Per-attempt time limits and the GitHub comment of a run; coordinator beat tasks on `ingest`
(a repro queue holds long runs: a heartbeat check waiting behind them would see runners stale)."""

from django.db import migrations, models

BEAT_TASKS = ["kernels_ci.tasks.verification_nightly", "kernels_ci.tasks.runners_check"]


def beat_to_ingest(apps, schema_editor):
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    PeriodicTask.objects.filter(task__in=BEAT_TASKS, queue="repro.cpu").update(queue="ingest")


def beat_to_repro(apps, schema_editor):
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    PeriodicTask.objects.filter(task__in=BEAT_TASKS, queue="ingest").update(queue="repro.cpu")


class Migration(migrations.Migration):
    dependencies = [
        ("kernels_ci", "0003_approve_permission"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [
        migrations.AddField(
            model_name="reprorun",
            name="soft_time_limit_s",
            field=models.PositiveIntegerField(
                default=0, help_text="the attempt's Celery soft time limit, from its runs and timeout"
            ),
        ),
        migrations.AddField(
            model_name="reprorun",
            name="time_limit_s",
            field=models.PositiveIntegerField(default=0, help_text="its hard limit (1.2x)"),
        ),
        migrations.AddField(
            model_name="reprorun",
            name="commented_at",
            field=models.DateTimeField(
                blank=True, null=True, help_text="when its result was posted on the GitHub issue"
            ),
        ),
        migrations.AddField(
            model_name="reprorun",
            name="comment_url",
            field=models.URLField(blank=True, default="", max_length=500),
        ),
        migrations.RunPython(beat_to_ingest, beat_to_repro),
    ]
