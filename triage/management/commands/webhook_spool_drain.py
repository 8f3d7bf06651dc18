"""python manage.py webhook_spool_drain: move this host's spooled webhook deliveries into the
database now (the web processes do it by themselves once the database is back)."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from triage.services import webhook_spool


class Command(BaseCommand):
    help = (
        "Store the webhook deliveries spooled in WEBHOOK_SPOOL_DIR while the database was "
        "unavailable, each once by delivery id, and delete each file once its row committed. "
        "Files another process is draining are left to it; unreadable files go to quarantine/. "
        "Fails (exit 1) while the database is still unavailable."
    )

    def handle(self, *args, **options):
        report = webhook_spool.spool_drain()
        self.stdout.write(f"{settings.WEBHOOK_SPOOL_DIR}: {report.summary()}")
        if report.database_error:
            raise CommandError(f"the database is unavailable: {report.database_error}")
