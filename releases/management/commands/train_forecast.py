"""python manage.py train_forecast [--series S] [--json]"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError
from django.http import Http404

from releases import selectors
from releases.services.forecast import forecast_retrain


class Command(BaseCommand):
    help = (
        "Retrain the fix-by-branch-cut forecast of a release series by replaying its past "
        "trains (the nightly beat task does the same), and make it active."
    )

    def add_arguments(self, parser):
        parser.add_argument("--series", default="", help="series name (default: the first)")
        parser.add_argument("--json", action="store_true", help="print the metrics as JSON")

    def handle(self, *args, **options):
        try:
            series = selectors.series_get(options["series"])
        except Http404 as exc:
            raise CommandError(str(exc)) from exc
        result = forecast_retrain(series=series)
        if options["json"]:
            payload = {
                "series": result.series,
                "version": result.version,
                "rows": result.rows,
                "trains": result.trains,
                "skipped": result.skipped,
                "metrics": result.metrics,
            }
            self.stdout.write(json.dumps(payload, indent=2, sort_keys=True))
        else:
            self.stdout.write(result.summary())
        if result.skipped:
            raise CommandError(result.skipped)
