"""Priority 0-100 of every open issue, as a sum of explained parts.

Parts (default maximum points): kind (15), severity (25), reach (20: distinct commenters and
"+1" comments), regression signals (10), affected architectures (10, datacenter parts higher),
time without a maintainer response (15), closeness of the next release train (5; 0 until
release trains feed it). The defaults add up to 100; settings.PRIORITY_WEIGHTS overrides them,
and a total over 100 shows a negative "capped at 100" part, so the parts always add up.
"""

from __future__ import annotations

import re
from collections import defaultdict

from django.conf import settings
from django.db.models import Count
from django.utils import timezone

from triage.models import Comment, Issue, IssuePrediction, IssuePriority, PostIssueLink

DEFAULT_WEIGHTS: dict = {
    "kind": {"bug": 15, "performance": 12, "feature": 5, "question": 3, "docs": 2},
    "severity": {"critical": 25, "high": 18, "medium": 10, "low": 3},
    "reach_per_commenter": 3,
    "reach_per_plus_one": 2,
    "reach_per_post": 1,
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
# a comment made only of "+1", "same here", "me too", "also affected" ... ("+1, same here!")
PLUS_ONE = re.compile(
    r"^(?:[\s.,!:]*(?:\+1|👍|same(?: here| issue| problem)?|me too|also affected|"
    r"having the same (?:issue|problem)))+[\s.,!:]*$",
    re.I,
)
REGRESSION = re.compile(
    r"regression|used to work|worked (?:fine |well )?(?:in|with|on|before)|after upgrad|"
    r"no longer work|since (?:rocm|version|v)\s*\d",
    re.I,
)


def weights() -> dict:
    merged = {k: (dict(v) if isinstance(v, dict) else v) for k, v in DEFAULT_WEIGHTS.items()}
    for key, value in getattr(settings, "PRIORITY_WEIGHTS", {}).items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key].update(value)
        else:
            merged[key] = value
    return merged


def _part(name: str, points: int, why: str) -> dict:
    return {"name": name, "points": int(points), "why": why}


def priority_parts(
    *,
    issue: Issue,
    predictions: dict[str, IssuePrediction],
    comments: list[tuple[int | None, str, str]],
    w: dict,
    now=None,
    linked_posts: int = 0,
) -> list[dict]:
    """The parts for one issue. `comments`: (author id, author association, body) each."""
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

    others = {a for a, _, _ in comments if a is not None and a != issue.author_id}
    plus_ones = sum(1 for _, _, body in comments if PLUS_ONE.match(body or ""))
    reach = min(
        w["reach_max"],
        len(others) * w["reach_per_commenter"]
        + plus_ones * w["reach_per_plus_one"]
        + linked_posts * w["reach_per_post"],
    )
    why = f"{len(others)} other commenters, {plus_ones} '+1' comments"
    parts.append(_part("reach", reach, f"{why}, {linked_posts} linked posts on X"))

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

    parts.append(_part("release_train", 0, "no release train linked"))

    total = sum(p["points"] for p in parts)
    if total > 100:
        parts.append(_part("cap", 100 - total, "capped at 100"))
    return parts


def _evidence_list(prediction: IssuePrediction) -> list[dict]:
    evidence = prediction.evidence
    if isinstance(evidence, dict):
        evidence = evidence.get("terms", [])
    return [e for e in evidence or [] if isinstance(e, dict)]


def issues_prioritize(*, ids: list[int]) -> int:
    """Compute and store the priority of the open issues among `ids`; closed ones lose theirs."""
    issues = list(
        Issue.objects.filter(pk__in=ids, is_pull_request=False).prefetch_related("labels")
    )
    open_ids = [i.id for i in issues if i.state == Issue.State.OPEN and i.deleted_at is None]
    IssuePriority.objects.filter(issue_id__in=set(ids) - set(open_ids)).delete()
    if not open_ids:
        return 0
    predictions: dict[int, dict[str, IssuePrediction]] = defaultdict(dict)
    for p in IssuePrediction.objects.filter(issue_id__in=open_ids):
        predictions[p.issue_id][p.model_name] = p
    comments = defaultdict(list)
    for issue_id, author_id, assoc, body in Comment.objects.filter(
        issue_id__in=open_ids, deleted_at__isnull=True
    ).values_list("issue_id", "author_id", "author_association", "body"):
        comments[issue_id].append((author_id, assoc, body))
    posts = dict(
        PostIssueLink.objects.filter(issue_id__in=open_ids, status=PostIssueLink.Status.CONFIRMED)
        .values("issue_id")
        .annotate(n=Count("post_id"))
        .values_list("issue_id", "n")
    )
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
        )
        rows.append(
            IssuePriority(
                issue=issue,
                score=max(0, sum(p["points"] for p in parts)),
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
    return len(rows)
