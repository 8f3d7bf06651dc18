"""Ownership and alerts: rules route issues to their owners; new critical issues, regressions and
issues past their response deadline escalate, once each.

Rules (OwnershipRule, edited and validated in the admin) are CODEOWNERS-like: each maps a
component, a GPU family (CDNA3, RDNA3 ... of the reported gfx targets) or a GitHub label to
GitHub users and teams; of the rules that match an issue, the last (by `order`) wins, and a rule
of the issue's repository comes after one for every repository.

`ownership_route` (after classification) routes an open issue once its component is confident
(at least OWNERSHIP_MIN_CONFIDENCE) or decided by a triager: the owners that are users are
assigned on GitHub through the outbox (action ownership.assign, opted in per repository), and
the owners are told by e-mail (the Django users whose username is their GitHub login and who
have an address) and by the Slack-compatible webhook that spike alerts use (teams are named
there). A new critical issue or regression escalates at once; `ownership_overdue_sweep` (hourly)
escalates an issue that had no maintainer response within RESPONSE_DEADLINE_HOURS of its
severity. Every alert is recorded once per issue and kind (OwnerNotification).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta

import requests
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from classifiers import gpu_targets
from classifiers.severity import REGRESSION
from config import linear_re
from triage.models import (
    Comment,
    GitHubWrite,
    Issue,
    IssuePrediction,
    OwnerNotification,
    OwnershipRule,
    PredictionCorrection,
    Repository,
)
from triage.services import outbox

logger = logging.getLogger(__name__)
Kind = OwnerNotification.Kind
OWNER = linear_re.compile(r"^@?[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:/[A-Za-z0-9_.-]{1,100})?$")
FAMILY = linear_re.compile(r"\(([^)]*)\)")


class RuleInvalid(ValueError):
    pass


@dataclass
class RouteReport:
    routed: list[str] = field(default_factory=list)
    escalated: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return f"ownership: {len(self.routed)} routed, {len(self.escalated)} escalated"


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


def _glob(pattern: str):
    """A rule's pattern (`*` and `?` as in file names, any case) as an RE2 pattern: linear."""
    parts = [
        ".*" if c == "*" else "." if c == "?" else linear_re.escape(c) for c in pattern.lower()
    ]
    return linear_re.compile("^" + "".join(parts) + "$", linear_re.S)


def rule_globs_naming(login: str) -> list:
    """The patterns of the component rules that name this login (the queue's "My issues")."""
    login = login.lstrip("@").lower()
    rules = OwnershipRule.objects.filter(kind=OwnershipRule.Kind.COMPONENT)
    return [_glob(r.pattern) for r in rules if login in (o.lower() for o in r.owner_list())]


def _matches(rule: OwnershipRule, facts: IssueFacts) -> bool:
    pattern = rule.pattern.strip().lower()
    if rule.kind == OwnershipRule.Kind.COMPONENT:
        values = [facts.component] if facts.component_sure else []
    elif rule.kind == OwnershipRule.Kind.GPU_FAMILY:
        values, pattern = [f.lower() for f in facts.families], pattern.replace(" ", "")
    else:
        values = [label.lower() for label in facts.labels]
    glob = _glob(pattern)
    return any(glob.match(value) for value in values)


def owners_of(
    issue: Issue, facts: IssueFacts | None = None
) -> tuple[list[str], OwnershipRule | None]:
    """The owners of the last rule that matches the issue (CODEOWNERS-like), and that rule."""
    facts = facts or _facts(issue)
    rules = OwnershipRule.objects.filter(
        Q(repository__isnull=True) | Q(repository=issue.repository_id)
    )
    ordered = sorted(rules, key=lambda r: (r.order, r.repository_id is not None, r.id))
    chosen = None
    for rule in ordered:
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
    issues and regressions once."""
    report = RouteReport()
    if not OwnershipRule.objects.exists():
        return report
    issues = Issue.objects.filter(
        pk__in=ids, is_pull_request=False, deleted_at__isnull=True, state=Issue.State.OPEN
    ).select_related("repository")
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
    row = _notify(issue, Kind.ROUTED, owners, why, rule)
    if row is None:
        return False
    users = [o for o in owners if "/" not in o][:10]
    if users:
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
    """Hourly: escalate, once, each open issue with no maintainer response past its deadline."""
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
