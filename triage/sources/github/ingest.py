"""Upserts of GitHub objects, in GitHub's REST JSON shape.

The sync (PyGithub pages) and the webhook handlers (deliveries) both write through these
functions, one page or one delivery at a time, in bulk: a few queries per page whatever its size.
Each returns what it did, so callers can report created / updated / unchanged and hand the
changed issues to the pipeline.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from config import linear_re
from triage import pipeline
from triage.models import Comment, Issue, Label, Person, Repository
from triage.safe_links import is_external, safe_link_url

logger = logging.getLogger(__name__)

ISSUE_URL_NUMBER = linear_re.compile(r"/issues/(\d+)$")


@dataclass
class UpsertResult:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    changed_ids: list[int] = field(default_factory=list)
    missing_issue_numbers: set[int] = field(default_factory=set)

    def add(self, other: UpsertResult) -> None:
        self.created += other.created
        self.updated += other.updated
        self.unchanged += other.unchanged
        self.changed_ids.extend(other.changed_ids)
        self.missing_issue_numbers |= other.missing_issue_numbers

    @property
    def fetched(self) -> int:
        return self.created + self.updated + self.unchanged


def parse_timestamp(value: str | None) -> datetime | None:
    if not value:
        return None
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if parsed.tzinfo is None:  # GitHub always sends UTC; a naive stamp is read as UTC
        parsed = parsed.replace(tzinfo=UTC)
    return parsed


def storable_text(value: str) -> str:
    """Text as every database can store it: without NUL characters (which Postgres text cannot
    hold) and with lone surrogates (which UTF-8 cannot encode) replaced by "?"."""
    if not value.isascii():
        value = value.encode("utf-8", "replace").decode("utf-8")
    return value.replace("\x00", "") if "\x00" in value else value


def _text(value) -> str:
    return storable_text(value) if isinstance(value, str) else ""


def _web_url(value) -> str:
    """An http(s) URL as GitHub sends them (html_url, avatar_url), else "": a delivery's
    "javascript:..." is never stored, so neither a page nor an API client ever gets it."""
    url = _text(value)[:500]
    return url if is_external(safe_link_url(url)) else ""


REACTION_CONTENTS = ("+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes")


def parse_reactions(item: dict) -> tuple[int, dict[str, int]] | None:
    """(total_count, {content: count} of the non-zero ones) of an item's `reactions` rollup.

    None when the item carries no rollup (then what we hold stays). GitHub does not move an
    item's updated_at when someone reacts, so counts refresh when the item changes otherwise.
    """
    rollup = item.get("reactions")
    if not isinstance(rollup, dict):
        return None
    counts = {}
    for content in REACTION_CONTENTS:
        value = rollup.get(content)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            counts[content] = value
    total = rollup.get("total_count")
    if not isinstance(total, int) or isinstance(total, bool) or total < 0:
        total = sum(counts.values())
    return total, counts


def _is_real_pull_request(item: dict) -> bool:
    # In 2012 GitHub put "pull_request": {"html_url": null, ...} on every issue; a PR has a URL.
    marker = item.get("pull_request")
    return isinstance(marker, dict) and bool(marker.get("html_url"))


def _returned_pks(objects: list, key: str) -> dict | None:
    """{key: pk} from rows a bulk upsert returned (Postgres, SQLite); None when it returned none.

    An upsert with update_conflicts answers with RETURNING on these databases, so the caller
    needs no second query to learn the primary keys of the rows it wrote.
    """
    if any(obj.pk is None for obj in objects):
        return None
    return {getattr(obj, key): obj.pk for obj in objects}


# --- people and labels ---------------------------------------------------------------------


def persons_upsert(*, users: Iterable[dict | None]) -> dict[int, int]:
    """Upsert GitHub users; returns {github user id: Person pk}."""
    by_id: dict[int, dict] = {}
    for user in users:
        if isinstance(user, dict) and user.get("id") is not None and user.get("login"):
            by_id[int(user["id"])] = user
    if not by_id:
        return {}
    people = Person.objects.bulk_create(
        [
            Person(
                github_id=github_id,
                login=user["login"],
                avatar_url=_web_url(user.get("avatar_url")),
                html_url=_web_url(user.get("html_url")),
                type=_text(user.get("type")) or "User",
                site_admin=bool(user.get("site_admin")),
            )
            for github_id, user in by_id.items()
        ],
        update_conflicts=True,
        unique_fields=["github_id"],
        update_fields=["login", "avatar_url", "html_url", "type", "site_admin"],
    )
    returned = _returned_pks(people, "github_id")
    if returned is not None:
        return returned
    return dict(Person.objects.filter(github_id__in=by_id).values_list("github_id", "pk"))


def labels_upsert(*, repository: Repository, labels: Iterable[dict]) -> dict[str, int]:
    """Upsert labels of one repository; returns {lower-cased name: Label pk}."""
    by_key: dict[str, dict] = {}
    for label in labels:
        if isinstance(label, dict) and label.get("name"):
            by_key[label["name"].lower()] = label
    if not by_key:
        return {}
    # A label renamed on GitHub keeps its id: rename our row first so the upsert below matches.
    with_ids = {int(lb["id"]): key for key, lb in by_key.items() if lb.get("id") is not None}
    for pk, github_id, name_key in Label.objects.filter(github_id__in=with_ids).values_list(
        "pk", "github_id", "name_key"
    ):
        if with_ids[github_id] != name_key:
            Label.objects.filter(repository=repository, name_key=with_ids[github_id]).exclude(
                pk=pk
            ).delete()
            Label.objects.filter(pk=pk).update(
                name=by_key[with_ids[github_id]]["name"], name_key=with_ids[github_id]
            )

    def build(key: str, label: dict) -> Label:
        return Label(
            repository=repository,
            github_id=label.get("id"),
            name=label["name"],
            name_key=key,
            color=_text(label.get("color"))[:16],
            description=_text(label.get("description")),
            default=bool(label.get("default")),
        )

    identified = [build(k, lb) for k, lb in by_key.items() if lb.get("id") is not None]
    anonymous = [build(k, lb) for k, lb in by_key.items() if lb.get("id") is None]
    common = dict(update_conflicts=True, unique_fields=["repository", "name_key"])
    if identified:
        Label.objects.bulk_create(
            identified,
            update_fields=["name", "color", "description", "default", "github_id"],
            **common,
        )
    if anonymous:
        Label.objects.bulk_create(anonymous, update_fields=["name", "color"], **common)
    returned = _returned_pks(identified + anonymous, "name_key")
    if returned is not None:
        return returned
    return dict(
        Label.objects.filter(repository=repository, name_key__in=by_key).values_list(
            "name_key", "pk"
        )
    )


def label_delete(*, repository: Repository, label: dict) -> int:
    query = Label.objects.filter(repository=repository)
    if label.get("id") is not None:
        deleted, _ = query.filter(github_id=label["id"]).delete()
        if deleted:
            return deleted
    deleted, _ = query.filter(name_key=_text(label.get("name")).lower()).delete()
    return deleted


# --- issues and pull requests --------------------------------------------------------------

ISSUE_FIELDS = [
    "github_id",
    "node_id",
    "title",
    "body",
    "state",
    "state_reason",
    "locked",
    "author",
    "author_association",
    "milestone",
    "comments_count",
    "reactions_total",
    "reactions",
    "html_url",
    "created_at",
    "updated_at",
    "closed_at",
    "is_pull_request",
    "merged",
    "merged_at",
    "deleted_at",
    "last_ingested_at",
]

PULL_FIELDS = [
    "title",
    "body",
    "state",
    "locked",
    "author",
    "author_association",
    "html_url",
    "created_at",
    "updated_at",
    "closed_at",
    "is_pull_request",
    "pr_github_id",
    "pr_updated_at",
    "draft",
    "merged",
    "merged_at",
    "merged_by",
    "merge_commit_sha",
    "base_ref",
    "head_ref",
    "head_sha",
    "deleted_at",
    "last_ingested_at",
]


def _changed_labels(repository: Repository, changed: list[tuple[Issue, dict]]) -> dict[str, int]:
    """The labels the changed items carry, upserted: lower-cased name -> label id."""
    return labels_upsert(
        repository=repository,
        labels=[
            lb for _, item in changed for lb in item.get("labels") or [] if isinstance(lb, dict)
        ],
    )


def _label_ids(item_labels, labels: dict[str, int]) -> list[int]:
    """The ids of an item's labels (GitHub's label objects), those that `labels` holds."""
    return [
        labels[lb["name"].lower()]
        for lb in item_labels or []
        if isinstance(lb, dict) and lb.get("name") and lb["name"].lower() in labels
    ]


def _replace_m2m(
    through,
    owner_field: str,
    other_field: str,
    pairs: dict[int, list[int]],
    created: frozenset[int] = frozenset(),
) -> None:
    """Make the links of each owner exactly `pairs[owner]`.

    Owners in `created` were inserted by this very upsert and have no links to delete (in a
    backfill that is every row: one DELETE a page saved).
    """
    if not pairs:
        return
    stale = [owner for owner in pairs if owner not in created]
    if stale:
        through.objects.filter(**{f"{owner_field}__in": stale}).delete()
    rows = [
        through(**{f"{owner_field}": owner, f"{other_field}": other})
        for owner, others in pairs.items()
        for other in dict.fromkeys(others)
    ]
    if rows:
        through.objects.bulk_create(rows, ignore_conflicts=True)


def _issue_pks(repository: Repository, issues: list[Issue]) -> dict[int, int]:
    """{number: pk} of issues just upserted."""
    returned = _returned_pks(issues, "number")
    if returned is not None:
        return returned
    return dict(
        Issue.objects.filter(
            repository=repository, number__in=[issue.number for issue in issues]
        ).values_list("number", "pk")
    )


def _is_current(stored, incoming, same_time_is_current: bool) -> bool:
    """Whether the stored row is as new as the incoming item (then we keep it).

    A stored row newer than the item always wins (deliveries can arrive out of order). At the same
    updated_at a sync's item is the same item again; a delivery's may not be (two labels added
    within one second), so deliveries are applied then.
    """
    if stored is None or incoming is None:
        return False
    return stored > incoming or (stored == incoming and same_time_is_current)


def issues_upsert(
    *, repository: Repository, items: list[dict], from_webhook: bool = False
) -> UpsertResult:
    """Upsert issues (and PRs as the issues API lists them) of one repository."""
    result = UpsertResult()
    items = list({int(item["number"]): item for item in items}.values())
    if not items:
        return result
    numbers = [int(item["number"]) for item in items]
    existing = {
        row[0]: row[1:]
        for row in Issue.objects.filter(repository=repository, number__in=numbers).values_list(
            "number",
            "updated_at",
            "github_id",
            "merged",
            "merged_at",
            "deleted_at",
            "reactions_total",
            "reactions",
        )
    }
    now = timezone.now()
    changed: list[tuple[Issue, dict]] = []
    for item in items:
        number = int(item["number"])
        updated_at = parse_timestamp(item.get("updated_at")) or now
        before = existing.get(number)
        reactions = parse_reactions(item)
        if reactions is None:
            reactions = (before[5], before[6]) if before else (0, {})
        if (
            before is not None
            and _is_current(before[0], updated_at, not from_webhook)
            and (before[1] == item.get("id") or item.get("id") is None)
            and before[4] is None
            # the same snapshot again, unless only its reaction counts moved
            and (before[0] > updated_at or (before[5], before[6]) == reactions)
        ):
            result.unchanged += 1
            continue
        if before is None:
            result.created += 1
        else:
            result.updated += 1
        marker = item.get("pull_request") if isinstance(item.get("pull_request"), dict) else {}
        if "merged_at" in marker:
            merged_at = parse_timestamp(marker.get("merged_at"))
            merged = merged_at is not None
        else:
            merged, merged_at = (before[2], before[3]) if before else (None, None)
        milestone = item.get("milestone") or {}
        issue = Issue(
            repository=repository,
            number=number,
            github_id=item.get("id"),
            node_id=_text(item.get("node_id"))[:100],
            title=_text(item.get("title")),
            body=_text(item.get("body")),
            state=item.get("state") or Issue.State.OPEN,
            state_reason=_text(item.get("state_reason"))[:32],
            locked=bool(item.get("locked")),
            author_association=_text(item.get("author_association"))[:32],
            milestone=_text(milestone.get("title"))[:255],
            comments_count=int(item.get("comments") or 0),
            reactions_total=reactions[0],
            reactions=reactions[1],
            html_url=_web_url(item.get("html_url")),
            created_at=parse_timestamp(item.get("created_at")) or updated_at,
            updated_at=updated_at,
            closed_at=parse_timestamp(item.get("closed_at")),
            is_pull_request=_is_real_pull_request(item),
            merged=merged,
            merged_at=merged_at,
            deleted_at=None,
            last_ingested_at=now,
        )
        changed.append((issue, item))
    if not changed:
        return result

    people = persons_upsert(
        users=[u for _, item in changed for u in [item.get("user"), *(item.get("assignees") or [])]]
    )
    labels = _changed_labels(repository, changed)
    for issue, item in changed:
        issue.author_id = people.get((item.get("user") or {}).get("id"))
    Issue.objects.bulk_create(
        [issue for issue, _ in changed],
        update_conflicts=True,
        unique_fields=["repository", "number"],
        update_fields=ISSUE_FIELDS,
    )
    pks = _issue_pks(repository, [issue for issue, _ in changed])
    label_pairs, assignee_pairs = {}, {}
    created = frozenset(pks[issue.number] for issue, _ in changed if issue.number not in existing)
    for issue, item in changed:
        pk = pks[issue.number]
        result.changed_ids.append(pk)
        label_pairs[pk] = _label_ids(item.get("labels"), labels)
        assignee_pairs[pk] = [
            people[a["id"]] for a in item.get("assignees") or [] if a and a.get("id") in people
        ]
    _replace_m2m(Issue.labels.through, "issue_id", "label_id", label_pairs, created)
    _replace_m2m(Issue.assignees.through, "issue_id", "person_id", assignee_pairs, created)
    pipeline.issues_changed(result.changed_ids)
    return result


def pulls_upsert(
    *, repository: Repository, items: list[dict], from_webhook: bool = False
) -> UpsertResult:
    """Upsert pull requests from the pulls API or a pull_request delivery (their PR fields)."""
    result = UpsertResult()
    items = list({int(item["number"]): item for item in items}.values())
    if not items:
        return result
    existing = {
        row[0]: row[1:]
        for row in Issue.objects.filter(
            repository=repository, number__in=[int(i["number"]) for i in items]
        ).values_list("number", "pr_updated_at", "merged", "github_id")
    }
    now = timezone.now()
    changed: list[tuple[Issue, dict]] = []
    for item in items:
        number = int(item["number"])
        updated_at = parse_timestamp(item.get("updated_at")) or now
        before = existing.get(number)
        merged_at = parse_timestamp(item.get("merged_at"))
        merged = item["merged"] if isinstance(item.get("merged"), bool) else merged_at is not None
        stale = before is not None and before[0] is not None and before[0] > updated_at
        if stale or (
            before is not None
            and _is_current(before[0], updated_at, not from_webhook)
            and before[1] == merged
        ):
            result.unchanged += 1
            continue
        if before is None:
            result.created += 1
        else:
            result.updated += 1
        base, head = item.get("base") or {}, item.get("head") or {}
        issue = Issue(
            repository=repository,
            number=number,
            title=_text(item.get("title")),
            body=_text(item.get("body")),
            state=item.get("state") or Issue.State.OPEN,
            locked=bool(item.get("locked")),
            author_association=_text(item.get("author_association"))[:32],
            html_url=_web_url(item.get("html_url")),
            created_at=parse_timestamp(item.get("created_at")) or updated_at,
            updated_at=updated_at,
            closed_at=parse_timestamp(item.get("closed_at")),
            is_pull_request=True,
            pr_github_id=item.get("id"),
            pr_updated_at=updated_at,
            draft=bool(item.get("draft")),
            merged=merged,
            merged_at=merged_at,
            merge_commit_sha=_text(item.get("merge_commit_sha"))[:64],
            base_ref=_text(base.get("ref"))[:255],
            head_ref=_text(head.get("ref"))[:255],
            head_sha=_text(head.get("sha"))[:64],
            deleted_at=None,
            last_ingested_at=now,
        )
        changed.append((issue, item))
    if not changed:
        return result
    people = persons_upsert(
        users=[u for _, item in changed for u in (item.get("user"), item.get("merged_by"))]
    )
    labels = _changed_labels(repository, changed)
    for issue, item in changed:
        issue.author_id = people.get((item.get("user") or {}).get("id"))
        issue.merged_by_id = people.get((item.get("merged_by") or {}).get("id"))
    Issue.objects.bulk_create(
        [issue for issue, _ in changed],
        update_conflicts=True,
        unique_fields=["repository", "number"],
        update_fields=PULL_FIELDS,
    )
    pks = _issue_pks(repository, [issue for issue, _ in changed])
    label_pairs = {}
    created = frozenset(pks[issue.number] for issue, _ in changed if issue.number not in existing)
    for issue, item in changed:
        pk = pks[issue.number]
        result.changed_ids.append(pk)
        if "labels" in item:
            label_pairs[pk] = _label_ids(item["labels"], labels)
    _replace_m2m(Issue.labels.through, "issue_id", "label_id", label_pairs, created)
    pipeline.issues_changed(result.changed_ids)
    return result


def issue_mark_deleted(*, repository: Repository, number: int) -> int:
    return Issue.objects.filter(repository=repository, number=number, deleted_at=None).update(
        deleted_at=timezone.now()
    )


def issue_mark_transferred(*, repository: Repository, number: int, new_reference: str) -> int:
    return Issue.objects.filter(repository=repository, number=number).update(
        transferred_to=new_reference[:300], state=Issue.State.CLOSED
    )


# --- comments ------------------------------------------------------------------------------


def _issue_number_of_comment(item: dict) -> int | None:
    match = ISSUE_URL_NUMBER.search(_text(item.get("issue_url")))
    return int(match.group(1)) if match else None


def comments_upsert(
    *,
    repository: Repository,
    items: list[dict],
    issue_number: int | None = None,
    from_webhook: bool = False,
) -> UpsertResult:
    """Upsert issue comments of one repository.

    The issue of each comment comes from its issue_url (or issue_number when the caller knows it,
    as a webhook delivery does). Comments of issues we do not hold yet are not written; their
    issue numbers come back in missing_issue_numbers so the caller can fetch those issues first.
    """
    result = UpsertResult()
    items = list({int(item["id"]): item for item in items}.values())
    if not items:
        return result
    numbers = {int(item["id"]): issue_number or _issue_number_of_comment(item) for item in items}
    issue_pks = dict(
        Issue.objects.filter(
            repository=repository, number__in={n for n in numbers.values() if n}
        ).values_list("number", "pk")
    )
    existing = {
        row[0]: row[1:]
        for row in Comment.objects.filter(github_id__in=numbers).values_list(
            "github_id", "updated_at", "reactions_total"
        )
    }
    changed: list[tuple[Comment, dict]] = []
    for item in items:
        github_id = int(item["id"])
        number = numbers[github_id]
        if number not in issue_pks:
            if number:
                result.missing_issue_numbers.add(number)
            continue
        updated_at = parse_timestamp(item.get("updated_at")) or timezone.now()
        before = existing.get(github_id)
        reactions = parse_reactions(item)
        reactions_total = reactions[0] if reactions else (before[1] if before else 0)
        if (
            before is not None
            and _is_current(before[0], updated_at, not from_webhook)
            and (before[0] > updated_at or before[1] == reactions_total)
        ):
            result.unchanged += 1
            continue
        if github_id in existing:
            result.updated += 1
        else:
            result.created += 1
        comment = Comment(
            github_id=github_id,
            issue_id=issue_pks[number],
            node_id=_text(item.get("node_id"))[:100],
            author_association=_text(item.get("author_association"))[:32],
            body=_text(item.get("body")),
            html_url=_web_url(item.get("html_url")),
            created_at=parse_timestamp(item.get("created_at")) or updated_at,
            updated_at=updated_at,
            deleted_at=None,
            reactions_total=reactions_total,
        )
        changed.append((comment, item))
    if not changed:
        return result
    people = persons_upsert(users=[item.get("user") for _, item in changed])
    for comment, item in changed:
        comment.author_id = people.get((item.get("user") or {}).get("id"))
    Comment.objects.bulk_create(
        [comment for comment, _ in changed],
        update_conflicts=True,
        unique_fields=["github_id"],
        update_fields=[
            "issue",
            "node_id",
            "author",
            "author_association",
            "body",
            "html_url",
            "created_at",
            "updated_at",
            "deleted_at",
            "reactions_total",
        ],
    )
    touched = sorted({comment.issue_id for comment, _ in changed})
    result.changed_ids.extend(touched)
    pipeline.comments_changed(touched)
    return result


def comment_mark_deleted(*, github_id: int) -> int:
    return Comment.objects.filter(github_id=github_id, deleted_at=None).update(
        deleted_at=timezone.now()
    )


# --- repositories --------------------------------------------------------------------------


def repository_named(full_name: str) -> Repository | None:
    """The repository of OWNER/NAME, compared as GitHub compares names (in any case), or the
    one that had that name before GitHub renamed it."""
    found = Repository.objects.filter(full_name__iexact=full_name).first()
    if found is None:
        found = Repository.objects.filter(former_names__full_name__iexact=full_name).first()
    return found


def repository_get_or_create(*, full_name: str, tracked: bool = True) -> Repository:
    owner, _, name = full_name.strip().partition("/")
    if not owner or not name or "/" in name:
        raise ValueError(f"expected OWNER/NAME, got {full_name!r}")
    repository = repository_named(f"{owner}/{name}")
    if repository is None:
        try:
            with transaction.atomic():
                repository = Repository.objects.create(
                    owner=owner, name=name, full_name=f"{owner}/{name}", tracked=tracked
                )
        except IntegrityError:
            # created meanwhile by a concurrent delivery or sync (two workers taking the first
            # deliveries of a new repository at once): the insert waited for it; use that row
            repository = Repository.objects.get(full_name__iexact=f"{owner}/{name}")
    return repository


def repository_update_from_github(*, repository: Repository, data: dict) -> Repository:
    """Refresh a repository's own fields from GitHub's repository object."""
    repository.github_id = data.get("id") or repository.github_id
    full_name = _text(data.get("full_name"))
    if full_name and "/" in full_name:
        repository.full_name = full_name
        repository.owner, repository.name = full_name.split("/", 1)
    repository.description = _text(data.get("description"))
    repository.html_url = _text(data.get("html_url"))[:500]
    repository.default_branch = _text(data.get("default_branch"))[:255]
    repository.private = bool(data.get("private"))
    repository.save()
    return repository
