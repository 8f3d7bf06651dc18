"""The demo's part of acting on GitHub (wiring DEMO_LOADERS): all of it a dry run."""

from __future__ import annotations

from automation.known_errors import services as known_errors
from automation.known_errors.models import KnownError
from automation.needs_info import services as needs_info
from automation.outbox import services as outbox
from automation.ownership import services as ownership
from automation.ownership.models import OwnershipRule
from triage.models import Issue, Repository

DEMO_WRITES_REPOSITORY = "rocm-demo/ROCm"
DEMO_KNOWN_ERROR = (
    r"Unable to find code object for all current devices|hipErrorNoBinaryForGpu|"
    r"invalid device function|no kernel image is available"
)
DEMO_OWNERS = [  # fictional owners: the demo never names a real person
    ("component", "rocblas", "@demo-rocblas-owner"),
    ("component", "hipblaslt", "@demo-hipblaslt-owner"),
    ("gpu_family", "CDNA3", "@demo-instinct-owner @demo-org/instinct-triage"),
    ("gpu_family", "RDNA4", "@demo-radeon-owner"),
]


def demo_github_actions_load() -> str:
    """The demo's acting on GitHub, as a dry run (the demo has no GitHub to write to):
    rocm-demo/ROCm opted in to every action but known_errors.auto in dry-run mode, ownership
    rules with fictional owners, a known error; then needs-info, known errors and ownership over
    the open issues plan their writes."""
    repository = Repository.objects.filter(full_name=DEMO_WRITES_REPOSITORY).first()
    if repository is None:
        return "no demo repository"
    # every action but answering known errors unasked: a triager confirms them in one click
    actions = [a for a in outbox.ACTIONS if a != "known_errors.auto"]
    repository.github_actions, repository.github_dry_run = actions, True
    repository.save(update_fields=["github_actions", "github_dry_run"])
    for order, (kind, pattern, owners) in enumerate(DEMO_OWNERS, start=1):
        OwnershipRule.objects.get_or_create(
            repository=None, kind=kind, pattern=pattern, defaults={"owners": owners, "order": order}
        )
    matching = (
        Issue.objects.filter(repository=repository, is_pull_request=False, state="open")
        .filter(title__icontains="code object")
        .order_by("created_at")
        .first()
    )
    if matching is not None:
        KnownError.objects.get_or_create(
            name="no code object for the GPU",
            defaults={
                "pattern": DEMO_KNOWN_ERROR,
                "canonical": matching,
                "answer": "@{{ reporter }}: this is {{ canonical }}: the build has no code "
                "object for {{ target|default:'your GPU' }}. The workaround and the fix are "
                "tracked there.",
            },
        )
    ids = list(
        Issue.objects.filter(state="open", is_pull_request=False).values_list("pk", flat=True)
    )
    asked = needs_info.needs_info_refresh(ids=ids)
    matched = known_errors.known_errors_match(ids=ids)
    routed = ownership.ownership_route(ids=ids)
    return f"{asked.summary()}; {matched.summary()}; {routed.summary()} (dry run)"
