"""python manage.py release_schedule [--series S] [--count N]
[--epoch VERSION@DATE --cadence-days D] [--json]"""

from __future__ import annotations

import json
from datetime import date

from django.core.management.base import BaseCommand, CommandError
from django.http import Http404
from django.utils import timezone

from releases import calendar, selectors


class Command(BaseCommand):
    help = "Print the past, current and next trains of a release series (or preview a calendar)."

    def add_arguments(self, parser):
        parser.add_argument("--series", default="", help="series name (default: the first)")
        parser.add_argument("--count", type=int, default=3, help="trains before and after")
        parser.add_argument("--epoch", default="", help="preview: VERSION@YYYY-MM-DD, not saved")
        parser.add_argument("--cadence-days", type=int, default=42)
        parser.add_argument("--time-zone", default="UTC", help="preview: IANA name or AoE")
        parser.add_argument("--today", default="", help="YYYY-MM-DD instead of today")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, **options):
        if not 0 <= options["count"] <= 500:
            raise CommandError("--count must be between 0 and 500")
        spec = self._spec(options)
        try:
            today = date.fromisoformat(options["today"]) if options["today"] else None
        except ValueError as exc:
            raise CommandError(f"--today: {exc}") from exc
        now = calendar.end_of_day(today, spec.time_zone) if today else timezone.now()
        past, current, after = calendar.trains_window(
            spec, now, past=options["count"], upcoming=options["count"]
        )
        rows = [(t, "past") for t in past] + [(current, "current")] * bool(current)
        rows += [(t, "next") for t in after]
        if options["json"]:
            payload = {
                "series": spec.name,
                "as_of": now.isoformat(),
                "trains": [t.as_dict() | {"position": p, "phase": t.phase(now)} for t, p in rows],
            }
            self.stdout.write(json.dumps(payload, indent=2, sort_keys=True))
            return
        self.stdout.write(
            f"{spec.name}: every {spec.cadence_days} days from {spec.epoch_version} on "
            f"{spec.epoch_date} ({spec.time_zone})"
        )
        self.stdout.write(
            f"{'':8} {'version':10} {'branch cut':11} {'freeze':11} {'RC':11} {'release':11} phase"
        )
        for train, position in rows:
            self.stdout.write(
                f"{position:8} {train.label:10} {train.branch_cut} {train.code_freeze} "
                f"{train.rc} {train.release} {train.phase(now)}"
                + (f"  ({train.note})" if train.note else "")
            )

    def _spec(self, options) -> calendar.SeriesSpec:
        if options["epoch"]:
            version, sep, day = options["epoch"].partition("@")
            try:
                spec = calendar.SeriesSpec(
                    name="preview",
                    epoch_version=version,
                    epoch_date=date.fromisoformat(day) if sep else None,
                    cadence_days=options["cadence_days"],
                    time_zone=options["time_zone"],
                )
                spec.validate()
            except (TypeError, ValueError) as exc:
                raise CommandError(f"--epoch VERSION@YYYY-MM-DD: {exc}") from exc
            return spec
        try:
            return selectors.series_get(options["series"]).spec()
        except Http404 as exc:
            raise CommandError(f"{exc}; create one in the admin or pass --epoch") from exc
