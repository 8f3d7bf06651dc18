"""python manage.py sync_github OWNER/NAME [--full]: sync issues, PRs and comments now."""

from __future__ import annotations

import sys
import time

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from triage.models import Repository
from triage.services import tracking
from triage.sources.github import sync
from triage.sources.github.client import GitHubError, GitHubSource, RateLimited


class Command(BaseCommand):
    help = (
        "Sync GitHub issues, pull requests and comments of OWNER/NAME (tracking it from now on). "
        "With no repository, syncs every tracked one. Incremental unless --full."
    )

    def add_arguments(self, parser):
        parser.add_argument("repos", nargs="*", metavar="OWNER/NAME")
        parser.add_argument(
            "--full", action="store_true", help="re-read everything, ignoring watermarks"
        )
        parser.add_argument(
            "--no-wait",
            action="store_true",
            help="on a rate limit, stop (the next run resumes) instead of waiting for the reset",
        )

    def handle(self, *args, **options):
        try:
            repositories = [tracking.repository_track(full_name=name) for name in options["repos"]]
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if not repositories:
            repositories = list(Repository.objects.on_github().filter(tracked=True))
        if not repositories:
            raise CommandError("no repository given and none tracked (set GITHUB_REPOS)")
        for repository in repositories:
            self._sync(repository, full=options["full"], wait=not options["no_wait"])

    def _sync(self, repository: Repository, *, full: bool, wait: bool) -> None:
        bar = tqdm(
            desc=repository.full_name,
            unit=" items",
            disable=not sys.stderr.isatty(),
            file=sys.stderr,
            leave=False,
        )

        def progress(resource: str, count: int, total_guess: int | None) -> None:
            bar.set_postfix_str(resource)
            if total_guess and (bar.total or 0) < bar.n + total_guess:
                bar.total = bar.n + total_guess
            bar.update(count)

        # its installation's token also for /repositories/ID, which names no OWNER/NAME
        source = GitHubSource(full_name=repository.full_name, reads_only=True)
        totals = sync.SyncReport(repository=repository.full_name)
        try:
            while True:
                try:
                    sync.repository_sync(
                        repository=repository,
                        full=full,
                        source=source,
                        progress=progress,
                        report=totals,
                    )
                except RateLimited as exc:
                    if not wait:
                        raise CommandError(f"{repository}: {exc}; run again after it") from exc
                    bar.write(f"{repository}: {exc}; waiting {exc.seconds_to_wait():.0f}s")
                    time.sleep(exc.seconds_to_wait())
                    full = False  # the watermark kept our place
                    continue
                break
        except (sync.SyncBusy, tracking.RepositoryConflict) as exc:
            raise CommandError(str(exc)) from exc
        except GitHubError as exc:
            raise CommandError(f"{repository}: {exc}") from exc
        finally:
            bar.close()
        self.stdout.write(totals.summary())
