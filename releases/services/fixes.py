"""Fix links: parsed from merged pull requests, added or removed by maintainers, put on trains.

Replaying the same sync or webhook changes nothing: links are upserted on (issue, pull request),
a maintainer's link or removal (source=manual) always wins over parsing, and a parsed link whose
keyword left the pull request's text is deleted. The text is the title, the body and the
commit messages (triage stores them for merged pull requests). A new or changed fix asks
kernels_ci to re-verify the issue's reproducer (on commit).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from releases.assignment import train_for_pull
from releases.linking import closing_references, resolve_repository
from releases.models import FixLink, ReleaseSeries
from releases.selectors import series_for_repository
from releases.services.backports import backports_after_links
from releases.services.verification import verification_enqueue
from triage.models import Issue
from triage.selectors.issues import issue_list

logger = logging.getLogger(__name__)


class FixLinkError(ValueError):
    pass


@dataclass
class LinkResult:
    created: int = 0
    updated: int = 0
    deleted: int = 0
    unchanged: int = 0
    unresolved: list[str] = field(default_factory=list)

    def add(self, other: LinkResult) -> None:
        self.created += other.created
        self.updated += other.updated
        self.deleted += other.deleted
        self.unchanged += other.unchanged
        self.unresolved += other.unresolved

    def summary(self) -> str:
        return (
            f"fix links: {self.created} created, {self.updated} updated, {self.deleted} deleted, "
            f"{self.unchanged} unchanged, {len(self.unresolved)} references to unknown issues"
        )


def _chain_fields(pull_request: Issue, series: ReleaseSeries | None) -> dict:
    assignment = (
        train_for_pull(
            series.spec(),
            base_ref=pull_request.base_ref,
            default_branch=pull_request.repository.default_branch,
            merged_at=pull_request.merged_at if pull_request.merged else None,
            patterns=series.release_branch_patterns or None,
        )
        if series
        else None
    )
    return {
        "merge_commit_sha": pull_request.merge_commit_sha if pull_request.merged else "",
        "base_ref": pull_request.base_ref,
        "merged_at": pull_request.merged_at if pull_request.merged else None,
        "series": series if assignment and assignment.version else None,
        "train_version": assignment.version if assignment else "",
        "via": assignment.via if assignment else "",
    }


def _targets(pull_request: Issue) -> tuple[dict[int, str], list[str]]:
    """{issue id: keyword} of the issues the merged pull request closes, and unknown refs."""
    if not pull_request.merged:
        return {}, []
    messages = [m for m in pull_request.commit_messages or [] if isinstance(m, str)]
    references = closing_references(pull_request.title, pull_request.body, *messages)
    own = pull_request.repository.full_name
    found: dict[int, str] = {}
    unresolved = []
    for reference in references:
        full_name = resolve_repository(reference, own)
        issue_id = (
            issue_list(repo=full_name, is_pull_request=False)
            .filter(number=reference.number)
            .values_list("id", flat=True)
            .first()
        )
        if issue_id is None:
            unresolved.append(f"{full_name}#{reference.number}")
        else:
            found[issue_id] = reference.keyword
    return found, unresolved


def _apply(link: FixLink, values: dict) -> bool:
    changed = False
    for key, value in values.items():
        current = getattr(link, key + "_id" if key == "series" else key)
        wanted = value.pk if key == "series" and value is not None else value
        if current != wanted:
            setattr(link, key, value)
            changed = True
    return changed


@transaction.atomic
def fix_links_sync(*, pull_request: Issue) -> LinkResult:
    """Bring the fix links of one pull request in line with its text and merge state."""
    result = LinkResult()
    targets, result.unresolved = _targets(pull_request)
    series = series_for_repository(pull_request.repository_id)
    chain = _chain_fields(pull_request, series)
    now = timezone.now()
    existing = {link.issue_id: link for link in FixLink.objects.filter(pull_request=pull_request)}
    changed_issues = []
    for issue_id, link in existing.items():
        if link.source == FixLink.Source.PARSED and issue_id not in targets:
            link.delete()
            result.deleted += 1
            continue
        values = dict(chain)
        if link.source == FixLink.Source.PARSED:
            values["keyword"] = targets[issue_id]
        if _apply(link, values):
            link.updated_at = now
            link.save()
            result.updated += 1
            if not link.removed:
                changed_issues.append(issue_id)
        else:
            result.unchanged += 1
    for issue_id, keyword in targets.items():
        if issue_id in existing:
            continue
        FixLink.objects.create(
            issue_id=issue_id,
            pull_request=pull_request,
            source=FixLink.Source.PARSED,
            keyword=keyword,
            created_at=now,
            updated_at=now,
            **chain,
        )
        result.created += 1
        changed_issues.append(issue_id)
    if result.created or result.updated:
        backports_after_links(pull_request=pull_request)
    if pull_request.merged:
        verification_enqueue(
            issue_ids=changed_issues, reason=f"fix {pull_request.reference} linked"
        )
    return result


def fix_links_sync_ids(*, ids: list[int]) -> LinkResult:
    """The pipeline's step: the pull requests among these changed rows get their links synced."""
    total = LinkResult()
    pulls = issue_list(is_pull_request=True).filter(id__in=ids).order_by("id")
    for pull_request in pulls:
        total.add(fix_links_sync(pull_request=pull_request))
    return total


def _manual_link_write(*, issue: Issue, pull_request: Issue, user, removed: bool) -> FixLink:
    """A maintainer's link between an issue and the pull request fixing it, kept or removed (a
    kept one gets its train)."""
    if issue.is_pull_request or not pull_request.is_pull_request:
        raise FixLinkError("link an issue to a pull request")
    chain = (
        {}
        if removed
        else _chain_fields(pull_request, series_for_repository(pull_request.repository_id))
    )
    link, _ = FixLink.objects.update_or_create(
        issue=issue,
        pull_request=pull_request,
        defaults={
            "source": FixLink.Source.MANUAL,
            "removed": removed,
            "created_by": user,
            "updated_at": timezone.now(),
            **chain,
        },
    )
    return link


@transaction.atomic
def fix_link_add(*, issue: Issue, pull_request: Issue, user) -> FixLink:
    """A maintainer links a pull request to the issue it fixes (restores a removed link)."""
    link = _manual_link_write(issue=issue, pull_request=pull_request, user=user, removed=False)
    backports_after_links(pull_request=pull_request)
    if pull_request.merged:
        verification_enqueue(
            issue_ids=[issue.id], reason=f"fix {pull_request.reference} linked by hand"
        )
    return link


@transaction.atomic
def fix_link_remove(*, issue: Issue, pull_request: Issue, user) -> FixLink:
    """A maintainer removes a link; the removal is kept so parsing never brings it back."""
    return _manual_link_write(issue=issue, pull_request=pull_request, user=user, removed=True)


def fix_links_assign_trains(*, series: ReleaseSeries | None = None) -> int:
    """Recompute the train of every link (after a series or override changed); returns changes."""
    links = FixLink.objects.select_related("pull_request__repository")
    if series is not None:
        links = links.filter(Q(series=series) | Q(series__isnull=True))
    changed = 0
    cache: dict[int, ReleaseSeries | None] = {}
    for link in links.order_by("id"):
        repository_id = link.pull_request.repository_id
        if repository_id not in cache:
            cache[repository_id] = series_for_repository(repository_id)
        chain = _chain_fields(link.pull_request, cache[repository_id])
        if _apply(link, chain):
            link.save()
            changed += 1
    return changed
