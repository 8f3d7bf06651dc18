"""Reading the ownership rules (triage/services/ownership.py acts on them)."""

from __future__ import annotations

from config import linear_re
from triage.models import OwnershipRule


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
