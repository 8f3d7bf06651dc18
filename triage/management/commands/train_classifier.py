"""python manage.py train_classifier MODEL [--csv PATH | --jsonl PATH] [--force]

Without --csv: from the database (weak labels from labels, title prefixes and issue forms;
triagers' corrections outrank them; for sentiment: the base set of CLASSIFIER_SENTIMENT_CSV with
triagers' sentiment decisions on posts on top). With --csv: columns title, body, label (issue
models) or text, label (sentiment), and for kind, trained per repository, a repository (or repo)
column; other columns are ignored. With --jsonl: labelled real reports, one JSON object a line
(title, text, repository, and the label in gold.MODEL: the format of the real-issue benchmark's
data), for kind, symptom, severity and component; a report whose gold leaves the label out is
skipped and counted. A version trained on labelled reports counts them as people's decisions
("gold N" in its source): sure, it outranks the rules as triagers' corrections do. A bad file is
refused and nothing is saved; a NUL byte or stray control character in a UTF-8 file is removed
and counted ("1 NUL byte removed in row 812").
The new version becomes active only if it is not worse than the active one, unless --force;
then the open issues (for sentiment: their comments and recent posts) are classified again, in
chunks on the classify queue.
"""

from django.core.management.base import BaseCommand, CommandError

from classifiers import datasets, training
from classifiers.registry import UnknownModel, models
from classifiers.text_classifier import TrainingDataError
from triage.services import classification


class Command(BaseCommand):
    help = "Train a classifier (kind, component, severity, sentiment, duplicates)."

    def add_arguments(self, parser):
        parser.add_argument("model", help=", ".join(sorted(models())))
        source = parser.add_mutually_exclusive_group()
        source.add_argument("--csv", default=None, help="labelled CSV instead of the database")
        source.add_argument(
            "--jsonl", default=None, help="labelled real reports (JSON lines, gold.MODEL)"
        )
        parser.add_argument(
            "--force", action="store_true", help="activate even if it scores worse than the active"
        )

    def handle(self, *args, **options):
        name = options["model"]
        try:
            if options["csv"] or options["jsonl"]:
                data = (
                    datasets.labelled_csv_read(options["csv"], name=name)
                    if options["csv"]
                    else datasets.labelled_jsonl_read(options["jsonl"], name=name)
                )
                if data.cleaned:
                    self.stdout.write(self.style.WARNING(f"{data.path}: {data.cleaning_note()}"))
                if data.skipped:
                    self.stdout.write(f"{data.skipped} reports without a gold {name} skipped")
                source = (
                    f"csv {data.path}"
                    if options["csv"]
                    else f"jsonl {data.path} (gold {len(data.labels)})"
                )
                report = training.model_train(
                    name=name,
                    texts=data.texts,
                    labels=data.labels,
                    source=source,
                    force=options["force"],
                    groups=data.groups,
                )
            else:
                report = classification.classifier_train_from_database(
                    model_name=name, force=options["force"]
                )
        except (UnknownModel, datasets.CsvError, TrainingDataError, ValueError) as exc:
            raise CommandError(str(exc)) from None
        style = self.style.SUCCESS if report.activated else self.style.WARNING
        self.stdout.write(style(report.summary()))
        if report.activated:
            enqueued = classification.reclassify_after_training(activated={name})
            if enqueued:
                tasks = ", ".join(f"{n} for {what}" for what, n in enqueued.items())
                self.stdout.write(f"reclassification enqueued: {tasks} tasks")
        metrics = report.metrics
        if "coverage" in metrics:
            self.stdout.write(
                f"cross-validated: accuracy {metrics['accuracy']:.3f}; at the abstention "
                f"thresholds precision {metrics['precision_at_threshold']:.3f}, coverage "
                f"{metrics['coverage']:.1%}"
            )
