"""GitHub's REST JSON (listings and webhook payloads) as the shared records.

Only shapes are read here; cleaning and storing are the upsert path's (triage/services/upsert.py).
"""

from __future__ import annotations

from config import linear_re
from triage.sources.records import (
    CommentRecord,
    IssueRecord,
    LabelRecord,
    PersonRecord,
    PullRecord,
    parse_timestamp,
)

SOURCE = "github"
ISSUE_URL_NUMBER = linear_re.compile(r"/issues/(\d+)$")
REACTION_CONTENTS = ("+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes")


def string(value) -> str:
    return value if isinstance(value, str) else ""


def _id(value) -> str | None:
    return str(value) if isinstance(value, int | str) and not isinstance(value, bool) else None


def person(user) -> PersonRecord | None:
    """A GitHub user object; None when it names no one (a deleted account is "ghost")."""
    if not isinstance(user, dict) or user.get("id") is None or not user.get("login"):
        return None
    return PersonRecord(
        source=SOURCE,
        external_id=str(int(user["id"])),
        login=string(user.get("login")),
        avatar_url=string(user.get("avatar_url")),
        html_url=string(user.get("html_url")),
        type=string(user.get("type")) or "User",
        site_admin=bool(user.get("site_admin")),
    )


def label(data) -> LabelRecord | None:
    if not isinstance(data, dict) or not data.get("name"):
        return None
    return LabelRecord(
        name=string(data.get("name")),
        external_id=int(data["id"]) if data.get("id") is not None else None,
        color=string(data.get("color")),
        description=string(data.get("description")),
        default=bool(data.get("default")),
    )


def labels(items) -> list[LabelRecord]:
    return [found for found in map(label, items or []) if found is not None]


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


def _written(item: dict) -> dict:
    """What GitHub says alike of an issue, a pull request and a comment: who wrote it, in which
    role, the text, its page and its times."""
    return {
        "author": person(item.get("user")),
        "author_association": string(item.get("author_association")),
        "body": string(item.get("body")),
        "html_url": string(item.get("html_url")),
        "created_at": parse_timestamp(item.get("created_at")),
        "updated_at": parse_timestamp(item.get("updated_at")),
    }


def issue(item: dict) -> IssueRecord:
    """An issue as the issues API lists it (a pull request too, with its `pull_request` marker)."""
    marker = item.get("pull_request") if isinstance(item.get("pull_request"), dict) else {}
    merge = None
    if "merged_at" in marker:
        merged_at = parse_timestamp(marker.get("merged_at"))
        merge = (merged_at is not None, merged_at)
    milestone = item.get("milestone") if isinstance(item.get("milestone"), dict) else {}
    return IssueRecord(
        **_written(item),
        number=int(item["number"]),
        external_id=_id(item.get("id")),
        source=SOURCE,
        node_id=string(item.get("node_id")),
        title=string(item.get("title")),
        state=string(item.get("state")) or "open",
        state_reason=string(item.get("state_reason")),
        locked=bool(item.get("locked")),
        assignees=[p for p in map(person, item.get("assignees") or []) if p is not None],
        labels=labels(item.get("labels")),
        milestone=string(milestone.get("title")),
        comments_count=int(item.get("comments") or 0),
        reactions=parse_reactions(item),
        closed_at=parse_timestamp(item.get("closed_at")),
        is_pull_request=_is_real_pull_request(item),
        merge=merge,
    )


def pull(item: dict) -> PullRecord:
    """A pull request as the pulls API lists it or a pull_request delivery carries it."""
    merged_at = parse_timestamp(item.get("merged_at"))
    merged = item["merged"] if isinstance(item.get("merged"), bool) else merged_at is not None
    base = item.get("base") if isinstance(item.get("base"), dict) else {}
    head = item.get("head") if isinstance(item.get("head"), dict) else {}
    return PullRecord(
        **_written(item),
        number=int(item["number"]),
        pull_id=item.get("id") if isinstance(item.get("id"), int) else None,
        title=string(item.get("title")),
        state=string(item.get("state")) or "open",
        locked=bool(item.get("locked")),
        merged_by=person(item.get("merged_by")),
        closed_at=parse_timestamp(item.get("closed_at")),
        draft=bool(item.get("draft")),
        merged=merged,
        merged_at=merged_at,
        merge_commit_sha=string(item.get("merge_commit_sha")),
        base_ref=string(base.get("ref")),
        head_ref=string(head.get("ref")),
        head_sha=string(head.get("sha")),
        labels=labels(item["labels"]) if "labels" in item else None,
    )


def _issue_number_of_comment(item: dict) -> int | None:
    match = ISSUE_URL_NUMBER.search(string(item.get("issue_url")))
    return int(match.group(1)) if match else None


def comment(item: dict, issue_number: int | None = None) -> CommentRecord:
    """An issue comment; its issue from its issue_url, or `issue_number` when the caller knows it
    (a webhook delivery does)."""
    reactions = parse_reactions(item)
    return CommentRecord(
        **_written(item),
        external_id=str(int(item["id"])),
        issue_number=issue_number or _issue_number_of_comment(item),
        source=SOURCE,
        node_id=string(item.get("node_id")),
        reactions_total=reactions[0] if reactions else None,
    )
