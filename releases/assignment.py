"""Which train ships a merge: a pure function of the series, the branch and the merge time."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from releases import calendar
from releases.linking import release_branch_version

DEFAULT_BRANCH_FALLBACKS = ("main", "master", "develop")


@dataclass(frozen=True)
class Assignment:
    version: str  # "" when no train ships it
    via: str  # default_branch | release_branch | other_branch | ""


def train_for_pull(
    spec: calendar.SeriesSpec,
    *,
    base_ref: str,
    default_branch: str,
    merged_at: datetime | None,
    patterns=None,
) -> Assignment:
    """A merge into the default branch joins the first train whose branch cut ends after it;
    a merge into a release branch (release/X.Y ...) joins train X.Y; other branches: none."""
    if merged_at is None:
        return Assignment("", "")
    version = release_branch_version(base_ref, patterns)
    if version:
        return Assignment(version, "release_branch")
    is_default = (
        base_ref == default_branch if default_branch else base_ref in DEFAULT_BRANCH_FALLBACKS
    )
    if not is_default:
        return Assignment("", "other_branch")
    train = calendar.train_for_merge(spec, merged_at)
    return Assignment(train.version if train else "", "default_branch")
