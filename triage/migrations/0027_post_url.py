"""Post.url: a post's address on its source, given by the source's records (it was built for X
alone from the author's login); existing X posts get the address that was built for them."""

from django.db import migrations, models
from django.db.models import F, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce, Concat, NullIf


def x_urls(apps, schema_editor):
    Post = apps.get_model("triage", "Post")
    Person = apps.get_model("triage", "Person")
    login = Subquery(Person.objects.filter(pk=OuterRef("author_id")).values("login")[:1])
    Post.objects.filter(source="x").update(
        url=Concat(
            Value("https://x.com/"),
            Coalesce(NullIf(login, Value("")), Value("i")),
            Value("/status/"),
            F("external_id"),
            output_field=models.CharField(),
        )
    )


class Migration(migrations.Migration):
    dependencies = [
        ("triage", "0026_issue_repository_index_once"),
    ]

    operations = [
        migrations.AddField(
            model_name="post",
            name="url",
            field=models.CharField(
                blank=True,
                default="",
                help_text="the post on its source (http(s) only)",
                max_length=500,
            ),
        ),
        migrations.RunPython(x_urls, migrations.RunPython.noop),
    ]
