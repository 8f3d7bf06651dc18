"""python manage.py readiness_report VERSION [--format md|json|html] [--output PATH]"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.http import Http404
from django.utils import timezone

from releases import selectors
from releases.readiness import readiness_build
from releases.report_formats import FORMATS, release_notes_markdown, report_render


class Command(BaseCommand):
    help = "Write the readiness report of a train (the same data gives the same bytes)."

    def add_arguments(self, parser):
        parser.add_argument("version", help="train version, e.g. 7.9 or 7.9.0")
        parser.add_argument(
            "--format",
            choices=[*FORMATS, "notes"],
            default="md",
            help="md, json, html, or notes (the release notes: the saved draft if there is one)",
        )
        parser.add_argument("--output", default="", help="file to write (default: stdout)")
        parser.add_argument("--series", default="")
        parser.add_argument(
            "--as-of",
            default="",
            help=(
                "YYYY-MM-DD (default: today): the report as of the end of that day in the "
                "series' time zone, replayed from timestamps: issues open and on the train then "
                "(targets from punts and target times), fixes merged by then, backports in "
                "their state then, punts and RC tags by then, repro verification from the runs "
                "finished by then, the forecast at that moment. Labels, flags, triage's "
                "predictions and milestones have no history and are as they are now."
            ),
        )

    def handle(self, *args, **options):
        try:
            series = selectors.series_get(options["series"])
            as_of = (
                date.fromisoformat(options["as_of"])
                if options["as_of"]
                else selectors.today_in(series, timezone.now())
            )
            report = readiness_build(series=series, version=options["version"], as_of=as_of)
        except (Http404, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        if options["format"] == "notes":
            draft = selectors.notes_draft_of(series, report["train"])
            text = (
                draft.text
                if draft
                else release_notes_markdown(report, product=series.title or series.name)
            )
        else:
            text = report_render(report, options["format"])
        if options["output"]:
            path = Path(options["output"])
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(path)
            self.stderr.write(f"{report['label']}: {report['verdict']} → {path}")
        else:
            self.stdout.write(text, ending="")
