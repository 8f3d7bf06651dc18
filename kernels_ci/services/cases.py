"""Repro cases: extraction from an issue, approval, and `/repro` comments."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from config import linear_re
from kernels_ci.backends import describe, known_targets, registry
from kernels_ci.environments import IMAGE_PINNED, PINNABLE, release, series
from kernels_ci.extraction import extract
from kernels_ci.models import ReproCase, script_sha256
from triage.models import Comment, Issue

logger = logging.getLogger(__name__)

REPRO_COMMAND_RE = linear_re.compile(r"^[ \t]*/repro\b(?P<args>[^\n]*)", linear_re.M)
TRUSTED_ASSOCIATIONS = {"COLLABORATOR", "MEMBER", "OWNER"}


class NoReproducer(ValueError):
    pass


@dataclass
class RefreshReport:
    cases: int = 0
    approved: list[int] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    queued_runs: list[int] = field(default_factory=list)


def _backend_for(case: ReproCase, found) -> str:
    """Keep a backend chosen for the case while it still applies to the script; else suggest."""
    current = case.backend
    if current in registry() and describe(current).applies_to(found.language, found.uses_triton):
        return current
    return found.suggested_backend()


def no_reproducer_reason(case: ReproCase | None) -> str:
    """Why the issue gives nothing to run, in the words of its page's repro panel."""
    if case is not None and case.extraction_problem:
        return f"it is {case.extraction_problem}"
    if case is not None and case.choice_reason:
        return case.choice_reason
    return "no Python/Triton/torch or HIP C++ code block"


def case_refresh(*, issue: Issue) -> ReproCase | None:
    """Extract the case from the issue as it is now; None when it has no reproducer (and no case).

    The case row is locked for the rest of the caller's transaction (cases_refresh processes the
    `/repro` comments under that lock). A changed script keeps its old approval on record, which
    no longer matches: it needs a new one; `script_changed_at` is then the issue's updated_at,
    no earlier than the edit, so no comment written before the edit approves the new script.
    """
    found = extract(title=issue.title, body=issue.body)
    if found.problem:
        logger.warning("issue %s: %s", issue.pk, found.problem)
    with transaction.atomic():
        case = ReproCase.objects.select_for_update().filter(issue=issue).first()
        if case is None:
            if not found.script and not found.problem and not found.incomplete:
                return None
            case, _ = ReproCase.objects.get_or_create(issue=issue)  # a concurrent creator wins
            case = ReproCase.objects.select_for_update().get(pk=case.pk)
        now = timezone.now()
        sha = script_sha256(found.script) if found.script else ""
        if sha != case.sha256:
            case.script_changed_at = issue.updated_at or now
        known = set(settings.REPRO_ARCHITECTURES)
        case.script = found.script
        case.sha256 = sha
        case.language = found.language
        case.uses_triton = found.uses_triton
        case.block_count = found.block_count
        case.choice_reason = (found.choice_reason or found.incomplete)[:255]
        case.extraction_problem = found.problem[:255]
        case.symptom = found.symptom
        case.symptom_detail = found.symptom_detail
        case.symptom_message = found.symptom_message
        case.expected_error = found.expected_error
        case.imports_added = found.imports_added
        case.environment = found.environment
        case.missing_facts = found.missing_facts
        case.archs = [arch for arch in found.archs if arch in known]
        case.backend = _backend_for(case, found) if found.script else ""
        case.extracted_at = now
        case.save()
    return case


def case_approve(
    *, case: ReproCase, user=None, login: str = "", via: str = "dashboard"
) -> ReproCase:
    """Approve the case's current script, exactly: its sha256 is what may run."""
    if not case.script:
        raise NoReproducer(f"issue {case.issue_id} has no reproducer to approve")
    case.approved_by = user
    case.approved_by_login = login or (user.get_username() if user is not None else "")
    case.approved_via = via
    case.approved_at = timezone.now()
    case.approved_sha256 = case.sha256
    case.save(
        update_fields=[
            "approved_by",
            "approved_by_login",
            "approved_via",
            "approved_at",
            "approved_sha256",
        ]
    )
    logger.info("repro case %s approved by %s via %s", case.pk, case.approved_by_login, via)
    return case


def command_arguments(args: str) -> dict:
    """`/repro [TARGET ...] [backend=NAME] [runs=N] [triton=VERSION] [rocm=SERIES]`: a target
    is any one a backend lists (gfx942, sm_90, cpu); a package that runners can pin, at a
    release number (ROCm: a series), runs the attempt on that release too."""
    archs, options, versions = [], {}, {}
    targets = known_targets() | {"cpu"}
    for word in args.split()[:20]:
        key, sep, value = word.partition("=")
        if sep and key in ("backend", "runs"):
            options[key] = value
        elif sep and key in PINNABLE and release(value):
            versions[key] = release(value)
        elif sep and key in IMAGE_PINNED and series(value):
            versions[key] = series(value)
        elif word in targets or linear_re.fullmatch(r"gfx[0-9a-f]{2,5}", word):
            archs.append(word)
    return {"archs": archs, "versions": versions, **options}


def commands_process(*, case: ReproCase, report: RefreshReport) -> None:
    """Act once on each `/repro` comment: by a collaborator it approves and queues runs.

    Call with the case row locked (case_refresh inside a transaction): two refreshes of one issue
    then read and claim `seen_command_ids` one after the other. A comment written before the
    reproducer last changed approves nothing (it was about another script)."""
    # runs imports this module (a run's case)
    from kernels_ci.services.runs import RunRequestError, runs_queue

    seen = set(case.seen_command_ids)
    comments = (
        Comment.objects.filter(
            issue_id=case.issue_id, deleted_at__isnull=True, body__contains="/repro"
        )
        .select_related("author")
        .order_by("created_at", "id")
    )
    for comment in comments:
        match = REPRO_COMMAND_RE.search(comment.body)
        if comment.external_id in seen or match is None:
            continue
        seen.add(comment.external_id)
        login = comment.author.login if comment.author else "ghost"
        if comment.author_association.upper() not in TRUSTED_ASSOCIATIONS:
            report.refused.append(
                f"{login} ({comment.author_association or 'NONE'}) may not /repro"
            )
            continue
        if comment.created_at < case.script_changed_at:
            report.refused.append(
                f"/repro by {login} ({comment.created_at:%Y-%m-%d %H:%M}) predates the "
                "reproducer's last change: comment /repro again to approve the new script"
            )
            continue
        if not case.script:
            report.refused.append(f"/repro by {login}: the issue has no reproducer")
            continue
        case_approve(case=case, login=login, via="comment")
        report.approved.append(case.pk)
        args = command_arguments(match.group("args"))
        if args["versions"] != case.pinned_versions:
            case.pinned_versions = args["versions"]
            case.save(update_fields=["pinned_versions"])
        try:
            runs = runs_queue(
                case=case,
                archs=args["archs"] or None,
                backend=args.get("backend") or None,
                runs=int(args["runs"]) if str(args.get("runs", "")).isdigit() else None,
            )
        except RunRequestError as exc:
            report.refused.append(f"/repro by {login}: {exc}")
            continue
        report.queued_runs.extend(run.pk for run in runs)
    if seen != set(case.seen_command_ids):  # most refreshes find no new command: no write
        case.seen_command_ids = sorted(seen)
        case.save(update_fields=["seen_command_ids"])


def cases_refresh(*, issue_ids: list[int]) -> RefreshReport:
    report = RefreshReport()
    issues = Issue.objects.filter(id__in=issue_ids, deleted_at__isnull=True, is_pull_request=False)
    # one query for the page, not one per issue: most issues have no `/repro` comment (a comment
    # stored after this read is processed by the refresh its own ingestion enqueues)
    with_commands = set(
        Comment.objects.filter(
            issue_id__in=issue_ids, deleted_at__isnull=True, body__contains="/repro"
        ).values_list("issue_id", flat=True)
    )
    for issue in issues:
        with transaction.atomic():
            case = case_refresh(issue=issue)
            if case is None:
                continue
            report.cases += 1
            if issue.id in with_commands:
                commands_process(case=case, report=report)
    return report
