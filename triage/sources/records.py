"""The records each source turns its payloads into, and the one upsert path writes.

A source package (triage/sources/github/, triage/sources/x/) reads its own API's shapes and
builds these; triage/services/upsert.py writes them, whatever the source: it cleans the text
(no NUL, no lone surrogate), keeps only http(s) URLs, decides created / updated / unchanged
against what is stored and hands the changed rows to the pipeline. A new source is a package
that builds these records from its payloads, plus its tests.

Ids are the source's own, as text (`external_id`); a field that is None was not in the payload,
and what is stored for it stays.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime


@dataclass(slots=True)
class PersonRecord:
    source: str
    external_id: str
    login: str
    name: str | None = None
    avatar_url: str | None = None
    html_url: str | None = None
    type: str | None = None
    site_admin: bool | None = None
    followers_count: int | None = None


@dataclass(slots=True)
class LabelRecord:
    name: str
    external_id: int | None = None
    color: str = ""
    description: str = ""
    default: bool = False


@dataclass(slots=True)
class IssueRecord:
    """An issue (or a pull request as an issue listing shows it)."""

    number: int
    external_id: str | None
    title: str
    updated_at: datetime | None
    source: str = "github"
    node_id: str = ""
    body: str = ""
    state: str = "open"
    state_reason: str = ""
    locked: bool = False
    author: PersonRecord | None = None
    assignees: list[PersonRecord] = field(default_factory=list)
    labels: list[LabelRecord] | None = None
    author_association: str = ""
    milestone: str = ""
    comments_count: int = 0
    # (total, {content: count}); None: the payload had no reaction rollup
    reactions: tuple[int, dict[str, int]] | None = None
    html_url: str = ""
    created_at: datetime | None = None
    closed_at: datetime | None = None
    is_pull_request: bool = False
    # (merged, merged_at) when the payload says; None: it does not (what is stored stays)
    merge: tuple[bool, datetime | None] | None = None


@dataclass(slots=True)
class PullRecord:
    """A pull request's own fields (a pulls listing or a pull_request delivery)."""

    number: int
    pull_id: int | None
    title: str
    updated_at: datetime | None
    merged: bool
    merged_at: datetime | None
    body: str = ""
    state: str = "open"
    locked: bool = False
    author: PersonRecord | None = None
    merged_by: PersonRecord | None = None
    author_association: str = ""
    html_url: str = ""
    created_at: datetime | None = None
    closed_at: datetime | None = None
    draft: bool = False
    merge_commit_sha: str = ""
    base_ref: str = ""
    head_ref: str = ""
    head_sha: str = ""
    labels: list[LabelRecord] | None = None


@dataclass(slots=True)
class CommentRecord:
    external_id: str
    # the number of its issue in the repository; None when the payload does not say
    issue_number: int | None
    updated_at: datetime | None
    source: str = "github"
    node_id: str = ""
    author: PersonRecord | None = None
    author_association: str = ""
    body: str = ""
    html_url: str = ""
    created_at: datetime | None = None
    reactions_total: int | None = None


@dataclass(slots=True)
class PostRecord:
    external_id: str
    text: str
    created_at: datetime | None
    source: str = "x"
    author: PersonRecord | None = None
    lang: str = ""
    conversation_id: str = ""
    public_metrics: dict = field(default_factory=dict)
    entities: dict = field(default_factory=dict)
    referenced_tweets: list = field(default_factory=list)
    url: str = ""  # the post on its source, for people (http(s) only: the upsert path checks)


def parse_timestamp(value: str | None) -> datetime | None:
    """An ISO 8601 time as GitHub and X send them ("...Z"); a naive one is read as UTC."""
    if not value:
        return None
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed
