"""Predictions stored on issues, triagers' decisions on them, and (re)training from the database.

Each issue model (kind, component, symptom, severity) predicts in one batch per call (symptom
and severity by their rules too, so also without a trained model); the environment is
extracted by rules from the issue and its comments (the reporter's own outrank everyone else's),
again when comments change; the duplicates index answers the 5 most similar issues. A model
that has not been trained yet, or whose artifact cannot be loaded, is skipped (its prediction
stays absent: "not classified"), so classification never fails an ingestion. Priority is
recomputed after.

Comments get their sentiment from the `sentiment` model, in batches. When a retraining activates
a new version, the open issues (and, for sentiment, comments and recent posts) are classified
again by tasks on the classify queue, one per chunk of ids, so no task holds 100,000 issues.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from classifiers import artifacts, datasets, registry, training
from classifiers.extraction import CommentText, environment_extract
from classifiers.facts import IssueFacts, Reach
from classifiers.features import body_clean, issue_text
from classifiers.text_classifier import TrainingDataError
from config import linear_re
from triage.models import (
    Comment,
    Issue,
    IssuePrediction,
    Post,
    PredictionCorrection,
    TriageAction,
)
from triage.services import priority, training_data

logger = logging.getLogger(__name__)

ISSUE_MODELS = registry.names(predicts="issue")
# sentiment: its base CSV (settings.CLASSIFIER_SENTIMENT_CSV) and the triagers' corrections
TRAINED_FROM_DATABASE = registry.names(trained_from_database=True)
ISSUE_FIELDS = (
    *("id", "number", "title", "body", "repository__full_name"),
    *("author_id", "reactions", "reactions_total"),  # the reach that severity reads
)
# what a version was trained on, by source ("database (correction 3, label 120, rule 40)"): the
# decisions people made (triagers' corrections, maintainers' labels, labelled real reports)
DECISIONS_IN_SOURCE = linear_re.compile(r"\b(correction|label|gold) (\d+)")
DEMO_SOURCE = "demo"  # a version trained on the demo's synthetic data: its labels teach nothing
DUPLICATE_CANDIDATES = 5
MAX_FRESH_CANDIDATES = 5000
CLASSIFY_CHUNK = 500  # issues per classify task after a retraining (and per demo batch)
COMMENT_BATCH = 500  # comments per sentiment prediction
MAX_ENVIRONMENT_COMMENTS = 60  # per issue, oldest first, for the environment
POST_CHUNK = 500
REUNDERSTAND_POSTS_DAYS = 30  # a new sentiment or duplicates version re-reads this much of X
CLASSIFY_TASK = "triage.tasks.classify_issues"
COMMENTS_TASK = "triage.tasks.classify_comments"
POSTS_TASK = "triage.tasks.classify_posts"


class CorrectionError(ValueError):
    pass


@dataclass
class ClassifyReport:
    issues: int = 0
    predicted: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    prioritized: int = 0

    def summary(self) -> str:
        done = ", ".join(f"{k} {v}" for k, v in self.predicted.items()) or "no model"
        skipped = "; ".join(f"{k}: {v}" for k, v in self.skipped.items())
        text = f"{self.issues} issues classified ({done}), {self.prioritized} prioritized"
        return text + (f"; skipped {skipped}" if skipped else "")


def _load(name: str, report: ClassifyReport):
    try:
        return artifacts.artifact_load(name)
    except artifacts.NoActiveModel:
        report.skipped[name] = "not trained"
    except artifacts.ArtifactError as exc:
        logger.warning("classification skips %s: %s", name, exc)
        report.skipped[name] = str(exc)
    return None


def _row(issue_id: int, name: str, version: str, label: str, confidence: float, evidence, needs):
    return IssuePrediction(
        issue_id=issue_id,
        model_name=name,
        model_version=version,
        label=label[:255],
        confidence=confidence,
        evidence=evidence,
        needs_triage=needs,
        predicted_at=timezone.now(),
    )


def issues_classify(*, ids: list[int], models: tuple[str, ...] = ISSUE_MODELS) -> ClassifyReport:
    """Predict `models` (all the issue models, the environment and the duplicates by default;
    a subset predicts only those and the environment) for these issues, then prioritize them."""
    report = ClassifyReport()
    issues = list(
        Issue.objects.filter(pk__in=ids, is_pull_request=False, deleted_at__isnull=True)
        .select_related("repository")
        .prefetch_related("labels", "repository__former_names")
        .only(*ISSUE_FIELDS)
    )
    report.issues = len(issues)
    if not issues:
        priority.issues_prioritize(ids=ids)
        return report
    texts = [issue_text(i.title, i.body) for i in issues]
    rows: list[IssuePrediction] = []
    # decisions of triagers stand: a corrected prediction is not overwritten by the model
    decided = set(
        PredictionCorrection.objects.filter(issue_id__in=[i.id for i in issues]).values_list(
            "issue_id", "model_name"
        )
    )

    rows += _environment_rows(issues)
    report.predicted["environment"] = len(issues)

    facts = _issue_facts(issues, rows, decided)
    for name in models:
        if name != "duplicates":  # an index to query, not a model that predicts
            rows += _model_rows(name, issues, texts, facts, decided, report)

    asked = models == ISSUE_MODELS or "duplicates" in models
    index = _load("duplicates", report) if asked else None
    if index is not None:
        rows += _duplicate_rows(index, issues, texts, decided)
        report.predicted["duplicates"] = len(issues)

    IssuePrediction.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["issue", "model_name"],
        update_fields=[
            "model_version",
            "label",
            "confidence",
            "evidence",
            "needs_triage",
            "predicted_at",
        ],
    )
    report.prioritized = priority.issues_prioritize(ids=ids)
    return report


def _issue_facts(issues, rows, decided) -> dict[int, IssueFacts]:
    """Per issue, what the models with rules read: its labels, the environment just extracted
    (its rows among `rows`), its reach, and the labels triagers decided."""
    environments = {r.issue_id: r.evidence for r in rows if r.model_name == "environment"}
    reach = priority.reach_of_issues(issues=issues)
    facts = {
        issue.id: IssueFacts(
            title=issue.title or "",
            body=issue.body or "",
            labels=tuple(label.name for label in issue.labels.all()),
            environment=environments.get(issue.id) or {},
            reach=reach.get(issue.id, Reach()),
        )
        for issue in issues
    }
    for p in IssuePrediction.objects.filter(issue_id__in=list(facts)).only(
        "issue_id", "model_name", "label", "needs_triage"
    ):
        if (p.issue_id, p.model_name) in decided:
            facts[p.issue_id].predicted[p.model_name] = p.label
            facts[p.issue_id].unsure[p.model_name] = False
    return facts


def _model_rows(name, issues, texts, facts, decided, report) -> list[IssuePrediction]:
    """One model's predictions: its trained model's, through its rules when it has rules (then
    also without a trained model); a triager's decision is left as it is."""
    rules = getattr(registry.model_class(name), "rules_predict", None)
    loaded = _load(name, report)
    if loaded is None and rules is None:
        return []
    if loaded is None and report.skipped.get(name) == "not trained":
        del report.skipped[name]  # its rules speak
    predicted = _predict(loaded, issues, texts) if loaded else [None] * len(issues)
    corrections = _corrections_learned(loaded)
    version = loaded.version if loaded else "rules"
    rows = []
    for issue, p in zip(issues, predicted, strict=True):
        if (issue.id, name) in decided:
            continue
        if rules is not None:
            p = rules(facts[issue.id], p, corrections)
        facts[issue.id].predicted[name] = p.label
        facts[issue.id].unsure[name] = p.needs_triage
        evidence = {"terms": p.evidence, "probabilities": p.to_dict()["probabilities"]}
        rows.append(_row(issue.id, name, version, p.label, p.confidence, evidence, p.needs_triage))
    report.predicted[name] = len(issues)
    return rows


def _predict(loaded, issues, texts):
    """A model trained per repository (kind) predicts each issue with its repository's own
    model, known under the repository's name now or one it had before a rename."""
    own = getattr(loaded.model, "repository_models", None)
    if not own:
        return loaded.model.predict(texts)
    groups = []
    for issue in issues:
        names = issue.repository.known_names()
        groups.append(next((n for n in names if n.lower() in own), names[0]))
    return loaded.model.predict(texts, groups=groups)


def _corrections_learned(loaded) -> int:
    """How many people's decisions the loaded version was trained on: triagers' corrections,
    maintainers' labels and labelled real reports (its source says "database (correction 3,
    label 120, rule 40)", or "jsonl (gold 185)"); a version trained on the demo's synthetic
    issues counts only the corrections made since."""
    if loaded is None:
        return 0
    source = str(loaded.metadata.get("source", ""))
    demo = source.startswith(DEMO_SOURCE)
    return sum(
        int(match.group(2))
        for match in DECISIONS_IN_SOURCE.finditer(source)
        if not demo or match.group(1) == "correction"
    )


# --- the environment -----------------------------------------------------------------------


def _environment_rows(issues) -> list[IssuePrediction]:
    """The environment of each issue from its title, body, comments and labels, as a row."""
    ids = [issue.id for issue in issues]
    reporters, comments = _environment_comments(ids)
    labels: dict[int, list[str]] = {}
    for issue_id, name in Issue.labels.through.objects.filter(issue_id__in=ids).values_list(
        "issue_id", "label__name"
    ):
        labels.setdefault(issue_id, []).append(name)
    rows = []
    for issue in issues:
        env = environment_extract(
            issue.title,
            issue.body,
            comments=comments.get(issue.id, ()),
            reporter=reporters.get(issue.id, ""),
            labels=labels.get(issue.id, ()),
        )
        label = " ".join(env.architectures)
        rows.append(
            _row(issue.id, "environment", "rules", label, env.confidence, env.to_dict(), False)
        )
    return rows


def _environment_comments(issue_ids) -> tuple[dict[int, str], dict[int, list[CommentText]]]:
    """The reporter's login of each issue, and its comments (MAX_ENVIRONMENT_COMMENTS, oldest
    first), each marked as the reporter's or not."""
    authors = {
        pk: (author_id, login or "")
        for pk, author_id, login in Issue.objects.filter(pk__in=issue_ids).values_list(
            "pk", "author_id", "author__login"
        )
    }
    comments: dict[int, list[CommentText]] = {}
    rows = (
        Comment.objects.filter(issue_id__in=issue_ids, deleted_at__isnull=True)
        .order_by("issue_id", "created_at", "id")
        .values_list("issue_id", "author_id", "author__login", "body")
    )
    for issue_id, author_id, login, body in rows.iterator(chunk_size=COMMENT_BATCH):
        texts = comments.setdefault(issue_id, [])
        if len(texts) < MAX_ENVIRONMENT_COMMENTS:
            reporter = author_id is not None and author_id == authors[issue_id][0]
            texts.append(CommentText(body=body or "", author=login or "", by_reporter=reporter))
    return {pk: login for pk, (_, login) in authors.items()}, comments


def issues_environment_refresh(*, ids: list[int]) -> int:
    """The environment of these issues again, with their comments (after comments change); the
    issues whose environment changed are prioritized again. Returns how many changed."""
    issues = list(
        Issue.objects.filter(pk__in=ids, is_pull_request=False, deleted_at__isnull=True).only(
            "id", "title", "body"
        )
    )
    before = dict(
        IssuePrediction.objects.filter(
            issue_id__in=[i.id for i in issues], model_name="environment"
        ).values_list("issue_id", "evidence")
    )
    changed = [row for row in _environment_rows(issues) if before.get(row.issue_id) != row.evidence]
    for row in changed:
        IssuePrediction.objects.update_or_create(
            issue_id=row.issue_id,
            model_name="environment",
            defaults={
                f: getattr(row, f)
                for f in ("model_version", "label", "confidence", "evidence", "predicted_at")
            },
        )
    if changed:
        priority.issues_prioritize(ids=[row.issue_id for row in changed])
    return len(changed)


def _duplicate_rows(index, issues, texts, decided) -> list[IssuePrediction]:
    created = datetime.fromisoformat(index.metadata["created_at"])
    fresh = list(
        Issue.objects.filter(
            is_pull_request=False, deleted_at__isnull=True, first_seen_at__gte=created
        )
        .order_by("-first_seen_at")
        .values_list("id", "title", "body")[:MAX_FRESH_CANDIDATES]
    )
    answers = index.model.query(
        texts,
        k=DUPLICATE_CANDIDATES,
        exclude=[i.id for i in issues],
        extra_ids=[f[0] for f in fresh],
        extra_texts=[issue_text(f[1], f[2]) for f in fresh],
    )
    found = {pk for pairs in answers for pk, _ in pairs}
    refs = {
        row[0]: (f"{row[1]}#{row[2]}", row[3])
        for row in Issue.objects.filter(pk__in=found).values_list(
            "id", "repository__full_name", "number", "title"
        )
    }
    rows = []
    for issue, pairs in zip(issues, answers, strict=True):
        if (issue.id, "duplicates") in decided:
            continue
        candidates = [
            {"issue_id": pk, "reference": refs[pk][0], "title": refs[pk][1], "score": score}
            for pk, score in pairs
            if pk in refs
        ]
        top = candidates[0] if candidates else None
        rows.append(
            _row(
                issue.id,
                "duplicates",
                index.version,
                top["reference"] if top else "",
                top["score"] if top else 0.0,
                {"candidates": candidates},
                False,
            )
        )
    return rows


# --- triagers' decisions -------------------------------------------------------------------


def _valid_label(model_name: str, label: str) -> str:
    """The registry says what a model takes; an issue named as a reference must exist."""
    try:
        label = registry.label_validate(model_name, label)
    except registry.InvalidLabel as exc:
        raise CorrectionError(str(exc)) from None
    if registry.entry(model_name).correction == "reference":
        owner_name, number = registry.REFERENCE.match(label).groups()
        if not Issue.objects.filter(
            repository__full_name__iexact=owner_name, number=int(number)
        ).exists():
            raise CorrectionError("name an existing issue as OWNER/NAME#NUMBER")
    return label


@transaction.atomic
def prediction_correct(
    *, issue: Issue, model_name: str, label: str, user, github_login: str = ""
) -> PredictionCorrection:
    """Record a triager's decision (accepting the prediction when `label` equals it); a
    collaborator's comment command (`/kind bug`) is recorded alike, by its GitHub login."""
    label = _valid_label(model_name, label)
    current = IssuePrediction.objects.filter(issue=issue, model_name=model_name).first()
    correction = PredictionCorrection.objects.create(
        issue=issue,
        model_name=model_name,
        model_version=current.model_version if current else "",
        before=current.label if current else "",
        before_confidence=current.confidence if current else None,
        after=label,
        user=user,
        github_login=github_login,
    )
    evidence = dict(current.evidence) if current and isinstance(current.evidence, dict) else {}
    evidence["decided_by"] = (
        user.get_username() if user else (f"@{github_login}" if github_login else "")
    )
    IssuePrediction.objects.update_or_create(
        issue=issue,
        model_name=model_name,
        defaults={
            "label": label,
            "confidence": 1.0,
            "needs_triage": False,
            "evidence": evidence,
            "model_version": current.model_version if current else "",
            "predicted_at": timezone.now(),
        },
    )
    following = _following(model_name)
    if following:  # the severity follows from a corrected symptom
        issues_classify(ids=[issue.id], models=following)  # prioritizes too
    else:
        priority.issues_prioritize(ids=[issue.id])
    return correction


UNDO_WINDOW = timedelta(minutes=10)


class UndoError(ValueError):
    pass


def undoable_corrections(*, issue_ids: list[int], user) -> dict[int, PredictionCorrection]:
    """{issue id: the decision this user may still undo there}: their latest, within
    UNDO_WINDOW, that is still the latest decision of its model on the issue."""
    if not user or not user.is_authenticated:
        return {}
    since = timezone.now() - UNDO_WINDOW
    recent = PredictionCorrection.objects.filter(
        issue_id__in=issue_ids, created_at__gte=since
    ).order_by("created_at", "id")
    latest: dict[tuple[int, str], PredictionCorrection] = {}
    for row in recent:
        latest[(row.issue_id, row.model_name)] = row
    mine: dict[int, PredictionCorrection] = {}
    for (issue_id, _), row in latest.items():
        if row.user_id == user.pk and (issue_id not in mine or row.pk > mine[issue_id].pk):
            mine[issue_id] = row
    return mine


@transaction.atomic
def decision_undo(*, correction: PredictionCorrection, user) -> str:
    """Take back one's own decision: the decision goes (it no longer trains anything) and the
    prediction is made again as if it had not been; recorded as "decision.undo"."""
    if correction.pk not in {
        c.pk for c in undoable_corrections(issue_ids=[correction.issue_id], user=user).values()
    }:
        raise UndoError(
            "only your own latest decision on an issue can be undone, within "
            f"{int(UNDO_WINDOW.total_seconds() // 60)} minutes"
        )
    return _undo(correction=correction, user=user)


@transaction.atomic
def decisions_undo(*, corrections: list[PredictionCorrection], user) -> list[str]:
    """Take back several of one's own decisions on an issue at once (a bulk action's): each
    within UNDO_WINDOW and still the latest decision of its model there."""
    said = []
    since = timezone.now() - UNDO_WINDOW
    for correction in corrections:
        later = PredictionCorrection.objects.filter(
            issue_id=correction.issue_id, model_name=correction.model_name, pk__gt=correction.pk
        ).exists()
        if correction.user_id != user.pk or correction.created_at < since or later:
            raise UndoError(
                f"{correction.model_name}: decided again since, or more than "
                f"{int(UNDO_WINDOW.total_seconds() // 60)} minutes ago"
            )
        said.append(_undo(correction=correction, user=user))
    return said


def _undo(*, correction: PredictionCorrection, user) -> str:
    issue, model_name = correction.issue, correction.model_name
    TriageAction.objects.create(
        issue=issue,
        actor=user,
        action="decision.undo",
        before={"model": model_name, "before": correction.before, "after": correction.after},
    )
    correction.delete()
    if model_name == priority.OVERRIDE_MODEL:
        priority.issues_prioritize(ids=[issue.id])
        return "Priority override undone."
    decided = IssuePrediction.objects.filter(issue=issue, model_name=model_name).first()
    evidence = dict(decided.evidence) if decided and isinstance(decided.evidence, dict) else {}
    evidence.pop("decided_by", None)
    IssuePrediction.objects.filter(issue=issue, model_name=model_name).delete()
    issues_classify(ids=[issue.id], models=(model_name, *_following(model_name)))
    restored = IssuePrediction.objects.filter(issue=issue, model_name=model_name).first()
    if restored is None and correction.before:  # no model to ask again: what it said before
        restored = IssuePrediction.objects.create(
            issue=issue,
            model_name=model_name,
            model_version=correction.model_version,
            label=correction.before,
            confidence=correction.before_confidence or 0.0,
            needs_triage=True,
            evidence=evidence,
        )
        priority.issues_prioritize(ids=[issue.id])
    label = restored.label if restored else ""
    return f"{model_name} decision undone: back to {label or 'no prediction'}."


def _following(model_name: str) -> tuple[str, ...]:
    """The issue models whose rules read this one's label (their class's `follows`)."""
    return tuple(
        n for n in ISSUE_MODELS if model_name in getattr(registry.model_class(n), "follows", ())
    )


# --- training ------------------------------------------------------------------------------


@dataclass
class RetrainReport:
    reports: list = field(default_factory=list)
    classified: ClassifyReport | None = None
    enqueued: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        parts = [r.summary() for r in self.reports]
        if self.classified:
            parts.append(self.classified.summary())
        if self.enqueued:
            tasks = ", ".join(f"{n} {what}" for what, n in self.enqueued.items())
            parts.append(f"reclassification enqueued ({tasks} tasks)")
        return "; ".join(parts)


def classifier_train_from_database(
    *,
    model_name: str,
    force: bool = False,
    skip_if_unchanged: bool = False,
    origin: str = "database",
) -> training.TrainingReport:
    """`origin` names where the issues come from in the version's source: "database", or the
    demo's synthetic issues (DEMO_SOURCE), whose labels teach the rules nothing."""
    data = training_data.training_set(model_name=model_name)
    sources = ", ".join(f"{k} {v}" for k, v in sorted(data.sources.items()))
    return training.model_train(
        name=model_name,
        texts=data.texts,
        labels=data.labels,
        source=f"{origin} ({sources})",
        force=force,
        skip_if_unchanged=skip_if_unchanged,
        groups=data.groups or None,  # each issue's repository: kind trains one per repository
    )


def reclassify_after_training(*, activated) -> dict[str, int]:
    """Enqueue what a newly active version changes: {what: tasks enqueued}.

    Issue models (and the duplicates index) → every open issue; sentiment → the comments of
    the open issues; sentiment or duplicates → the posts of the last REUNDERSTAND_POSTS_DAYS."""
    activated = set(activated)
    enqueued: dict[str, int] = {}
    if activated & {*ISSUE_MODELS, *registry.names(predicts="similar")}:
        enqueued["issues"] = priority.chunks_enqueue(
            task_name=CLASSIFY_TASK, chunks=priority.open_issue_id_chunks(size=CLASSIFY_CHUNK)
        )
    if "sentiment" in activated:
        enqueued["comments"] = priority.chunks_enqueue(
            task_name=COMMENTS_TASK, chunks=priority.open_issue_id_chunks(size=CLASSIFY_CHUNK)
        )
    if activated & {"sentiment", "duplicates"}:
        since = timezone.now() - timedelta(days=REUNDERSTAND_POSTS_DAYS)
        posts = Post.objects.filter(created_at__gte=since).order_by("id")
        posts = posts.values_list("id", flat=True)
        enqueued["posts"] = priority.chunks_enqueue(
            task_name=POSTS_TASK, chunks=priority.id_chunks(posts, size=POST_CHUNK)
        )
    return enqueued


def classifiers_retrain(
    *, force: bool = False, reclassify: bool = True, progress=None, origin: str = "database"
) -> RetrainReport:
    """Retrain every database-trained model (weekly, from beat); unchanged data is skipped.

    A version that becomes active reaches the existing issues: they are classified again in
    chunks on the classify queue (unless `reclassify` is False). `progress(done, total, what)`
    before each model."""
    result = RetrainReport()
    for done, name in enumerate(TRAINED_FROM_DATABASE):
        if progress:
            progress(done, len(TRAINED_FROM_DATABASE), f"models trained ({name} now)")
        try:
            result.reports.append(
                classifier_train_from_database(
                    model_name=name, force=force, skip_if_unchanged=True, origin=origin
                )
            )
        except (TrainingDataError, datasets.CsvError) as exc:
            result.reports.append(training.TrainingReport(name=name, n_samples=0, reason=str(exc)))
    activated = {report.name for report in result.reports if report.activated}
    if reclassify and activated:
        result.enqueued = reclassify_after_training(activated=activated)
    return result


# --- sentiment of comments -------------------------------------------------------------------


@dataclass
class CommentSentimentReport:
    comments: int = 0
    version: str = ""
    skipped: str = ""

    def summary(self) -> str:
        if self.skipped:
            return f"comment sentiment skipped: {self.skipped}"
        return f"{self.comments} comments given their sentiment (sentiment {self.version})"


def _comment_batch_classify(loaded, batch: list[Comment]) -> None:
    predictions = loaded.model.predict([body_clean(c.body) for c in batch], with_evidence=False)
    for comment, prediction in zip(batch, predictions, strict=True):
        comment.sentiment = prediction.label[:16]
        comment.sentiment_confidence = round(prediction.confidence, 4)
        comment.sentiment_model_version = loaded.version[:64]
    Comment.objects.bulk_update(
        batch, ["sentiment", "sentiment_confidence", "sentiment_model_version"]
    )


def comments_classify(*, issue_ids: list[int]) -> CommentSentimentReport:
    """Give the comments of these issues their sentiment, COMMENT_BATCH at a time."""
    report = CommentSentimentReport()
    try:
        loaded = artifacts.artifact_load("sentiment")
    except artifacts.NoActiveModel:
        report.skipped = "sentiment not trained"
        return report
    except artifacts.ArtifactError as exc:
        logger.warning("comment sentiment skipped: %s", exc)
        report.skipped = str(exc)
        return report
    report.version = loaded.version
    comments = (
        Comment.objects.filter(issue_id__in=issue_ids, deleted_at__isnull=True)
        .exclude(body="")
        .only("id", "body")
        .order_by("id")
    )
    batch: list[Comment] = []
    for comment in comments.iterator(chunk_size=COMMENT_BATCH):
        batch.append(comment)
        if len(batch) == COMMENT_BATCH:
            _comment_batch_classify(loaded, batch)
            report.comments += len(batch)
            batch = []
    if batch:
        _comment_batch_classify(loaded, batch)
        report.comments += len(batch)
    return report


# --- the demo ------------------------------------------------------------------------------


def demo_train_and_classify(*, progress=None) -> RetrainReport:
    """load_demo's step: train the default models on the demo data's weak labels and the
    bundled synthetic sentiment set (`make demo` sets it as CLASSIFIER_SENTIMENT_CSV, so that
    the retraining trains sentiment with the triagers' decisions too), then classify every issue
    and comment, in chunks. `progress(done, total, what)` as it goes (load_demo's bar)."""
    from triage.services import demo  # the demo's own files; demo imports no classification

    result = classifiers_retrain(reclassify=False, progress=progress, origin=DEMO_SOURCE)
    if not settings.CLASSIFIER_SENTIMENT_CSV:  # no base set: the bundled one, not "not set"
        result.reports = [r for r in result.reports if r.name != "sentiment"]
        result.reports.append(demo.demo_sentiment_train())
    ids = Issue.objects.filter(is_pull_request=False).order_by("id").values_list("id", flat=True)
    total, count = ClassifyReport(), len(ids)
    for chunk in priority.id_chunks(ids, size=CLASSIFY_CHUNK):
        if progress:
            progress(total.issues, count, "issues classified")
        part = issues_classify(ids=chunk)
        total.issues += part.issues
        total.prioritized += part.prioritized
        total.skipped.update(part.skipped)
        for name, n in part.predicted.items():
            total.predicted[name] = total.predicted.get(name, 0) + n
        comments_classify(issue_ids=chunk)
    result.classified = total
    return result
