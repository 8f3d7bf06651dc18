"""Reading the ownership rules (automation/ownership/services.py acts on them)."""

from __future__ import annotations

from automation.ownership.models import OwnershipRule
from config import linear_re
from triage.models import IssuePrediction


def rule_glob(pattern: str):
    """A rule's pattern (`*` and `?` as in file names, any case) as an RE2 pattern: linear."""
    parts = [
        ".*" if c == "*" else "." if c == "?" else linear_re.escape(c) for c in pattern.lower()
    ]
    return linear_re.compile("^" + "".join(parts) + "$", linear_re.S)


def rule_globs_naming(login: str) -> list:
    """The patterns of the component rules that name this login (the queue's "My issues")."""
    login = login.lstrip("@").lower()
    rules = OwnershipRule.objects.filter(kind=OwnershipRule.Kind.COMPONENT)
    return [rule_glob(r.pattern) for r in rules if login in (o.lower() for o in r.owner_list())]


def owned_components(login: str) -> list[str]:
    """The components (as predicted, lower case) that the ownership rules give this login
    (wiring OWNED_COMPONENTS: the queue's "My issues")."""
    globs = rule_globs_naming(login)
    if not globs:
        return []
    labels = set(
        IssuePrediction.objects.filter(model_name="component")
        .values_list("label", flat=True)
        .distinct()
    )
    return sorted(label for label in labels if any(g.match(label.lower()) for g in globs))
