"""Ownership and alerts: rules route issues to their owners; new critical issues, regressions and
issues past their response deadline escalate, once each.

Rules (OwnershipRule, edited and validated in the admin) are CODEOWNERS-like: each maps a
component, a GPU family (CDNA3, RDNA3 ... of the reported gfx targets), a GitHub label or a
pull request's changed paths (CODEOWNERS patterns: triage/services/codeowners.py) to GitHub
users and teams; of the rules that match an issue (a file), the last (by `order`) wins, and a
rule of the issue's repository comes after one for every repository.

`ownership_route` (after classification) routes an open issue once its component is confident
(at least OWNERSHIP_MIN_CONFIDENCE) or decided by a triager: the owners that are users are
assigned on GitHub through the outbox (action ownership.assign, opted in per repository), and
the owners are told by e-mail (the Django users whose username is their GitHub login and who
have an address) and by the Slack-compatible webhook that spike alerts use (teams are named
there). A new critical issue or regression escalates at once; `ownership_overdue_sweep` (hourly)
escalates an issue that had no maintainer response within RESPONSE_DEADLINE_HOURS of its
severity. Every alert is recorded once per issue and kind (OwnerNotification).

An issue opened more than Repository.HISTORY_GRACE before its repository was tracked is history
the first sync read (Repository.since_tracked): it is neither routed, assigned, told of nor
escalated, so tracking a repository with years of open issues sends nothing. An issue that
already has an assignee is never assigned on GitHub (its owners are still told).

`pull_requests_review_request` (after a pull request's changed files were read at a new head)
asks the owners of those files for reviews through the outbox (action ownership.request_review,
opted in per repository): users as `reviewers`, teams of the repository's organization as
`team_reviewers`, never the pull request's author, and never one already asked on that pull
request; its owners are told once, as an issue's are.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from datetime import timedelta

import requests
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from automation.outbox import services as outbox
from automation.outbox.models import GitHubWrite
from automation.ownership import codeowners
from automation.ownership.models import OwnerNotification, OwnershipRule
from automation.ownership.selectors import rule_glob
from classifiers import gpu_targets
from classifiers.severity import REGRESSION
from config import linear_re
from config.reports import Tally
from triage.models import (
    Comment,
    Issue,
    IssuePrediction,
    PredictionCorrection,
    PullRequestFiles,
    Repository,
)

logger = logging.getLogger(__name__)
Kind = OwnerNotification.Kind
OWNER = linear_re.compile(r"^@?[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:/[A-Za-z0-9_.-]{1,100})?$")
FAMILY = linear_re.compile(r"\(([^)]*)\)")


class RuleInvalid(ValueError):
    pass


@dataclass
class RouteReport(Tally):
    TITLE = "ownership"

    routed: list[str] = field(default_factory=list)
    escalated: list[str] = field(default_factory=list)


def gpu_family(target: str) -> str:
    """ "gfx942" -> "CDNA3", "gfx1100" -> "RDNA3" (LLVM's table); "" when unknown."""
    found = gpu_targets.target(target)
    match = FAMILY.search(found.family) if found else None
    return match.group(1).replace(" ", "").upper() if match else ""


def rule_validate(*, kind: str, pattern: str, owners: str) -> None:
    if not pattern.strip():
        raise RuleInvalid("say what the rule matches")
    names = owners.replace(",", " ").split()
    bad = [o for o in names if not OWNER.match(o)]
    if kind == OwnershipRule.Kind.PATH:
        try:
            codeowners.pattern_validate(pattern)
        except codeowners.PatternInvalid as exc:
            raise RuleInvalid(str(exc)) from None
        if not names and not bad:
            return  # as in CODEOWNERS: those files have no owners
    if not names or bad:
        raise RuleInvalid(
            "owners are GitHub users or teams, @alice or @ORG/team"
            + (f" (not: {', '.join(bad)})" if bad else "")
        )
    if kind == OwnershipRule.Kind.GPU_FAMILY and not any(c in pattern for c in "*?"):
        families = {gpu_family(t) for t in gpu_targets.known_targets()} - {""}
        if pattern.replace(" ", "").upper() not in families:
            raise RuleInvalid(f"a GPU family is one of {', '.join(sorted(families))}")


# --- which owners ----------------------------------------------------------------------------


@dataclass
class IssueFacts:
    component: str = ""
    component_sure: bool = False
    families: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    severity: str = ""


def _facts(issue: Issue) -> IssueFacts:
    predictions = {p.model_name: p for p in IssuePrediction.objects.filter(issue=issue)}
    component = predictions.get("component")
    decided = PredictionCorrection.objects.filter(issue=issue, model_name="component").exists()
    sure = component is not None and (
        decided
        or (
            not component.needs_triage and component.confidence >= settings.OWNERSHIP_MIN_CONFIDENCE
        )
    )
    environment = predictions.get("environment")
    targets = (environment.label.split() if environment else []) or []
    severity = predictions.get("severity")
    return IssueFacts(
        component=component.label.lower() if component else "",
        component_sure=sure,
        families=tuple(sorted({f for f in map(gpu_family, targets) if f})),
        labels=tuple(issue.labels.values_list("name", flat=True)),
        severity=severity.label if severity else "",
    )


def _matches(rule: OwnershipRule, facts: IssueFacts) -> bool:
    pattern = rule.pattern.strip().lower()
    if rule.kind == OwnershipRule.Kind.COMPONENT:
        values = [facts.component] if facts.component_sure else []
    elif rule.kind == OwnershipRule.Kind.GPU_FAMILY:
        values, pattern = [f.lower() for f in facts.families], pattern.replace(" ", "")
    elif rule.kind == OwnershipRule.Kind.LABEL:
        values = [label.lower() for label in facts.labels]
    else:
        return False  # path rules own a pull request's files (pull_request_owners)
    glob = rule_glob(pattern)
    return any(glob.match(value) for value in values)


def _ordered_rules(repository_id: int | None, kind: str = "") -> list[OwnershipRule]:
    """The rules for a repository in the order they apply (the last match wins): by `order`,
    a repository's own after the all-repository ones."""
    rules = OwnershipRule.objects.filter(Q(repository__isnull=True) | Q(repository=repository_id))
    if kind:
        rules = rules.filter(kind=kind)
    return sorted(rules, key=lambda r: (r.order, r.repository_id is not None, r.id))


def owners_of(
    issue: Issue, facts: IssueFacts | None = None
) -> tuple[list[str], OwnershipRule | None]:
    """The owners of the last rule that matches the issue (CODEOWNERS-like), and that rule."""
    facts = facts or _facts(issue)
    chosen = None
    for rule in _ordered_rules(issue.repository_id):
        if _matches(rule, facts):
            chosen = rule
    return (chosen.owner_list(), chosen) if chosen else ([], None)


# --- telling them ------------------------------------------------------------------------------


def _emails(owners: list[str]) -> list[str]:
    users = [o for o in owners if "/" not in o]
    if not users:
        return []
    query = Q()
    for login in users:
        query |= Q(username__iexact=login)
    found = get_user_model().objects.filter(query).exclude(email="")
    return sorted({u.email for u in found})


def component_owner_emails(full_name: str, component: str) -> list[str]:
    """The e-mails of a component's owners in a repository (OWNER/NAME): the response-times
    digest's recipients; settings.RESPONSE_DIGEST_RECIPIENTS when no rule names any."""
    found = Repository.objects.filter(full_name__iexact=full_name).first()
    probe = Issue(repository_id=found.pk if found else None)
    owners, _ = owners_of(
        probe, IssueFacts(component=(component or "").lower(), component_sure=True)
    )
    return _emails(owners) or list(settings.RESPONSE_DIGEST_RECIPIENTS)


def _slack_escape(text: str) -> str:
    """Slack's control characters: an issue title cannot ping a channel or forge a link."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _notify(issue: Issue, kind: str, owners: list[str], why: str, rule) -> OwnerNotification | None:
    """Record the alert (once per issue and kind), then send it."""
    try:
        with transaction.atomic():
            row = OwnerNotification.objects.create(
                issue=issue, kind=kind, owners=owners, rule=str(rule or "")[:300]
            )
    except IntegrityError:
        return None
    title = " ".join(issue.title.split())[:200]
    subject = f"[ROCm triage] {row.get_kind_display()}: {issue.reference}"
    named = ", ".join("@" + o for o in owners) or "none"
    text = f"{issue.reference}: {title}\n{why}\nOwners: {named}\n{issue.html_url}"
    recipients = _emails(owners)
    if kind != Kind.ROUTED:
        recipients = sorted({*recipients, *settings.OWNERSHIP_ESCALATION_EMAILS})
    channels = []
    if recipients:
        send_mail(subject, text, None, recipients, fail_silently=True)
        channels.append(f"e-mail to {len(recipients)}")
    if settings.SPIKE_SLACK_WEBHOOK_URL:
        try:
            answer = requests.post(
                settings.SPIKE_SLACK_WEBHOOK_URL,
                json={"text": _slack_escape(f"{subject}\n{text}")},
                timeout=10,
            )
            channels.append(f"webhook (HTTP {answer.status_code})")
        except requests.RequestException as exc:
            logger.error("ownership webhook failed: %s", type(exc).__name__)
            channels.append("webhook failed")
    row.channels, row.detail = channels, why[:2000]
    row.save(update_fields=["channels", "detail"])
    return row


# --- routing and escalating --------------------------------------------------------------------


def _is_new_alarm(issue: Issue, facts: IssueFacts) -> str:
    if facts.severity == "critical":
        return "a new critical issue"
    labels = [label.lower() for label in facts.labels]
    if any("regression" in label for label in labels) or REGRESSION.search(
        f"{issue.title}\n{issue.body}"
    ):
        return "a new regression"
    return ""


def ownership_route(*, ids: list[int]) -> RouteReport:
    """Route open issues to their owners once their component is sure; escalate new critical
    issues and regressions once. Not the repository's history (Repository.since_tracked)."""
    report = RouteReport()
    if not OwnershipRule.objects.exists():
        return report
    issues = (
        Issue.objects.filter(
            pk__in=ids, is_pull_request=False, deleted_at__isnull=True, state=Issue.State.OPEN
        )
        .filter(Repository.since_tracked())
        .select_related("repository")
    )
    recent = timezone.now() - timedelta(days=settings.NEEDS_INFO_NEW_DAYS)
    for issue in issues:
        facts = _facts(issue)
        owners, rule = owners_of(issue, facts)
        if not owners:
            continue
        if _route(issue, owners, rule, facts):
            report.routed.append(f"{issue.reference} -> {', '.join(owners)}")
        alarm = _is_new_alarm(issue, facts) if issue.created_at >= recent else ""
        if alarm and _notify(issue, Kind.ESCALATED_NEW, owners, alarm, rule):
            report.escalated.append(f"{issue.reference}: {alarm}")
    return report


def _route(issue: Issue, owners: list[str], rule, facts: IssueFacts) -> bool:
    why = f"{rule.get_kind_display().split(' (')[0]} {rule.pattern!r} ({rule})"
    assigned = sorted(issue.assignees.values_list("login", flat=True))
    if assigned:  # someone has it already: tell the owners, leave GitHub's assignees alone
        why += f"; already assigned to {', '.join(assigned)}, not assigned on GitHub"
    row = _notify(issue, Kind.ROUTED, owners, why, rule)
    if row is None:
        return False
    users = [o for o in owners if "/" not in o][:10]
    if users and not assigned:
        outbox.write_plan(
            issue=issue,
            action="ownership.assign",
            operation=GitHubWrite.Operation.ASSIGN,
            key="ownership:assign",
            payload={"assignees": users},
            reason=why,
            decided_by=f"rule ownership {rule.pk}",
            model_name="component" if rule.kind == OwnershipRule.Kind.COMPONENT else "",
        )
    return True


def _first_responses(issue_ids: list[int]) -> set[int]:
    rows = Comment.objects.filter(
        issue_id__in=issue_ids,
        deleted_at__isnull=True,
        author_association__in=outbox.MAINTAINER_ASSOCIATIONS,
    ).values_list("issue_id", "body")
    return {issue_id for issue_id, body in rows if not outbox.is_bot_text(body)}


def ownership_overdue_sweep(*, now=None) -> RouteReport:
    """Hourly: escalate, once, each open issue with no maintainer response past its deadline
    (opened since its repository was tracked: not the history its first sync read)."""
    now = now or timezone.now()
    report = RouteReport()
    deadlines = settings.RESPONSE_DEADLINE_HOURS
    if not OwnershipRule.objects.exists() or not deadlines:
        return report
    oldest = now - timedelta(hours=min(deadlines.values()))
    candidates = list(
        Issue.objects.filter(
            is_pull_request=False,
            deleted_at__isnull=True,
            state=Issue.State.OPEN,
            created_at__lte=oldest,
        )
        .filter(Repository.since_tracked())
        .exclude(author_association__in=outbox.MAINTAINER_ASSOCIATIONS)
        .exclude(owner_notifications__kind=Kind.ESCALATED_OVERDUE)
        .select_related("repository")[:5000]
    )
    answered = _first_responses([i.pk for i in candidates])
    for issue in candidates:
        if issue.pk in answered:
            continue
        facts = _facts(issue)
        hours = deadlines.get(facts.severity or "medium")
        if hours is None or issue.created_at > now - timedelta(hours=hours):
            continue
        owners, rule = owners_of(issue, facts)
        why = f"no maintainer response within {hours} h ({facts.severity or 'medium'})"
        if owners and _notify(issue, Kind.ESCALATED_OVERDUE, owners, why, rule):
            report.escalated.append(f"{issue.reference}: {why}")
    return report


# --- pull requests: the owners of their changed files ---------------------------------------

REVIEW_ACTION = "ownership.request_review"
SHOWN_PER_OWNER = 3


def path_rules_apply(repository_id: int) -> bool:
    """Whether a path rule covers the repository (its own, or one for every repository): only
    then are its pull requests' changed files read."""
    return OwnershipRule.objects.filter(
        Q(repository__isnull=True) | Q(repository=repository_id), kind=OwnershipRule.Kind.PATH
    ).exists()


def pull_request_owners(pull: Issue) -> codeowners.PathOwners | None:
    """The owners of the files a pull request changes (as last read; None: never read)."""
    files = PullRequestFiles.objects.filter(issue_id=pull.pk).first()
    if files is None:
        return None
    rules = codeowners.PathRules(_ordered_rules(pull.repository_id, OwnershipRule.Kind.PATH))
    return rules.owners_of(files.paths())


def _why_reviewers(found: codeowners.PathOwners, owners: list[str], left_out: list[str]) -> str:
    parts = []
    for owner in owners:
        files = found.files_of(owner)
        more = f" and {len(files) - SHOWN_PER_OWNER} more" if len(files) > SHOWN_PER_OWNER else ""
        parts.append(f"@{owner}: {', '.join(files[:SHOWN_PER_OWNER])}{more}")
    rules = ", ".join(f"{r.pattern!r} (rule {r.pk})" for r in found.rules)
    why = f"owners of the changed files by path rules {rules}: " + "; ".join(parts)
    if left_out:
        why += f". Left out (a team of another organization): {', '.join(left_out)}"
    return why


def _asked_before(pull: Issue) -> set[str]:
    """Everyone a review was asked of (or is being asked of) on this pull request, lower case:
    `login` and `org/team`."""
    rows = GitHubWrite.objects.filter(issue=pull, action=REVIEW_ACTION).exclude(
        status__in=[GitHubWrite.Status.PLANNED, GitHubWrite.Status.SKIPPED]
    )
    org = pull.repository.owner.lower()
    asked = set()
    for payload in rows.values_list("payload", flat=True):
        asked.update(login.lower() for login in payload.get("reviewers", []))
        asked.update(f"{org}/{slug}".lower() for slug in payload.get("team_reviewers", []))
    return asked


def _review_plan(
    pull: Issue, found: codeowners.PathOwners, owners: list[str]
) -> GitHubWrite | None:
    """Plan one request of reviews from the owners not asked yet on this pull request."""
    org = pull.repository.owner.lower()
    asked = _asked_before(pull)
    users = [o for o in owners if "/" not in o and o.lower() not in asked]
    teams = [o for o in owners if "/" in o and o.lower() not in asked]
    left_out = [o for o in teams if o.split("/", 1)[0].lower() != org]
    teams = [o for o in teams if o not in left_out]
    if not users and not teams:
        return None
    wanted = sorted(o.lower() for o in users + teams)
    digest = hashlib.sha256(",".join(wanted).encode()).hexdigest()[:16]
    return outbox.write_plan(
        issue=pull,
        action=REVIEW_ACTION,
        operation=GitHubWrite.Operation.REQUEST_REVIEW,
        key=f"ownership:review:{digest}",
        payload={
            "reviewers": users,
            "team_reviewers": [o.split("/", 1)[1] for o in teams],
            "head_sha": pull.head_sha,
        },
        reason=_why_reviewers(found, users + teams, left_out),
        decided_by="rules ownership " + ", ".join(str(r.pk) for r in found.rules),
    )


def pull_requests_review_request(*, ids: list[int]) -> RouteReport:
    """Ask the owners of open pull requests' changed files (read at their head) for reviews,
    once each, never the author; tell the owners once, as an issue's are told. Not a pull
    request left untouched since before the tracking (the first sync's history)."""
    report = RouteReport()
    pulls = Issue.objects.filter(
        Repository.since_tracked(field="updated_at"),
        pk__in=ids,
        is_pull_request=True,
        deleted_at__isnull=True,
        state=Issue.State.OPEN,
        draft=False,
        pull_files__head_sha=F("head_sha"),
    ).select_related("repository", "author")
    for pull in pulls:
        found = pull_request_owners(pull)
        author = pull.author.login.lower() if pull.author else ""
        owners = [o for o in (found.owners if found else []) if o.lower() != author]
        if not owners:
            continue
        why = _why_reviewers(found, owners, [])
        _notify(pull, Kind.ROUTED, owners, why, ", ".join(str(r) for r in found.rules))
        row = _review_plan(pull, found, owners)
        if row is not None:
            report.routed.append(outbox.describe(row))
    return report
