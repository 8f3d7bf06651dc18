"""Known errors: signatures of errors that return week after week, matched on new reports.

A signature (KnownError, kept in the admin) is an RE2 pattern looked for in an issue's title and
body, with conditions on the reporter's environment as the extraction read it: only some gfx
targets, and/or only when the reported ROCm release does not support the reported target on
that platform (classifiers.support_matrix; a release the matrix does not know is never judged).
A match is proposed on the issue page (KnownErrorMatch): "duplicate of the canonical issue", with
the signature's answer. A triager posts it in one click (`known_error_answer`): the duplicates
decision is recorded as a triager's correction and the answer goes out through the outbox
(action known_errors.answer); a repository that opted in to known_errors.auto gets it without
the click. The canonical issue's page counts the reports it collected by target and release.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from django.db import IntegrityError, transaction

from automation.known_errors.models import KnownError, KnownErrorMatch
from automation.outbox import reply_templates
from automation.outbox import services as outbox
from automation.outbox.models import GitHubWrite
from classifiers import support_matrix
from config import linear_re
from config.reports import Tally
from triage.models import Issue, IssuePrediction, TriageAction
from triage.services import classification

MAX_TEXT = 256 * 1024
ANSWER_VARIABLES = {
    "reporter": "octocat",
    "target": "gfx1031",
    "rocm_version": "6.2.0",
    "canonical": "ROCm/ROCm#4242",
    "repository": "ROCm/ROCm",
    "number": 5151,
    # ROCm's support matrix on the report's target, release and platform, in a sentence
    "support": "ROCm 6.2.0 on Linux does not list gfx1031 (source: https://rocm.docs.amd.com/).",
}
TARGET = linear_re.compile(r"^gfx[0-9a-f]{3,5}$")


class SignatureInvalid(ValueError):
    pass


@dataclass
class MatchReport(Tally):
    TITLE = "known errors"

    proposed: list[str] = field(default_factory=list)
    answered: list[str] = field(default_factory=list)


def signature_validate(*, pattern: str, targets: str, answer: str) -> None:
    """A pattern RE2 compiles, targets that are gfx targets, an answer that renders."""
    try:
        linear_re.compile(pattern)
    except Exception as exc:  # noqa: BLE001 - RE2's error classes differ by build
        raise SignatureInvalid(f"the pattern is not an RE2 pattern: {exc}") from None
    bad = [t for t in _targets(targets) if not TARGET.match(t)]
    if bad:
        raise SignatureInvalid(f"not gfx targets: {', '.join(bad)}")
    try:
        reply_templates.text_validate(body=answer, variables=ANSWER_VARIABLES)
    except reply_templates.TemplateInvalid as exc:
        raise SignatureInvalid(f"the answer: {exc}") from None


def _targets(text: str) -> list[str]:
    return [t.strip().lower() for t in (text or "").split(",") if t.strip()]


def _compiled(signature: KnownError):
    return linear_re.compile(signature.pattern, linear_re.I)


def _environment(issue_ids) -> dict[int, dict]:
    return dict(
        IssuePrediction.objects.filter(
            issue_id__in=issue_ids, model_name="environment"
        ).values_list("issue_id", "evidence")
    )


def signature_matches(signature: KnownError, issue: Issue, environment: dict) -> dict | None:
    """{evidence, target, rocm_version} when the issue shows this known error, else None."""
    text = f"{issue.title}\n{issue.body or ''}"[:MAX_TEXT]
    found = _compiled(signature).search(text)
    if not found:
        return None
    architectures = list(environment.get("architectures") or [])
    version = environment.get("rocm_version") or ""
    wanted = _targets(signature.targets)
    if wanted:
        architectures = [a for a in architectures if a in wanted]
        if not architectures:
            return None
    target = architectures[0] if architectures else ""
    if signature.when_unsupported:
        unsupported = [
            a
            for a in architectures
            if support_matrix.supports(a, version, environment.get("os") or "") is False
        ]
        if not unsupported:
            return None  # supported, or a release or target we cannot judge
        target = unsupported[0]
    return {"evidence": found.group(0)[:300], "target": target, "rocm_version": version}


def known_errors_match(*, ids: list[int]) -> MatchReport:
    """Propose the known errors these open issues show (once per issue and signature)."""
    report = MatchReport()
    signatures = list(KnownError.objects.filter(enabled=True).select_related("canonical"))
    if not signatures:
        return report
    issues = list(
        Issue.objects.filter(
            pk__in=ids, is_pull_request=False, deleted_at__isnull=True, state=Issue.State.OPEN
        ).select_related("repository", "author")
    )
    environments = _environment([i.pk for i in issues])
    for issue in issues:
        for signature in signatures:
            if signature.canonical_id == issue.pk:
                continue
            found = signature_matches(signature, issue, environments.get(issue.pk) or {})
            if found is None:
                continue
            try:
                with transaction.atomic():
                    match = KnownErrorMatch.objects.create(
                        signature=signature, issue=issue, **found
                    )
            except IntegrityError:
                continue  # proposed already
            report.proposed.append(f"{issue.reference} ~ {signature.name}")
            if outbox.opted_in(issue.repository, "known_errors.auto"):
                known_error_answer(match=match, user=None)
                report.answered.append(f"{issue.reference} ~ {signature.name}")
    return report


@transaction.atomic
def known_error_answer(*, match: KnownErrorMatch, user) -> GitHubWrite:
    """Post the signature's answer; a triager's click also records "duplicate of the canonical
    issue" as their decision (a training label). The rule's own answer records no decision:
    the model never learns from the rule as if a person had confirmed it."""
    signature, issue = match.signature, match.issue
    canonical = signature.canonical.reference
    if user is not None:
        classification.prediction_correct(
            issue=issue, model_name="duplicates", label=canonical, user=user
        )
    by = user.get_username() if user else f"rule known-error {signature.name}"
    environment = _environment([issue.pk]).get(issue.pk) or {}
    support = support_matrix.verdict(
        match.target, match.rocm_version, environment.get("os") or ""
    ).sentence
    body = reply_templates.render_text(
        signature.answer,
        reporter=issue.author.login if issue.author else "",
        target=match.target,
        rocm_version=match.rocm_version,
        canonical=canonical,
        repository=issue.repository.full_name,
        number=issue.number,
        support=support,
    )
    write = outbox.write_plan(
        issue=issue,
        action="known_errors.answer",
        operation=GitHubWrite.Operation.COMMENT,
        key=f"known-error:{signature.pk}",
        payload={"body": body, "marker": f"known-error-{signature.pk}"},
        reason=f"known error {signature.name!r} ({match.evidence}); duplicate of {canonical}",
        decided_by=by,
        actor=user,
        asked=user is not None,
    )
    if write.status != GitHubWrite.Status.SKIPPED:
        # answered (or, in a dry run, planned); an answer the outbox skipped (not opted in, the
        # stop switch) leaves the match proposed: it is not answered, and can be posted later
        match.state, match.decided_by = KnownErrorMatch.State.ANSWERED, by
        match.save(update_fields=["state", "decided_by"])
    TriageAction.objects.create(
        issue=issue,
        actor=user,
        action="known_error.answer",
        after={"signature": signature.name, "canonical": canonical, "write": write.status},
    )
    return write


def known_error_dismiss(*, match: KnownErrorMatch, user) -> None:
    match.state, match.decided_by = KnownErrorMatch.State.DISMISSED, user.get_username()
    match.save(update_fields=["state", "decided_by"])
    TriageAction.objects.create(
        issue=match.issue,
        actor=user,
        action="known_error.dismiss",
        after={"signature": match.signature.name},
    )


def collected_reports(canonical: Issue) -> dict:
    """The reports the canonical issue's known errors collected: by target and by release."""
    matches = KnownErrorMatch.objects.filter(signature__canonical=canonical).exclude(
        state=KnownErrorMatch.State.DISMISSED
    )
    rows = list(matches.values_list("target", "rocm_version"))
    return {
        "total": len(rows),
        "by_target": Counter(t or "unknown" for t, _ in rows).most_common(),
        "by_release": Counter(v or "unknown" for _, v in rows).most_common(),
    }
