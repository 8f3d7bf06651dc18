"""What a post says: its sentiment, what it mentions, and the issues it is about.

Sentiment comes from the classifiers' `sentiment` model and the GPUs, architectures and ROCm
versions from their environment extraction; links to issues are explicit (a GitHub issue or PR
URL in the post) or suggested (the most similar open issues by text, from the `duplicates`
index, for a triager to confirm or reject). A model not trained yet is skipped; the post is
understood again when it changes. Issues that gain confirmed posts get their priority redone.
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from classifiers import artifacts
from classifiers.extraction import environment_extract
from config import linear_re
from triage.models import Issue, Post, PostIssueLink, Repository
from triage.services import priority, social

logger = logging.getLogger(__name__)

SUGGESTIONS = 3
UPDATE_BATCH = 500
MIN_SUGGESTION_SCORE = 0.25
ROCM_VERSION = linear_re.compile(r"\brocm\s*v?(\d+\.\d+(?:\.\d+)?)", linear_re.I)

# Parts of the stack a post can name, with the words that name them (case-insensitive).
COMPONENT_WORDS = {
    "HIP": ("hip", "hipcc", "hiperror"),
    "MIOpen": ("miopen",),
    "rocBLAS": ("rocblas",),
    "hipBLASLt": ("hipblaslt",),
    "composable_kernel": ("composable_kernel", "composable kernel", "ck kernel"),
    "RCCL": ("rccl", "all_reduce", "allreduce"),
    "PyTorch": ("pytorch", "torch"),
    "Triton": ("triton",),
    "vLLM": ("vllm",),
    "driver": ("amdgpu", "driver", "dkms"),
    "installation": ("install", "installer", "apt"),
    "tools": ("rocminfo", "amd-smi", "rocm-smi", "rocprof", "rocprofiler"),
}


@dataclass
class UnderstandReport:
    posts: int = 0
    sentiment: int = 0
    explicit_links: int = 0
    suggested_links: int = 0
    skipped: list[str] = field(default_factory=list)

    def summary(self) -> str:
        skipped = f"; skipped {', '.join(self.skipped)}" if self.skipped else ""
        return (
            f"{self.posts} posts understood ({self.sentiment} with sentiment, "
            f"{self.explicit_links} explicit and {self.suggested_links} suggested issue links)"
            f"{skipped}"
        )


# A word counts where no letter, digit or underscore comes before it ("hip" in "hipcc", not in
# "chip"): one pattern per component, the preceding character taken, not looked behind.
_COMPONENT_SET = linear_re.PatternSet(
    [
        "(?:^|[^a-z0-9_])(?:" + "|".join(linear_re.escape(word) for word in words) + ")"
        for words in COMPONENT_WORDS.values()
    ]
)


def components_in(text: str) -> list[str]:
    names = list(COMPONENT_WORDS)
    return [names[i] for i in _COMPONENT_SET.matching((text or "").lower())]


def post_mentions(text: str) -> dict:
    env = environment_extract("", text)
    return {
        "components": components_in(text),
        "gpus": env.gpus,
        "architectures": env.architectures,
        "rocm_versions": sorted(
            {m.group(1) for m in itertools.islice(ROCM_VERSION.finditer(text or ""), 100)}
        ),
    }


def _explicit_links(posts: list[Post]) -> dict[int, set[int]]:
    """{post pk: issue pks its URLs name}, for the issues we hold."""
    wanted = {post.pk: social.explicit_issue_references(post) for post in posts}
    names = {name for refs in wanted.values() for name, _ in refs}
    if not names:
        return {}
    repos = {
        full_name.lower(): pk
        for pk, full_name in Repository.objects.values_list("pk", "full_name")
        if full_name.lower() in names
    }
    numbers = {number for refs in wanted.values() for _, number in refs}
    known = {
        (repo_id, number): pk
        for pk, repo_id, number in Issue.objects.filter(
            repository_id__in=repos.values(), number__in=numbers
        ).values_list("pk", "repository_id", "number")
    }
    return {
        post_pk: {
            known[(repos[name], number)]
            for name, number in refs
            if name in repos and (repos[name], number) in known
        }
        for post_pk, refs in wanted.items()
    }


def _links_store(explicit: dict[int, set[int]], suggested: dict[int, list]) -> tuple[int, int]:
    """Write explicit links (confirmed) and suggestions; a triager's decision is never undone."""
    existing = {
        (link.post_id, link.issue_id): link
        for link in PostIssueLink.objects.filter(post_id__in=list(suggested))
    }
    create, update = [], []
    Kind, Status = PostIssueLink.Kind, PostIssueLink.Status

    def put(post_pk: int, issue_pk: int, kind: str, score: float | None = None) -> None:
        # a new link; an explicit one over a suggestion; a fresh score on an undecided suggestion
        link = existing.get((post_pk, issue_pk))
        if link is None:
            status = Status.CONFIRMED if kind == Kind.EXPLICIT else Status.SUGGESTED
            create.append(
                PostIssueLink(
                    post_id=post_pk, issue_id=issue_pk, kind=kind, status=status, score=score
                )
            )
        elif kind == Kind.EXPLICIT and link.kind != Kind.EXPLICIT:
            link.kind, link.status = Kind.EXPLICIT, Status.CONFIRMED
            update.append(link)
        elif kind == Kind.SUGGESTED and link.status == Status.SUGGESTED:
            link.score = score
            update.append(link)

    for post_pk, issue_pks in explicit.items():
        for issue_pk in issue_pks:
            put(post_pk, issue_pk, Kind.EXPLICIT)
    made_suggestions = 0
    for post_pk, pairs in suggested.items():
        for issue_pk, score in pairs:
            if issue_pk in explicit.get(post_pk, ()):
                continue
            made_suggestions += 1
            put(post_pk, issue_pk, Kind.SUGGESTED, score)
    PostIssueLink.objects.bulk_create(create, ignore_conflicts=True)
    PostIssueLink.objects.bulk_update(update, ["kind", "status", "score"])
    return sum(len(v) for v in explicit.values()), made_suggestions


def _posts_store(posts: list[Post], predictions) -> int:
    """Save what was understood, and the predicted sentiments except over a triager's decision;
    how many sentiments were written. Call it inside a transaction.

    The rows are locked and their decisions read again first: a decision taken while the model
    was predicting (a reclassification reads thousands of posts) is not overwritten, and one
    taken from now on waits for this transaction, then replaces the prediction."""
    fields = ["mentions", "component_tags", "understood_at"]
    if predictions is None:
        Post.objects.bulk_update(posts, fields, batch_size=UPDATE_BATCH)
        return 0
    rows = (
        Post.objects.select_for_update()
        .filter(pk__in=[p.pk for p in posts])
        .order_by("pk")  # one lock order for every writer of these rows
        .values_list("pk", "sentiment_corrected_at")
    )
    decided = {pk for pk, corrected_at in rows if corrected_at is not None}
    predicted = []
    for post, prediction in zip(posts, predictions, strict=True):
        if post.pk not in decided:
            post.sentiment = prediction.label
            post.sentiment_confidence = round(prediction.confidence, 4)
            predicted.append(post)
    kept = [p for p in posts if p.pk in decided]
    Post.objects.bulk_update(kept, fields, batch_size=UPDATE_BATCH)
    Post.objects.bulk_update(
        predicted, [*fields, "sentiment", "sentiment_confidence"], batch_size=UPDATE_BATCH
    )
    return len(predicted)


def _model(name: str, report: UnderstandReport):
    try:
        return artifacts.artifact_load(name)
    except artifacts.ArtifactError as exc:
        report.skipped.append(f"{name} ({exc})")
        return None


def posts_understand(*, ids: list[int]) -> UnderstandReport:
    report = UnderstandReport()
    posts = list(Post.objects.filter(pk__in=ids).only("id", "text", "entities", "author_id"))
    if not posts:
        return report
    report.posts = len(posts)
    texts = [p.text for p in posts]
    sentiment = _model("sentiment", report)
    predictions = sentiment.model.predict(texts, with_evidence=False) if sentiment else None
    index = _model("duplicates", report)
    similar = index.model.query(texts, k=SUGGESTIONS * 3) if index else [[] for _ in posts]
    open_ids = set(
        Issue.objects.filter(
            pk__in={i for pairs in similar for i, _ in pairs},
            state=Issue.State.OPEN,
            deleted_at__isnull=True,
        ).values_list("pk", flat=True)
    )
    now = timezone.now()
    for post in posts:
        mentions = post_mentions(post.text)
        post.mentions = mentions
        post.component_tags = "".join(f"|{c}|" for c in mentions["components"])[:500]
        post.understood_at = now
    explicit = _explicit_links(posts)
    suggested = {
        post.pk: [
            (issue_id, score)
            for issue_id, score in similar[position]
            if issue_id in open_ids and score >= MIN_SUGGESTION_SCORE
        ][:SUGGESTIONS]
        for position, post in enumerate(posts)
    }
    with transaction.atomic():
        report.sentiment = _posts_store(posts, predictions)
        report.explicit_links, report.suggested_links = _links_store(explicit, suggested)
    touched = set(
        PostIssueLink.objects.filter(
            post_id__in=[p.pk for p in posts], status=PostIssueLink.Status.CONFIRMED
        ).values_list("issue_id", flat=True)
    )
    if touched:
        priority.issues_prioritize(ids=sorted(touched))
    return report
