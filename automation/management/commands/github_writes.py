"""python manage.py github_writes [OWNER/NAME] [--status S] [--days N] [--limit N]
   python manage.py github_writes OWNER/NAME --preview-needs-info

The outbox of writes to GitHub, newest first (what was planned in a dry run, done, skipped and
why, failed with GitHub's message); or, before a repository opts in, what needs-info would ask
on its open issues now (nothing is recorded, nothing is written)."""

from __future__ import annotations

from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from automation.needs_info import services as needs_info
from automation.outbox import services as outbox
from automation.outbox.models import GitHubWrite
from triage.management.options import repository_argument
from triage.models import Issue, Repository


class Command(BaseCommand):
    help = (
        "List the writes to GitHub (the outbox and its audit), or with --preview-needs-info "
        "what needs-info would ask on a repository's open issues (writing nothing)."
    )

    def add_arguments(self, parser):
        parser.add_argument("repo", nargs="?", metavar="OWNER/NAME")
        parser.add_argument("--status", choices=GitHubWrite.Status.values)
        parser.add_argument("--days", type=int, default=7, help="written in the last N days")
        parser.add_argument("--limit", type=int, default=200)
        parser.add_argument("--preview-needs-info", action="store_true")

    def handle(self, *args, **options):
        if options["limit"] < 1 or options["days"] < 1:
            raise CommandError("--limit and --days are positive numbers")
        repository = repository_argument(options["repo"])
        if options["preview_needs_info"]:
            if repository is None:
                raise CommandError("--preview-needs-info needs OWNER/NAME")
            return self._preview(repository, options["limit"])
        rows = GitHubWrite.objects.filter(
            created_at__gte=timezone.now() - timedelta(days=options["days"])
        ).select_related("issue__repository")
        if repository is not None:
            rows = rows.filter(repository=repository)
        if options["status"]:
            rows = rows.filter(status=options["status"])
        stopped = outbox.writes_stopped()
        if stopped:
            self.stdout.write(f"NOTE: {stopped}")
        count = 0
        for row in rows[: options["limit"]]:
            count += 1
            self.stdout.write(
                f"{row.created_at:%Y-%m-%d %H:%M} {row.status:<8} {outbox.describe(row)} "
                f"[{row.action}; {row.decided_by}]" + (f": {row.detail}" if row.detail else "")
            )
        self.stdout.write(f"{count} write(s)")

    def _preview(self, repository: Repository, limit: int) -> None:
        now, asked = timezone.now(), 0
        issues = (
            Issue.objects.filter(
                repository=repository,
                state=Issue.State.OPEN,
                is_pull_request=False,
                deleted_at__isnull=True,
            )
            .select_related("repository", "author")
            .order_by("-created_at")[:limit]
        )
        for issue in issues:
            why_not = needs_info.eligible(issue, now)
            if why_not:
                continue
            missing = needs_info.completeness(issue).missing
            if missing:
                asked += 1
                self.stdout.write(f"would ask {issue.reference}: {', '.join(missing)}")
        self.stdout.write(f"needs-info would ask {asked} issue(s) of {repository.full_name}")
