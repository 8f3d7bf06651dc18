"""python manage.py load_demo: the bundled synthetic data set, and a demo login.

Each app contributes its part through config/wiring.py's DEMO_LOADERS (GitHub data first, then
what the later stages build on it), so triage never imports the apps further down the chain.
"""

import inspect
import time

from django.core.management.base import BaseCommand

from config import wiring
from triage.services import demo


class Command(BaseCommand):
    help = "Load the bundled synthetic demo data (GitHub JSON and more) and create a demo login."

    def add_arguments(self, parser):
        parser.add_argument("--user", default="demo", help="demo login to create (default demo)")
        parser.add_argument("--password", default="demo", help="its password (default demo)")
        parser.add_argument("--no-user", action="store_true", help="create no login")

    def handle(self, *args, **options):
        # The login first: the loaders give it its part in the story (the release manager who
        # approves the demo backport, the maintainer who approves the demo reproducers).
        if not options["no_user"]:
            demo.demo_user_ensure(username=options["user"], password=options["password"])
            demo.demo_role_users_ensure()
        steps = len(wiring.DEMO_LOADERS)
        for step, dotted in enumerate(wiring.DEMO_LOADERS, start=1):
            # where it is, before each step (training takes about a minute), and what it did
            app, name = dotted.split(".", 1)[0], dotted.rsplit(".", 1)[1]
            what = name.removeprefix("demo_").replace("_", " ")
            self.stdout.write(f"[{step}/{steps}] {app}: {what} ...")
            self.stdout.flush()
            started = time.monotonic()
            loader = wiring.load(dotted)
            if "progress" in inspect.signature(loader).parameters:
                report = loader(progress=self._bar)
                self._bar_end()
            else:
                report = loader()
            summary = report.summary() if hasattr(report, "summary") else str(report)
            elapsed = time.monotonic() - started
            self.stdout.write(f"      {summary} ({elapsed:.0f} s)")
        if not options["no_user"]:
            self.stdout.write(
                self.style.SUCCESS(
                    f"Demo login: user {options['user']!r}, password {options['password']!r}"
                )
            )
            roles = ", ".join(f"{name}/{name} ({role})" for name, role in demo.DEMO_ROLE_USERS)
            self.stdout.write(f"Logins with one role each (user/password): {roles}")

    BAR_WIDTH = 30

    def _bar(self, done: int, total: int, what: str) -> None:
        """A progress bar of a long step, redrawn in place on a terminal (nothing in a log)."""
        if not self.stdout.isatty() or total <= 0:
            return
        filled = self.BAR_WIDTH * min(done, total) // total
        bar = "#" * filled + "." * (self.BAR_WIDTH - filled)
        self.stdout.write(f"\r      [{bar}] {done}/{total} {what}", ending="")
        self.stdout.flush()
        self._drawn = True

    def _bar_end(self) -> None:
        if getattr(self, "_drawn", False):
            self.stdout.write("\r\033[K", ending="")  # the summary line takes its place
            self._drawn = False
