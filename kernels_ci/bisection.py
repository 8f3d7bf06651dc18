"""Bisection over published releases: which release changed a reproducer's verdict. Pure.

The releases run from an older end to a newer one whose attempts disagree: the older one
reproduces and the newer passes (the bug was fixed in between), or the other way round (it
regressed). Each step is an ordinary attempt on one release, its verdict read as

- bad: the reported failure shows (reproduced, flaky);
- good: the kernel ran and passed (not reproduced);
- skip: anything else (the release cannot judge the script: environment mismatch, infra error,
  invalid, failed differently, failed with nothing to compare), as `git bisect skip` does.

The next release tried is the untested one nearest the middle of the interval still open; the
answer is the first release on the newer side. At most ceil(log2(n)) + 2 steps for the n
releases of the range, both ends included: ceil(log2(n - 1)) when every step decides (n - 1
places the change can be), two more for releases that cannot be tested; past the bound, or with
only untestable releases left, the answer is the interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

BAD, GOOD, SKIP = "bad", "good", "skip"
BAD_OUTCOMES = {"reproduced", "flaky"}
GOOD_OUTCOMES = {"not_reproduced"}


def verdict_of(outcome: str) -> str:
    if outcome in BAD_OUTCOMES:
        return BAD
    return GOOD if outcome in GOOD_OUTCOMES else SKIP


def max_steps(releases: list[str]) -> int:
    """ceil(log2(n)) + 2 for the n releases of the range, both ends included (0 when no release
    lies between the ends)."""
    return math.ceil(math.log2(len(releases))) + 2 if len(releases) > 2 else 0


@dataclass
class Step:
    next_release: str = ""  # the release to try next ("" when done)
    done: bool = False
    decided: bool = False  # the change is pinned to one release (else an interval)
    first: str = ""  # the first release on the newer side
    last_other: str = ""  # the last release on the older side
    result: str = ""


def bisect_step(
    *, releases: list[str], verdicts: dict[str, str], direction: str, steps: int, package: str
) -> Step:
    """What to do next, given the verdicts so far (both ends included)."""
    old_state = BAD if direction == "fixed" else GOOD
    new_state = GOOD if direction == "fixed" else BAD
    # the interval still open: the first release in the new state, the last old one before it
    high = next(i for i in range(1, len(releases)) if verdicts.get(releases[i], "") == new_state)
    low = max(i for i in range(high) if i == 0 or verdicts.get(releases[i], "") == old_state)
    untested = [i for i in range(low + 1, high) if releases[i] not in verdicts]
    skipped = [releases[i] for i in range(low + 1, high) if verdicts.get(releases[i]) == SKIP]
    if untested and steps < max_steps(releases):
        middle = (low + high) / 2
        return Step(next_release=releases[min(untested, key=lambda i: (abs(i - middle), i))])
    first, last = releases[high], releases[low]
    shows = (
        ("reproduced on", "passes on") if direction == "fixed" else ("passes on", "reproduced on")
    )
    evidence = f"{shows[0]} {last}, {shows[1]} {first}"
    if not untested and not skipped:
        return Step(
            done=True,
            decided=True,
            first=first,
            last_other=last,
            result=f"{direction} in {package} {first}: {evidence}",
        )
    reasons = []
    if skipped:
        reasons.append(f"{', '.join(skipped)} could not be tested")
    if untested:
        tried = ", ".join(releases[i] for i in untested)
        reasons.append(f"{tried} not tried ({max_steps(releases)} steps at most)")
    return Step(
        done=True,
        decided=False,
        first=first,
        last_other=last,
        result=f"{direction} in {package} {first} or earlier, after {last} "
        f"({'; '.join(reasons)}): {evidence}",
    )
