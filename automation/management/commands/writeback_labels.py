"""python manage.py writeback_labels [OWNER/NAME] [--dry-run] [--limit N]: labels to GitHub."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from automation.writeback import services as writeback
from triage.management.options import repository_argument


class Command(BaseCommand):
    help = (
        "Apply the predicted kind and component labels (confidence at least "
        "CLASSIFIER_WRITEBACK_MIN_CONFIDENCE, or a triager's correction) to open issues on GitHub, "
        "for OWNER/NAME or every repository with label write-back on. --dry-run lists what it "
        "would do and changes nothing on GitHub. Everything is recorded in the audit log."
    )

    def add_arguments(self, parser):
        parser.add_argument("repo", nargs="?", metavar="OWNER/NAME")
        parser.add_argument("--dry-run", action="store_true", help="list, apply nothing")
        parser.add_argument("--limit", type=int, help="at most N labels")

    def handle(self, *args, **options):
        limit = options["limit"]
        if limit is not None and limit < 1:
            raise CommandError("--limit must be a positive number")
        repository = repository_argument(options["repo"])
        try:
            report = writeback.labels_writeback(
                repository=repository,
                dry_run=options["dry_run"],
                limit=limit,
                origin="writeback_labels" + (" --dry-run" if options["dry_run"] else ""),
            )
        except writeback.WritebackDisabled as exc:
            raise CommandError(str(exc)) from exc
        for line in report.lines:
            self.stdout.write(line)
        self.stdout.write(report.summary())
        if report.rate_limited is not None:
            raise CommandError(f"{report.rate_limited}; run again after it")
