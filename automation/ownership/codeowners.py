"""Path ownership rules: CODEOWNERS patterns of a pull request's changed files, matched in time
linear in the path (RE2, config.linear_re), and the owners of a set of files.

A pattern means what it means in GitHub's CODEOWNERS (gitignore's rules, without negation and
character ranges, which CODEOWNERS does not have either):
- a pattern that starts with `/`, or has a `/` in its middle, is from the repository's root
  (`/docs/`, `src/hip`); one without is matched at any depth (`*.md`, `apps/`, `Makefile`);
- a trailing `/` names a directory, and so everything under it;
- `*` and `?` stay within one path segment: `docs/*` is docs/a.md, not docs/a/b.md;
- `**` crosses segments: `**/logs` is a logs at any depth, `src/**` everything under src,
  `a/**/b` a/b, a/x/b, a/x/y/b;
- a last segment without wildcards is that file, or that directory and everything under it
  (`/build/logs`), as in Git;
- case matters, as in Git.

Per file, the last matching rule wins (CODEOWNERS); a rule with no owners leaves its files
without owners. The owners of a pull request are the union over its files.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from config import linear_re

logger = logging.getLogger(__name__)

EXAMPLES = "/docs/, *.md, src/**/kernels/"


class PatternInvalid(ValueError):
    pass


def _segment(text: str) -> str:
    """One path segment: `*` any characters but `/`, `?` one of them, the rest literal."""
    return "".join(
        "[^/]*" if c == "*" else "[^/]" if c == "?" else linear_re.escape(c) for c in text
    )


def _checked(pattern: str) -> str:
    text = pattern.strip()
    if not text.strip("/"):
        raise PatternInvalid(f"a path pattern names files or directories: {EXAMPLES}")
    if text.startswith("!"):
        raise PatternInvalid(
            "CODEOWNERS has no negation (!): a later path rule with no owners leaves its "
            "files without owners"
        )
    for bad, what in (("[", "character ranges ([...])"), ("\\", "escapes (\\)")):
        if bad in text:
            raise PatternInvalid(f"{what} are not CODEOWNERS patterns: {EXAMPLES}")
    if "//" in text:
        raise PatternInvalid("a path has no empty segment (//)")
    return text


def path_regex(pattern: str) -> str:
    """The RE2 pattern (anchored at both ends) of a CODEOWNERS pattern; PatternInvalid, with
    what is wrong, for one that cannot work."""
    text = _checked(pattern)
    body = text.strip("/")
    segments = body.split("/")
    if any("**" in segment and segment != "**" for segment in segments):
        raise PatternInvalid("** stands alone between slashes: **/logs, src/**, a/**/b")
    anchored = text.startswith("/") or "/" in body
    parts = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            parts.append(".*" if last else "(?:[^/]+/)*")
        else:
            parts.append(_segment(segment) + ("" if last else "/"))
    final = segments[-1]
    if final == "**":
        tail = ""
    elif text.endswith("/"):
        tail = "/.*"  # a directory: what is under it
    elif "*" in final or "?" in final:
        tail = ""  # files only: `docs/*` is not docs/a/b.md
    else:
        tail = "(?:/.*)?"  # that file, or that directory and what is under it
    return "^" + ("" if anchored else "(?:.*/)?") + "".join(parts) + tail + "$"


def pattern_validate(pattern: str) -> None:
    """Raise PatternInvalid unless the pattern is a CODEOWNERS pattern RE2 runs."""
    try:
        linear_re.compile(path_regex(pattern), linear_re.S)
    except linear_re.error as exc:  # pragma: no cover - every translation is RE2's syntax
        raise PatternInvalid(f"not a path pattern RE2 can run: {exc}") from None


@dataclass
class PathOwners:
    """Who owns a set of changed files, and by which rules."""

    owners: list[str] = field(default_factory=list)  # the union, in the order first found
    files: dict[str, list[str]] = field(default_factory=dict)  # owner -> the paths they own
    rules: list = field(default_factory=list)  # the rules that decided a file, in rule order
    unowned: int = 0  # paths no rule gives an owner

    def files_of(self, owner: str) -> list[str]:
        return self.files.get(owner, [])


class PathRules:
    """Rules (objects with `.pattern` and `.owner_list()`) in order, the last match winning:
    every pattern matched in one pass over a path (an RE2 set)."""

    def __init__(self, rules: Sequence):
        self.rules, patterns = [], []
        for rule in rules:
            try:
                patterns.append(path_regex(rule.pattern))
            except PatternInvalid as exc:  # saved before validation existed: left out
                logger.warning("path rule %r left out: %s", rule.pattern, exc)
                continue
            self.rules.append(rule)
        self._set = linear_re.PatternSet(patterns, linear_re.S)

    def rule_for(self, path: str):
        """The last rule that matches the path, or None."""
        found = self._set.matching(path)
        return self.rules[found[-1]] if found else None

    def owners_of(self, paths: Iterable[str]) -> PathOwners:
        result, deciding = PathOwners(), set()
        by_key: dict[str, str] = {}  # owner, lower case -> as first written
        for path in paths:
            rule = self.rule_for(path)
            owners = rule.owner_list() if rule is not None else []
            if not owners:
                result.unowned += 1
            if rule is not None:
                deciding.add(id(rule))
            for owner in owners:
                name = by_key.setdefault(owner.lower(), owner)
                if name not in result.files:
                    result.owners.append(name)
                    result.files[name] = []
                result.files[name].append(path)
        result.rules = [rule for rule in self.rules if id(rule) in deciding]
        return result
