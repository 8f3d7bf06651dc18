"""python manage.py evaluate_classifier MODEL (--csv PATH | --jsonl PATH) [--json]: score the
active version on a labelled CSV or on labelled real reports (JSON lines, gold.MODEL)."""

import json

from django.core.management.base import BaseCommand, CommandError

from classifiers import artifacts, datasets, evaluation
from classifiers.registry import UnknownModel


class Command(BaseCommand):
    help = (
        "Score the active version of a model on a labelled CSV (title, body, label / text, label)."
    )

    def add_arguments(self, parser):
        parser.add_argument("model")
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--csv", help="labelled CSV file")
        source.add_argument("--jsonl", help="labelled real reports (JSON lines, gold.MODEL)")
        parser.add_argument(
            "--model-version", default=None, help="a version other than the active one"
        )
        parser.add_argument("--json", action="store_true", help="one JSON object on stdout")

    def handle(self, *args, **options):
        try:
            data = (
                datasets.labelled_csv_read(options["csv"], name=options["model"])
                if options["csv"]
                else datasets.labelled_jsonl_read(options["jsonl"], name=options["model"])
            )
            metrics = evaluation.model_evaluate(
                name=options["model"],
                texts=data.texts,
                labels=data.labels,
                version=options["model_version"],
                groups=data.groups,
            )
        except (UnknownModel, datasets.CsvError, artifacts.ArtifactError) as exc:
            raise CommandError(str(exc)) from None
        metrics["csv_cleaned"] = data.cleaning_note()
        if options["json"]:
            self.stdout.write(json.dumps(metrics, indent=2, sort_keys=True))
            return
        if metrics["csv_cleaned"]:
            self.stdout.write(self.style.WARNING(f"{data.path}: {metrics['csv_cleaned']}"))
        self.stdout.write(f"{metrics['model']} {metrics['version']} on {metrics['n']} rows")
        self.stdout.write(f"{'class':<20}{'precision':>10}{'recall':>10}{'f1':>10}{'support':>9}")
        for label, row in metrics["per_class"].items():
            self.stdout.write(
                f"{label:<20}{row['precision']:>10.3f}{row['recall']:>10.3f}{row['f1']:>10.3f}"
                f"{row['support']:>9}"
            )
        self.stdout.write(f"macro-F1 {metrics['macro_f1']:.3f}, accuracy {metrics['accuracy']:.3f}")
        self.stdout.write(
            f"at the abstention thresholds: precision {metrics['precision_at_threshold']:.3f}, "
            f"coverage {metrics['coverage']:.1%}"
        )
        for label, count in metrics["unknown_labels"].items():
            self.stdout.write(
                self.style.WARNING(f"label {label!r} unknown to the model: {count} rows skipped")
            )
