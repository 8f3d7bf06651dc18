"""Priority 0-100 of every open issue, as a sum of explained parts.

Parts (default maximum points): kind (15), severity (25), reach (20: distinct commenters, "+1"
comments, GitHub reactions and confirmed posts on X), regression signals (10), affected
architectures (10, datacenter parts higher), time without a maintainer response (15), and the
release train (5): whatever the functions named in config/wiring.py's PRIORITY_PARTS answer, each
`fn(*, issue_ids: list[int]) -> {issue id: (points, why)}` (later stages plug in there; triage
never imports them), added up and kept within 0..release_train_max. The defaults add up to
100; settings.PRIORITY_WEIGHTS overrides them. A total over 100 shows a negative "capped at
100" part, one under 0 a "floor" part, and a triager's override an "override" part, so the
parts always add up to the stored score.

"Time without a maintainer response" grows by itself, so beat recomputes every open issue's
priority hourly (`open_issues_reprioritize`, on the classify queue, in chunks).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import Count
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.module_loading import import_string

from classifiers.facts import Reach
from config import linear_re, wiring
from triage.models import (
    Comment,
    Issue,
    IssuePrediction,
    IssuePriority,
    PostIssueLink,
    PredictionCorrection,
)

logger = logging.getLogger(__name__)

DEFAULT_WEIGHTS: dict = {
    "kind": {"bug": 15, "performance": 12, "feature": 5, "question": 3, "docs": 2},
    "severity": {"critical": 25, "high": 18, "medium": 10, "low": 3},
    "reach_per_commenter": 3,
    "reach_per_plus_one": 2,
    "reach_per_post": 1,
    "reach_per_plus_one_reaction": 1,
    "reach_per_reaction": 0.5,
    "reach_max": 20,
    "regression": 10,
    "architecture": {
        "gfx950": 10,
        "gfx942": 10,
        "gfx90a": 8,
        "gfx908": 6,
        "gfx1151": 5,
        "*": 4,
    },
    "waiting_per_day": 1,
    "waiting_max": 15,
    "release_train_max": 5,
}
MAINTAINER_ASSOCIATIONS = {"OWNER", "MEMBER", "COLLABORATOR"}
# A triager's override is a PredictionCorrection of this "model": before and after are scores
# (after "" clears it), so it carries who, when and what it replaced like any other decision.
OVERRIDE_MODEL = "priority"
REPRIORITIZE_TASK = "triage.tasks.classify_prioritize_issues"
REPRIORITIZE_CHUNK = 2000
REACTION_CONTENTS = ("+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes")
# a comment made only of "+1", "same here", "me too", "also affected" ... ("+1, same here!")
PLUS_ONE = linear_re.compile(
    r"^(?:[\s.,!:]*(?:\+1|👍|same(?: here| issue| problem)?|me too|also affected|"
    r"having the same (?:issue|problem)))+[\s.,!:]*$",
    linear_re.I,
)
REGRESSION = linear_re.compile(
    r"regression|used to work|worked (?:fine |well )?(?:in|with|on|before)|after upgrad|"
    r"no longer work|since (?:rocm|version|v)\s*\d",
    linear_re.I,
)


def weights() -> dict:
    merged = {k: (dict(v) if isinstance(v, dict) else v) for k, v in DEFAULT_WEIGHTS.items()}
    for key, value in getattr(settings, "PRIORITY_WEIGHTS", {}).items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key].update(value)
        else:
            merged[key] = value
    return merged


class OverrideError(ValueError):
    pass


@dataclass(frozen=True)
class Override:
    score: int
    by: str
    at: str


def _part(name: str, points: int, why: str) -> dict:
    return {"name": name, "points": int(points), "why": why}


def _reactions(issue: Issue) -> tuple[int, int]:
    """('+1' reactions, other reactions) of the issue as GitHub counts them."""
    reactions = issue.reactions if isinstance(issue.reactions, dict) else {}

    def count(key: str) -> int:
        try:
            return max(0, int(reactions.get(key) or 0))
        except (TypeError, ValueError):
            return 0

    thumbs = count("+1")
    total = max(issue.reactions_total or 0, sum(count(k) for k in REACTION_CONTENTS))
    return thumbs, max(0, total - thumbs)


def priority_parts(
    *,
    issue: Issue,
    predictions: dict[str, IssuePrediction],
    comments: list[tuple[int | None, str, str]],
    w: dict,
    now=None,
    linked_posts: int = 0,
    extra: tuple[float, str] | None = None,
    override: Override | None = None,
) -> list[dict]:
    """The parts for one issue. `comments`: (author id, author association, body) each;
    `extra`: (points, why) of the release train from wiring.PRIORITY_PARTS."""
    now = now or timezone.now()
    parts = []

    kind = predictions.get("kind")
    if kind and kind.label:
        note = " (needs triage)" if kind.needs_triage else ""
        parts.append(_part("kind", w["kind"].get(kind.label, 0), f"{kind.label}{note}"))
    else:
        parts.append(_part("kind", 0, "not classified"))

    severity = predictions.get("severity")
    if severity and severity.label:
        rule = next((e.get("rule") for e in _evidence_list(severity) if "rule" in e), "")
        why = severity.label + (f" ({rule})" if rule else "")
        parts.append(_part("severity", w["severity"].get(severity.label, 0), why))
    else:
        parts.append(_part("severity", 0, "not classified"))

    others, plus_ones, thumbs, reactions = _reach_counts(issue, comments)
    reach = min(
        w["reach_max"],
        round(
            others * w["reach_per_commenter"]
            + plus_ones * w["reach_per_plus_one"]
            + thumbs * w["reach_per_plus_one_reaction"]
            + reactions * w["reach_per_reaction"]
            + linked_posts * w["reach_per_post"]
        ),
    )
    why = (
        f"{others} other commenters, {plus_ones} '+1' comments, {thumbs} '+1' reactions, "
        f"{reactions} other reactions, {linked_posts} linked posts on X"
    )
    parts.append(_part("reach", reach, why))

    text = f"{issue.title}\n{issue.body}"
    labelled = any("regression" in label.name_key for label in issue.labels.all())
    match = REGRESSION.search(text)
    if labelled or match:
        why = "regression label" if labelled else f"text says {match.group(0)!r}"
        parts.append(_part("regression", w["regression"], why))
    else:
        parts.append(_part("regression", 0, "no regression signal"))

    environment = predictions.get("environment")
    archs = set(environment.label.split()) if environment and environment.label else set()
    archs |= {lb.name_key for lb in issue.labels.all() if lb.name_key.startswith("gfx")}
    arch_weights = w["architecture"]
    if archs:
        best = max(archs, key=lambda a: arch_weights.get(a, arch_weights.get("*", 0)))
        points = arch_weights.get(best, arch_weights.get("*", 0))
        parts.append(_part("architecture", points, ", ".join(sorted(archs))))
    else:
        parts.append(_part("architecture", 0, "no architecture named"))

    answered = any(assoc in MAINTAINER_ASSOCIATIONS for _, assoc, _ in comments)
    if answered:
        parts.append(_part("waiting", 0, "a maintainer has responded"))
    else:
        days = max(0, (now - issue.created_at).days)
        points = min(w["waiting_max"], days * w["waiting_per_day"])
        parts.append(_part("waiting", points, f"{days} days without a maintainer response"))

    parts.append(_release_train_part(extra, w["release_train_max"]))

    total = sum(p["points"] for p in parts)
    if override is not None:
        why = f"set to {override.score} by {override.by} on {override.at} (computed {total})"
        parts.append(_part("override", override.score - total, why))
    elif total > 100:
        parts.append(_part("cap", 100 - total, "capped at 100"))
    elif total < 0:
        parts.append(_part("floor", -total, "floored at 0"))
    return parts


def _reach_counts(issue: Issue, comments) -> tuple[int, int, int, int]:
    """(distinct other commenters, "+1" comments, "+1" reactions, other reactions)."""
    others = {a for a, _, _ in comments if a is not None and a != issue.author_id}
    plus_ones = sum(1 for _, _, body in comments if PLUS_ONE.match(body or ""))
    thumbs, reactions = _reactions(issue)
    return len(others), plus_ones, thumbs, reactions


def _comments_of(issue_ids: list[int]) -> dict[int, list[tuple[int | None, str, str]]]:
    comments = defaultdict(list)
    for issue_id, author_id, assoc, body in Comment.objects.filter(
        issue_id__in=issue_ids, deleted_at__isnull=True
    ).values_list("issue_id", "author_id", "author_association", "body"):
        comments[issue_id].append((author_id, assoc, body))
    return comments


def _linked_posts(issue_ids: list[int]) -> dict[int, int]:
    return dict(
        PostIssueLink.objects.filter(issue_id__in=issue_ids, status=PostIssueLink.Status.CONFIRMED)
        .values("issue_id")
        .annotate(n=Count("post_id"))
        .values_list("issue_id", "n")
    )


def _confirmed_duplicates(issues: list[Issue]) -> dict[int, int]:
    """{issue id: how many other issues triagers confirmed as its duplicates}."""
    ids = {f"{i.repository.full_name}#{i.number}".lower(): i.id for i in issues}
    decisions = PredictionCorrection.objects.filter(model_name="duplicates")
    naming = decisions.annotate(named=Lower("after")).filter(named__in=list(ids))
    latest = {  # the latest decision of each issue that ever named one of these
        issue_id: after.lower()
        for issue_id, after in decisions.filter(issue_id__in=naming.values("issue_id"))
        .order_by("created_at", "id")
        .values_list("issue_id", "after")
    }
    found = defaultdict(set)
    for issue_id, after in latest.items():
        if after in ids and ids[after] != issue_id:
            found[ids[after]].add(issue_id)
    return {issue_id: len(others) for issue_id, others in found.items()}


def reach_of_issues(*, issues: list[Issue]) -> dict[int, Reach]:
    """The reach of each issue, as its severity reads it (issues with their repository)."""
    ids = [i.id for i in issues]
    comments, posts = _comments_of(ids), _linked_posts(ids)
    duplicates = _confirmed_duplicates(issues)
    reach = {}
    for issue in issues:
        others, plus_ones, thumbs, reactions = _reach_counts(issue, comments.get(issue.id, []))
        reach[issue.id] = Reach(
            commenters=others,
            plus_ones=plus_ones + thumbs,
            reactions=reactions,
            duplicates=duplicates.get(issue.id, 0),
            posts=posts.get(issue.id, 0),
        )
    return reach


def _release_train_part(extra: tuple[float, str] | None, most: int) -> dict:
    if extra is None:
        return _part("release_train", 0, "no release train linked")
    points, why = extra
    kept = min(max(round(points), 0), most)
    if kept != round(points):
        why = f"{why} (kept within 0..{most})"
    return _part("release_train", kept, why)


def _evidence_list(prediction: IssuePrediction) -> list[dict]:
    evidence = prediction.evidence
    if isinstance(evidence, dict):
        evidence = evidence.get("terms", [])
    return [e for e in evidence or [] if isinstance(e, dict)]


def extra_parts(*, issue_ids: list[int]) -> dict[int, tuple[float, str]]:
    """{issue id: (points, why)} from the functions in wiring.PRIORITY_PARTS, summed.

    A function that fails, or answers something else than (number, text) for an issue, is
    logged and counts nothing: a later stage's bug never stops prioritization."""
    combined: dict[int, tuple[float, list[str]]] = {}
    for dotted in wiring.PRIORITY_PARTS:
        try:
            answers = wiring.load(dotted)(issue_ids=list(issue_ids)) or {}
            items = list(answers.items())
        except Exception:
            logger.exception("priority part %s failed; it counts 0 this time", dotted)
            continue
        for issue_id, answer in items:
            try:
                points, why = float(answer[0]), str(answer[1])
            except (TypeError, ValueError, IndexError):
                logger.error("priority part %s answered %r for issue %s", dotted, answer, issue_id)
                continue
            before, whys = combined.get(issue_id, (0.0, []))
            combined[issue_id] = (before + points, [*whys, why])
    return {issue_id: (points, "; ".join(whys)) for issue_id, (points, whys) in combined.items()}


def _overrides(issue_ids: list[int]) -> dict[int, Override]:
    latest: dict[int, PredictionCorrection] = {}
    for correction in (
        PredictionCorrection.objects.filter(issue_id__in=issue_ids, model_name=OVERRIDE_MODEL)
        .select_related("user")
        .order_by("created_at", "id")
    ):
        latest[correction.issue_id] = correction
    return {
        issue_id: Override(
            score=int(c.after),
            by=c.user.get_username() if c.user else "someone",
            at=f"{c.created_at:%Y-%m-%d}",
        )
        for issue_id, c in latest.items()
        if c.after.isdigit()
    }


def issues_prioritize(*, ids: list[int]) -> int:
    """Compute and store the priority of the open issues among `ids`; closed ones lose theirs."""
    issues = list(
        Issue.objects.filter(pk__in=ids, is_pull_request=False).prefetch_related("labels")
    )
    open_ids = [i.id for i in issues if i.state == Issue.State.OPEN and i.deleted_at is None]
    IssuePriority.objects.filter(issue_id__in=set(ids) - set(open_ids)).delete()
    Issue.objects.filter(pk__in=set(ids) - set(open_ids)).exclude(priority_score=-1).update(
        priority_score=-1
    )
    if not open_ids:
        return 0
    predictions: dict[int, dict[str, IssuePrediction]] = defaultdict(dict)
    for p in IssuePrediction.objects.filter(issue_id__in=open_ids):
        predictions[p.issue_id][p.model_name] = p
    comments, posts = _comments_of(open_ids), _linked_posts(open_ids)
    extras = extra_parts(issue_ids=open_ids)
    overrides = _overrides(open_ids)
    w, now = weights(), timezone.now()
    rows = []
    for issue in issues:
        if issue.id not in open_ids:
            continue
        parts = priority_parts(
            issue=issue,
            predictions=predictions[issue.id],
            comments=comments[issue.id],
            w=w,
            now=now,
            linked_posts=posts.get(issue.id, 0),
            extra=extras.get(issue.id),
            override=overrides.get(issue.id),
        )
        rows.append(
            IssuePriority(
                issue=issue,
                score=sum(p["points"] for p in parts),
                parts=parts,
                computed_at=now,
            )
        )
    IssuePriority.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["issue"],
        update_fields=["score", "parts", "computed_at"],
    )
    # The queue orders by the issue's own copy of the score (one index serves it).
    changed = [row.issue for row in rows if row.issue.priority_score != row.score]
    for row in rows:
        row.issue.priority_score = row.score
    Issue.objects.bulk_update(changed, ["priority_score"], batch_size=500)
    return len(rows)


@transaction.atomic
def priority_override(
    *, issue: Issue, label: str, user, github_login: str = ""
) -> PredictionCorrection:
    """A triager sets the priority of an open issue (0-100), or clears it with "auto" / ""."""
    value = (label or "").strip().lower()
    if issue.is_pull_request or issue.state != Issue.State.OPEN or issue.deleted_at:
        raise OverrideError("only open issues have a priority")
    if value in ("", "auto"):
        after = ""
    elif value.isdigit() and 0 <= int(value) <= 100:
        after = str(int(value))
    else:
        raise OverrideError("a priority is a whole number from 0 to 100 (or auto)")
    current = IssuePriority.objects.filter(issue=issue).first()
    correction = PredictionCorrection.objects.create(
        issue=issue,
        model_name=OVERRIDE_MODEL,
        before=str(current.score) if current else "",
        after=after,
        user=user,
        github_login=github_login,
    )
    issues_prioritize(ids=[issue.id])
    return correction


# --- keeping every open issue's priority fresh ------------------------------------------------


def id_chunks(ids, *, size: int) -> Iterator[list[int]]:
    """`ids` in consecutive lists of at most `size`."""
    ids = list(ids)
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


def open_issue_id_chunks(*, size: int) -> Iterator[list[int]]:
    """Ids of the open issues (not pull requests), ascending, in chunks of at most `size`.

    The ids are read at once (a few MB at 100,000 issues) so that no cursor stays open while
    the chunks' tasks write."""
    ids = (
        Issue.objects.filter(state=Issue.State.OPEN, is_pull_request=False, deleted_at__isnull=True)
        .order_by("id")
        .values_list("id", flat=True)
    )
    return id_chunks(ids, size=size)


def chunks_enqueue(*, task_name: str, chunks) -> int:
    """Enqueue `task_name(ids=chunk)` per chunk once the transaction commits; how many."""
    task = import_string(task_name)
    count = 0
    for chunk in chunks:
        transaction.on_commit(lambda chunk=chunk: task.apply_async(kwargs={"ids": chunk}))
        count += 1
    return count


def open_issues_reprioritize(*, chunk_size: int = REPRIORITIZE_CHUNK) -> int:
    """Beat's hourly step: recompute every open issue's priority, one task per chunk."""
    return chunks_enqueue(task_name=REPRIORITIZE_TASK, chunks=open_issue_id_chunks(size=chunk_size))
