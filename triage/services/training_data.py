"""Training sets from the database: weak labels from labels, title prefixes and issue forms,
outranked by maintainers' corrections.

Label maps are per repository ("OWNER/NAME") with "*" for all; settings.CLASSIFIER_LABEL_MAPS is
merged over DEFAULT_LABEL_MAPS. Component classes come from the data: labels named
"project: X", the component labels listed for a repository, the issue form's
"### ROCm Component" section, a "[X]" title prefix, and a repository's own component
(ROCm/HIP is HIP); maintainers' corrections can add new ones.

What gave an issue its weak label is taken out of the text the model trains on: a title prefix
("[Feature]:", "Feature request:", "[MIOpen]") and, for the component model, the issue form's
"### ROCm Component" section. Left in, the model learns to read the prefix back (a demo kind
model cross-validated at 1.000) instead of learning from what the report says.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from django.conf import settings
from django.db.models import Prefetch

from classifiers import datasets
from classifiers.extraction import form_sections, issue_form_sections
from classifiers.registry import model_class
from classifiers.text_classifier import TrainingDataError
from config import linear_re
from triage.models import Issue, Label, Post, PredictionCorrection, SentimentCorrection

DEFAULT_LABEL_MAPS: dict[str, dict[str, dict[str, str]]] = {
    "kind": {
        "*": {
            "bug": "bug",
            "type: bug": "bug",
            "kind/bug": "bug",
            "feature request": "feature",
            "feature": "feature",
            "enhancement": "feature",
            "type: feature": "feature",
            "question": "question",
            "type: question": "question",
            "documentation": "docs",
            "docs": "docs",
            "type: docs": "docs",
            "performance": "performance",
            "perf": "performance",
        },
    },
    "kind_title_prefix": {
        "*": {
            "[issue]": "bug",
            "[bug]": "bug",
            "[feature]": "feature",
            "[feature request]": "feature",
            "[documentation]": "docs",
            "[docs]": "docs",
            "[question]": "question",
            "[performance]": "performance",
        },
    },
    "component": {
        "*": {},
        "ROCm/ROCm": {
            "rocblas": "rocblas",
            "miopen": "miopen",
            "rccl": "rccl",
            "hipblaslt": "hipblaslt",
            "driver": "driver",
            "installation": "installation",
        },
    },
    # a repository that is one component
    "component_repository": {
        "ROCm/HIP": {"*": "hip"},
        "triton-lang/triton": {"*": "triton"},
        "pytorch/pytorch": {"*": "pytorch"},
        "ROCm/composable_kernel": {"*": "composable_kernel"},
    },
}
PROJECT_LABEL = linear_re.compile(r"^(?:project|component|area):\s*(.+)$", linear_re.I)
TITLE_PREFIX = linear_re.compile(r"^\s*(\[[^\]]{2,40}\]):?")
COMPONENT_HEADING = "rocm component"
NOT_COMPONENTS = {
    "issue",
    "bug",
    "feature",
    "documentation",
    "docs",
    "question",
    "amd",
    "nvidia",
    "feature request",
    "performance",
    "rfc",
    "wip",
    "draft",
}


def label_maps() -> dict:
    maps = {
        name: {repo: dict(m) for repo, m in per.items()} for name, per in DEFAULT_LABEL_MAPS.items()
    }
    for name, per in getattr(settings, "CLASSIFIER_LABEL_MAPS", {}).items():
        for repo, mapping in per.items():
            maps.setdefault(name, {}).setdefault(repo, {}).update(
                {k.lower(): v for k, v in mapping.items()}
            )
    return maps


def _mapping(maps: dict, name: str, repo: str) -> dict[str, str]:
    per = maps.get(name, {})
    merged = {k.lower(): v for k, v in per.get("*", {}).items()}
    merged.update({k.lower(): v for k, v in per.get(repo, {}).items()})
    return merged


# Each labeller answers (label, source): the source is one of these names, counted per training
# set ("database (correction 3, label 120, title prefix 40)").
SOURCE_CORRECTION = "correction"
SOURCE_LABEL = "label"
SOURCE_TITLE_PREFIX = "title prefix"
SOURCE_ISSUE_FORM = "issue form"
SOURCE_REPOSITORY = "repository"
SOURCE_RULE = "rule"


def kind_weak_label(issue: Issue, maps: dict) -> tuple[str, str]:
    repo = issue.repository.full_name
    by_label = _mapping(maps, "kind", repo)
    for label in issue.labels.all():
        if label.name_key in by_label:
            return by_label[label.name_key], SOURCE_LABEL
    prefix = TITLE_PREFIX.match(issue.title or "")
    if prefix:
        key = prefix.group(1).lower()
        by_prefix = _mapping(maps, "kind_title_prefix", repo)
        if key in by_prefix:
            return by_prefix[key], SOURCE_TITLE_PREFIX
    return "", ""


def component_weak_label(issue: Issue, maps: dict) -> tuple[str, str]:
    repo = issue.repository.full_name
    listed = _mapping(maps, "component", repo)
    for label in issue.labels.all():
        project = PROJECT_LABEL.match(label.name)
        if project:
            return project.group(1).strip().lower(), SOURCE_LABEL
        if label.name_key in listed:
            return listed[label.name_key], SOURCE_LABEL
    form = issue_form_sections(issue.body).get("rocm component", "")
    if form:
        return form.splitlines()[0].strip().lower()[:100], SOURCE_ISSUE_FORM
    prefix = TITLE_PREFIX.match(issue.title or "")
    if prefix:
        name = prefix.group(1)[1:-1].strip().lower()
        if name not in NOT_COMPONENTS:
            return name, SOURCE_TITLE_PREFIX
    whole = _mapping(maps, "component_repository", repo).get("*")
    if whole:
        return whole, SOURCE_REPOSITORY
    return "", ""


def _label_word_prefix(maps: dict) -> linear_re.Pattern:
    """Label words opening a title ("Feature request:", "Docs -", "Question:"): the words of
    the title-prefix map without their brackets."""
    words = {
        key.strip("[] ").lower()
        for per in maps.get("kind_title_prefix", {}).values()
        for key in per
    }
    alternatives = "|".join(linear_re.escape(w) for w in sorted(words, key=len, reverse=True) if w)
    return linear_re.compile(rf"^\s*(?:{alternatives})\s*[:\-–]\s*", linear_re.I)


def training_title(title: str, label_words: linear_re.Pattern) -> str:
    """The title without the prefixes that weak labels are read from ("[Issue]: [MIOpen] x")."""
    title = title or ""
    for _ in range(3):
        stripped = label_words.sub("", TITLE_PREFIX.sub("", title, count=1), count=1).strip()
        if stripped == title:
            break
        title = stripped
    return title


def training_text(cls, issue: Issue, *, model_name: str, label_words: linear_re.Pattern) -> str:
    body = issue.body or ""
    if model_name == "component":
        body = _without_sections(body, COMPONENT_HEADING)
    return cls.text_of({"title": training_title(issue.title, label_words), "body": body})


def _without_sections(body: str, heading: str) -> str:
    """The body without its sections under that heading (the answer the model is to learn)."""
    kept, position = [], 0
    for section in form_sections(body):
        if section.name.lower() == heading:
            kept.append(body[position : section.start])
            position = section.end
    return "".join(kept) + body[position:]


WEAK_LABELLERS = {
    "kind": kind_weak_label,
    "component": component_weak_label,
}


def rule_weak_labeller(cls):
    """The weak labeller of a model with rules of its own (`weak_label(title, body, labels)` on
    its class, classifiers.registry), or None."""
    rules = getattr(cls, "weak_label", None)
    if rules is None:
        return None

    def labeller(issue: Issue, maps: dict) -> tuple[str, str]:
        labels = tuple(label.name for label in issue.labels.all())
        return rules(issue.title or "", issue.body or "", labels), SOURCE_RULE

    return labeller


@dataclass
class TrainingSet:
    model_name: str
    texts: list[str] = field(default_factory=list)
    labels: list = field(default_factory=list)
    issue_ids: list[int] = field(default_factory=list)
    sources: Counter = field(default_factory=Counter)

    def __len__(self) -> int:
        return len(self.texts)


def _latest_decisions(decisions, key: str) -> dict[int, str]:
    """{key: label} of the latest of these decisions (corrections) per key."""
    rows = decisions.order_by("created_at", "id").values_list(key, "after")
    return dict(rows.iterator())  # in time order: the latest per key stays


def latest_corrections(model_name: str) -> dict[int, str]:
    """{issue id: label} of the latest decision per issue (accepting counts as confirming)."""
    return _latest_decisions(PredictionCorrection.objects.filter(model_name=model_name), "issue_id")


def _issues():
    return (
        Issue.objects.filter(is_pull_request=False, deleted_at__isnull=True)
        .select_related("repository")
        .prefetch_related(Prefetch("labels", queryset=Label.objects.only("name", "name_key")))
        .only("id", "title", "body", "repository__full_name")
        .order_by("id")
    )


SOURCE_CSV = "csv"


class NoSentimentBase(TrainingDataError):
    """The sentiment model is trained from the database only on top of a base set."""


def sentiment_training_set() -> TrainingSet:
    """The base set of settings.CLASSIFIER_SENTIMENT_CSV (columns text, label) with triagers'
    latest decision per post on top; a post whose text is also a base row replaces that row.

    Without the base set nothing is trained from the database: a few dozen corrected posts
    alone would make a model that replaces one trained on thousands of texts."""
    path = settings.CLASSIFIER_SENTIMENT_CSV
    if not path:
        raise NoSentimentBase(
            "sentiment: CLASSIFIER_SENTIMENT_CSV is not set; the database holds only triagers' "
            "corrections, which train the model on top of that base set (or use --csv)"
        )
    base = datasets.labelled_csv_read(path, name="sentiment")
    latest = _latest_decisions(SentimentCorrection.objects.all(), "post_id")
    corrected = dict(Post.objects.filter(pk__in=latest).values_list("pk", "text"))
    texts = {corrected[pk]: latest[pk] for pk in sorted(corrected)}
    result = TrainingSet(model_name="sentiment")
    for text, label in zip(base.texts, base.labels, strict=True):
        if text not in texts:
            result.texts.append(text)
            result.labels.append(label)
            result.sources[SOURCE_CSV] += 1
    for text, label in texts.items():
        result.texts.append(text)
        result.labels.append(label)
        result.sources[SOURCE_CORRECTION] += 1
    return result


def training_set(*, model_name: str) -> TrainingSet:
    if model_name == "sentiment":
        return sentiment_training_set()
    cls = model_class(model_name)
    result = TrainingSet(model_name=model_name)
    if not getattr(cls, "needs_labels", True):  # the duplicates index: every issue, by id
        for issue in _issues().iterator(chunk_size=2000):
            result.texts.append(cls.text_of({"title": issue.title, "body": issue.body}))
            result.labels.append(issue.id)
            result.issue_ids.append(issue.id)
        result.sources["issues"] = len(result.texts)
        return result
    labeller = WEAK_LABELLERS.get(model_name) or rule_weak_labeller(cls)
    if labeller is None:
        raise ValueError(f"{model_name} has no training data in the database; use --csv")
    maps = label_maps()
    label_words = _label_word_prefix(maps)
    corrected = latest_corrections(model_name)
    for issue in _issues().iterator(chunk_size=2000):
        if issue.id in corrected:
            label, source = corrected[issue.id], SOURCE_CORRECTION
        else:
            label, source = labeller(issue, maps)
        if not label:
            continue
        text = training_text(cls, issue, model_name=model_name, label_words=label_words)
        result.texts.append(text)
        result.labels.append(label)
        result.issue_ids.append(issue.id)
        result.sources[source] += 1
    return result
