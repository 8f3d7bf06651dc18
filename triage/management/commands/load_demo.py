"""python manage.py load_demo: the bundled synthetic data set, and a demo login."""

from django.core.management.base import BaseCommand

from triage.services import demo


class Command(BaseCommand):
    help = "Load the bundled synthetic demo data (GitHub JSON) and create a demo login."

    def add_arguments(self, parser):
        parser.add_argument("--user", default="demo", help="demo login to create (default demo)")
        parser.add_argument("--password", default="demo", help="its password (default demo)")
        parser.add_argument("--no-user", action="store_true", help="create no login")

    def handle(self, *args, **options):
        report = demo.demo_load()
        self.stdout.write(f"Loaded demo data: {report.summary()}")
        if not options["no_user"]:
            demo.demo_user_ensure(username=options["user"], password=options["password"])
            self.stdout.write(
                self.style.SUCCESS(
                    f"Demo login: user {options['user']!r}, password {options['password']!r}"
                )
            )
