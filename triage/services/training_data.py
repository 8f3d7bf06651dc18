"""Training sets from the database: weak labels from labels, title prefixes and issue forms,
outranked by maintainers' corrections.

Label maps are per repository ("OWNER/NAME") with "*" for all; settings.CLASSIFIER_LABEL_MAPS is
merged over DEFAULT_LABEL_MAPS. Repository names are compared as GitHub compares them, in any
case (a map for "ROCm/HIP" is the map of ROCm/hip), and a renamed repository keeps the maps of
its former names. Component classes come from the data: labels named "project: X", the
component labels listed for a repository, the issue form's "### ROCm Component" section, a
"[X]" title tag, and a repository's own component (ROCm/HIP is HIP); maintainers' corrections
can add new ones. A title tag that names where the issue happens, not what part of the stack
(a GPU, an architecture or a code name: "[gfx90a]", "[MI300X]", "[Navi21]", "[Strix Halo]"; a
version; an operating system), is never a component: environment_title_tags() gives those to
whoever reads the environment, and "[gfx90a][COMGR]" is a COMGR issue.

Weak labels are hints, not truth. "[Issue]:" is the ROCm issue form's prefix, whatever the
report is: an issue filed through it (or "[Bug]:") whose title asks a question ("Is there a ROCm
version that supports gfx1151?", "How do I ...", "Does X support Y"), or whose description's
first sentence does, is a question; one that asks about a failure ("Why does X crash?") gets no
weak label at all.

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

# Labels that name a kind of report; the same report kinds are symptoms too (docs, feature,
# question, performance), which the symptom map adds to its failures' labels.
KIND_LABELS = {
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
}
DEFAULT_LABEL_MAPS: dict[str, dict[str, dict[str, str]]] = {
    "kind": {"*": {"bug": "bug", "type: bug": "bug", "kind/bug": "bug", **KIND_LABELS}},
    # a model with rules of its own learns from the maintainers' labels first, the rules after
    "symptom": {
        "*": {
            **KIND_LABELS,
            "build": "build",
            "build failure": "build",
            "installation": "install",
            "install": "install",
            "packaging": "install",
            "crash": "crash",
            "hang": "hang",
            "correctness": "wrong_result",
            "accuracy": "wrong_result",
        },
    },
    # a tracker's own severity labels, if it has them (settings.CLASSIFIER_LABEL_MAPS adds them:
    # {"severity": {"ROCm/ROCm": {"sev: blocker": "critical"}}}); none by default
    "severity": {"*": {}},
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
TITLE_TAG = linear_re.compile(r"\s*\[([^\[\]]{1,40})\]\s*:?")
MAX_TITLE_TAGS = 6
# A tag naming where an issue happens, not what part of the stack it hits: a gfx target, an
# Instinct or Radeon product or model number, a GPU or APU code name, a ROCm version, an OS.
ENVIRONMENT_TAG = linear_re.compile(
    r"\bgfx[0-9a-f]{1,4}|\bmi\s?\d{2,3}[a-z]{0,2}\b"
    r"|\b(?:radeon|instinct|ryzen|apu|igpu|dgpu|fiji|ellesmere|aldebaran|arcturus|strix|krackan"
    r"|phoenix|hawk\s?point|rembrandt|renoir|cezanne|lucienne|mendocino|raphael|raven|picasso)\b"
    r"|\b(?:navi|vega|polaris|rdna|cdna)\s?\d*\b"
    r"|\b(?:rx|w|v|r|pro)\s?\d{3,4}\b|\b\d{3,4}\s?(?:xtx|xt|gre|hs|hx|m|s|u)\b"
    r"|^\s*(?:rocm\s*[-_]?\s*)?v?\d+(?:\.\d+)+\s*$|\brocm\s*[-_]?\s*v?\d"
    r"|\b(?:windows|linux|ubuntu|rhel|sles|centos|fedora|debian|wsl2?|macos)\b",
    linear_re.I,
)
# "[Issue]:" on a question: the words a question opens with; a failure it asks about
QUESTION_OPENER = linear_re.compile(
    r"^(?:is|are|was|were|does|do|did|can|could|how|what|which|why|when|where|who|will|would"
    r"|should|has|have|any)\s+(\S+)",
    linear_re.I,
)
FAILURE_WORDS = linear_re.compile(
    r"\b(?:crash\w*|segfault\w*|segmentation|core\s+dump\w*|abort\w*|hang|hangs|hung|hanging"
    r"|freez\w*|frozen|stuck|deadlock\w*|errors?|fail\w*|broken|wrong|incorrect|nan|nans"
    r"|exceptions?|fault\w*|illegal|regress\w*|slow\w*|time[sd]?\s?out|not\s+work\w*"
    r"|doesn'?t\s+work|won'?t)\b",
    linear_re.I,
)
SENTENCE_END = linear_re.compile(r"[.!?](?:\s|$)")
MAX_SENTENCE = 300
MAX_CLEAN_SENTENCE_TEXT = 4000  # a description's first sentence is near its start
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
    """DEFAULT_LABEL_MAPS with settings.CLASSIFIER_LABEL_MAPS merged over it, repository and
    label names lower-cased: GitHub compares both in any case."""
    maps: dict[str, dict[str, dict[str, str]]] = {}
    for source in (DEFAULT_LABEL_MAPS, getattr(settings, "CLASSIFIER_LABEL_MAPS", {})):
        for name, per in source.items():
            for repo, mapping in per.items():
                maps.setdefault(name, {}).setdefault(repo.strip().lower(), {}).update(
                    {k.lower(): v for k, v in mapping.items()}
                )
    return maps


def repository_label_map(maps: dict, name: str, repository) -> dict[str, str]:
    """The map `name` of a repository: "*", with the maps written for the repository over it,
    under its former names first and its name now last (it wins)."""
    per = maps.get(name, {})
    merged = dict(per.get("*", {}))
    for known in reversed(repository.known_names()):
        merged.update(per.get(known.lower(), {}))
    return merged


def title_tags(title: str) -> list[str]:
    """The bracket tags opening a title: "[Issue]: [gfx90a][COMGR] x" is Issue, gfx90a, COMGR."""
    tags, position = [], 0
    while len(tags) < MAX_TITLE_TAGS:
        found = TITLE_TAG.match(title or "", position)
        if found is None:
            break
        tags.append(found.group(1).strip())
        position = found.end()
    return tags


def environment_title_tags(title: str) -> list[str]:
    """The title's tags that name the environment (a GPU, an architecture or code name, a
    version, an OS), for the environment extraction: never component classes."""
    return [tag for tag in title_tags(title) if ENVIRONMENT_TAG.search(tag)]


def question_shape(title: str, body: str) -> str:
    """ "question" when the report asks: its title (past its tags) ends with "?" or opens with
    a question word, or the first sentence of its description ends with "?"; "unsure" when
    the question is about a failure (no weak label then); "" when it does not ask."""
    title = TITLE_PREFIX.sub("", title or "").strip()
    while TITLE_PREFIX.match(title):
        title = TITLE_PREFIX.sub("", title, count=1).strip()
    if _asks(title):
        return "unsure" if FAILURE_WORDS.search(title) else "question"
    sentence = _first_sentence(body)
    if not sentence.endswith("?") or FAILURE_WORDS.search(title):
        return ""  # no question, or a failure reported with a question after it
    return "unsure" if FAILURE_WORDS.search(sentence) else "question"


def _asks(title: str) -> bool:
    opener = QUESTION_OPENER.match(title)
    return title.endswith("?") or (opener is not None and opener.group(1).lower() != "not")


def _first_sentence(body: str) -> str:
    """The first sentence of the issue form's problem description, or of the body."""
    text = issue_form_sections(body or "").get("problem description") or body or ""
    for line in text[:MAX_CLEAN_SENTENCE_TEXT].splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "_No response_", "<!--", ">", "```")):
            end = SENTENCE_END.search(line[:MAX_SENTENCE])
            return line[: end.start() + 1] if end else line[:MAX_SENTENCE]
    return ""


# Each labeller answers (label, source): the source is one of these names, counted per training
# set ("database (correction 3, label 120, title prefix 40)").
SOURCE_CORRECTION = "correction"
SOURCE_LABEL = "label"
SOURCE_TITLE_PREFIX = "title prefix"
SOURCE_ISSUE_FORM = "issue form"
SOURCE_REPOSITORY = "repository"
SOURCE_RULE = "rule"
SOURCE_QUESTION = "question-shaped"


def kind_weak_label(issue: Issue, maps: dict) -> tuple[str, str]:
    repository = issue.repository
    by_label = repository_label_map(maps, "kind", repository)
    for label in issue.labels.all():
        if label.name_key in by_label:
            return by_label[label.name_key], SOURCE_LABEL
    prefix = TITLE_PREFIX.match(issue.title or "")
    if prefix:
        kind = repository_label_map(maps, "kind_title_prefix", repository).get(
            prefix.group(1).lower()
        )
        if kind == "bug":  # the reporter chose the form; what the report says may differ
            shape = question_shape(issue.title, issue.body)
            if shape:
                return ("question", SOURCE_QUESTION) if shape == "question" else ("", "")
        if kind:
            return kind, SOURCE_TITLE_PREFIX
    return "", ""


def _title_component(title: str) -> str:
    """The first title tag that names a part of the stack ("[Issue]: [gfx90a][COMGR]": comgr)."""
    for tag in title_tags(title):
        name = tag.lower()
        if len(name) >= 2 and name not in NOT_COMPONENTS and not ENVIRONMENT_TAG.search(tag):
            return name
    return ""


def component_weak_label(issue: Issue, maps: dict) -> tuple[str, str]:
    repository = issue.repository
    listed = repository_label_map(maps, "component", repository)
    for label in issue.labels.all():
        project = PROJECT_LABEL.match(label.name)
        if project:
            return project.group(1).strip().lower(), SOURCE_LABEL
        if label.name_key in listed:
            return listed[label.name_key], SOURCE_LABEL
    form = issue_form_sections(issue.body).get("rocm component", "")
    if form:
        return form.splitlines()[0].strip().lower()[:100], SOURCE_ISSUE_FORM
    name = _title_component(issue.title)
    if name:
        return name, SOURCE_TITLE_PREFIX
    whole = repository_label_map(maps, "component_repository", repository).get("*")
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
    its class, classifiers.registry), or None: a maintainer's label that the model's label map
    names first (a "documentation" label is a docs report, whatever the rules read), the rules
    after."""
    rules = getattr(cls, "weak_label", None)
    if rules is None:
        return None

    def labeller(issue: Issue, maps: dict) -> tuple[str, str]:
        by_label = repository_label_map(maps, cls.name, issue.repository)
        for label in issue.labels.all():
            if label.name_key in by_label:
                return by_label[label.name_key], SOURCE_LABEL
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
    groups: list[str] = field(default_factory=list)  # each issue's repository (OWNER/NAME)

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
        .prefetch_related(
            Prefetch("labels", queryset=Label.objects.only("name", "name_key")),
            "repository__former_names",
        )
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
        result.groups.append(issue.repository.full_name)
        result.sources[source] += 1
    return result
