"""Beat schedules of kernels_ci (django-celery-beat): the nightly re-run of open reproduced
cases, and the minute check of runners' heartbeats and lost runs. Editable in the admin."""

from django.db import migrations

SCHEDULES = [
    ("kernels_ci: nightly re-run of reproduced cases", "kernels_ci.tasks.verification_nightly",
     {"minute": "30", "hour": "2"}),
    ("kernels_ci: runners heartbeat check", "kernels_ci.tasks.runners_check", {"minute": "*"}),
]


def create(apps, schema_editor):
    CrontabSchedule = apps.get_model("django_celery_beat", "CrontabSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    for name, task, cron in SCHEDULES:
        fields = {"minute": "*", "hour": "*", "day_of_week": "*", "day_of_month": "*",
                  "month_of_year": "*", "timezone": "UTC", **cron}
        schedule, _ = CrontabSchedule.objects.get_or_create(**fields)
        PeriodicTask.objects.get_or_create(
            name=name, defaults={"task": task, "crontab": schedule, "queue": "ingest"}
        )


def remove(apps, schema_editor):
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    PeriodicTask.objects.filter(name__in=[name for name, _, _ in SCHEDULES]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("kernels_ci", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]
    operations = [migrations.RunPython(create, remove)]
