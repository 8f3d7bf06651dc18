"""python manage.py sync_x [--query Q]: fetch X posts of the saved searches now."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from triage.models import SavedSearch
from triage.services import social
from triage.sources.x import sync as x_sync
from triage.sources.x.client import XError, XRateLimited


class Command(BaseCommand):
    help = (
        "Fetch recent X posts for every enabled saved search (seeding the default searches "
        "first), or for one query with --query (saved and scheduled as a search if new)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--query", help="an X API v2 query, e.g. '\"ROCm sucks\" -is:retweet'")

    def handle(self, *args, **options):
        if not settings.X_BEARER_TOKEN:
            raise CommandError("X_BEARER_TOKEN is not set; set it to an X API v2 bearer token")
        if options["query"] is not None:
            query = options["query"].strip()
            if not query or len(query) > 512:
                raise CommandError("--query must be 1 to 512 characters")
            search, created = social.saved_search_for_query(query=query)
            if created:
                self.stdout.write(f"saved search {search.name!r} created and scheduled")
            searches = [search]
        else:
            social.saved_searches_seed()
            searches = list(SavedSearch.objects.filter(enabled=True))
        failed = False
        for search in searches:
            try:
                report = x_sync.saved_search_sync(search=search)
            except XRateLimited as exc:
                raise CommandError(f"{search.name}: {exc}; run again after it") from exc
            except (XError, x_sync.BudgetExhausted) as exc:
                self.stderr.write(f"{search.name}: {exc}")
                failed = True
                continue
            self.stdout.write(report.summary())
        if failed:
            raise CommandError("some searches failed (see above)")
