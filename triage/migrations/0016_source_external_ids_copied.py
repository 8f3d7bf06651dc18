"""People, issues, comments and posts by source + external_id: the ids copied, X authors made people (see 0015)."""


from django.db import migrations
from django.db.models import CharField, F
from django.db.models.functions import Cast

BATCH = 1000


def _people_from_authors(apps, schema_editor):
    XAuthor = apps.get_model("triage", "XAuthor")
    Person = apps.get_model("triage", "Person")
    Post = apps.get_model("triage", "Post")
    authors = list(XAuthor.objects.order_by("pk"))
    for start in range(0, len(authors), BATCH):
        chunk = authors[start : start + BATCH]
        Person.objects.bulk_create(
            [
                Person(
                    source="x",
                    external_id=str(author.x_id),
                    login=author.username,
                    name=author.name,
                    followers_count=author.followers_count,
                    html_url=f"https://x.com/{author.username}",
                )
                for author in chunk
            ]
        )
        people = dict(
            Person.objects.filter(
                source="x", external_id__in=[str(a.x_id) for a in chunk]
            ).values_list("external_id", "pk")
        )
        for author in chunk:
            Post.objects.filter(author_id=author.pk).update(person_id=people[str(author.x_id)])


def forwards(apps, schema_editor):
    for name in ("Person", "Issue", "Comment"):
        model = apps.get_model("triage", name)
        model.objects.filter(github_id__isnull=False).update(
            source="github", external_id=Cast(F("github_id"), CharField())
        )
    Post = apps.get_model("triage", "Post")
    Post.objects.update(source="x", external_id=Cast(F("x_id"), CharField()))
    _people_from_authors(apps, schema_editor)


def backwards(apps, schema_editor):
    for name in ("Person", "Issue", "Comment"):
        model = apps.get_model("triage", name)
        for pk, external_id in model.objects.filter(source="github").values_list(
            "pk", "external_id"
        ):
            if external_id:
                model.objects.filter(pk=pk).update(github_id=int(external_id))
    Post = apps.get_model("triage", "Post")
    Person = apps.get_model("triage", "Person")
    XAuthor = apps.get_model("triage", "XAuthor")
    for post in Post.objects.all():
        post.x_id = int(post.external_id)
        if post.person_id:
            person = Person.objects.get(pk=post.person_id)
            author, _ = XAuthor.objects.get_or_create(
                x_id=int(person.external_id),
                defaults={
                    "username": person.login,
                    "name": person.name,
                    "followers_count": person.followers_count,
                },
            )
            post.author_id = author.pk
        post.save(update_fields=["x_id", "author"])
    Person.objects.filter(source="x").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("triage", "0015_source_external_ids"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
