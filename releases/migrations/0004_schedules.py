"""Beat schedules of releases (django-celery-beat, queue `releases`; editable in the admin):
punting at branch cut (hourly), the burndown snapshot of open trains (hourly, the day's row is
updated until the day ends) and the nightly retraining of the fix-by-train forecast."""

from django.db import migrations

SCHEDULES = [
    (
        "releases: punt trains at branch cut",
        "releases.tasks.punt_due_trains",
        {"minute": "5"},
        "Move open issues of trains whose branch cut passed to the next train (idempotent).",
    ),
    (
        "releases: burndown snapshot",
        "releases.tasks.snapshot_trains",
        {"minute": "50"},
        "Record today's open issues per train (the burndown chart's data).",
    ),
    (
        "releases: retrain the fix forecast",
        "releases.tasks.retrain_forecast",
        {"minute": "20", "hour": "4"},
        "Retrain the fix-by-branch-cut forecast on the replayed past trains.",
    ),
]


def create(apps, schema_editor):
    CrontabSchedule = apps.get_model("django_celery_beat", "CrontabSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    for name, task, cron, description in SCHEDULES:
        fields = {
            "minute": "*",
            "hour": "*",
            "day_of_week": "*",
            "day_of_month": "*",
            "month_of_year": "*",
            "timezone": "UTC",
            **cron,
        }
        schedule, _ = CrontabSchedule.objects.get_or_create(**fields)
        PeriodicTask.objects.get_or_create(
            name=name,
            defaults={
                "task": task,
                "crontab": schedule,
                "queue": "releases",
                "description": description,
            },
        )


def remove(apps, schema_editor):
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    PeriodicTask.objects.filter(name__in=[s[0] for s in SCHEDULES]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("releases", "0003_snapshots_candidates_notes"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]
    operations = [migrations.RunPython(create, remove)]
