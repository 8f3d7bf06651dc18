from django.db import migrations


def templates_install(apps, schema_editor):
    """The texts the service posts, as rows maintainers can edit (their defaults, as shipped);
    one already there (installed by triage 0019 before this app took it over, or edited) stays."""
    from automation.outbox.reply_templates import DEFAULTS

    template = apps.get_model("automation", "ReplyTemplate")
    for name, default in DEFAULTS.items():
        template.objects.get_or_create(
            name=name, defaults={"body": default.body, "help": default.help}
        )


class Migration(migrations.Migration):
    dependencies = [("automation", "0001_initial")]

    operations = [migrations.RunPython(templates_install, migrations.RunPython.noop)]
