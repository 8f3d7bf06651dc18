"""Bisection over releases: the next release to try, the bound on steps, untestable releases,
and the answer in words (pure; tests/kernels_ci/test_versions.py runs one on real releases)."""

import math

import pytest

from kernels_ci.bisection import bisect_step, max_steps, verdict_of

RELEASES = [
    "3.2.0",
    "3.3.0",
    "3.3.1",
    "3.4.0",
    "3.5.0",
    "3.5.1",
    "3.6.0",
    "3.7.0",
    "3.8.0",
    "3.9.0",
]


def bisect(first_new: str, direction: str, untestable=()) -> tuple:
    """Run the bisection against releases whose verdict changes at `first_new`."""
    old, new = ("bad", "good") if direction == "fixed" else ("good", "bad")
    verdicts = {RELEASES[0]: old, RELEASES[-1]: new}
    tried = []
    while True:
        step = bisect_step(
            releases=RELEASES,
            verdicts=verdicts,
            direction=direction,
            steps=len(tried),
            package="triton",
        )
        if step.done:
            return step, tried
        tried.append(step.next_release)
        if step.next_release in untestable:
            verdicts[step.next_release] = "skip"
        else:
            index = RELEASES.index(step.next_release)
            verdicts[step.next_release] = new if index >= RELEASES.index(first_new) else old


@pytest.mark.parametrize("first_new", RELEASES[1:])
@pytest.mark.parametrize("direction", ["fixed", "regressed"])
def test_it_finds_the_first_release_of_the_change_within_log2_steps(first_new, direction):
    step, tried = bisect(first_new, direction)
    assert step.decided and step.first == first_new
    # every step decides: ceil(log2(9)), for the 9 places the change can be
    assert len(tried) <= math.ceil(math.log2(len(RELEASES) - 1)) == 4
    before = RELEASES[RELEASES.index(first_new) - 1]
    shows = (
        "reproduced on {}, passes on {}"
        if direction == "fixed"
        else "passes on {}, reproduced on {}"
    )
    assert step.result == f"{direction} in triton {first_new}: " + shows.format(before, first_new)


def test_untestable_releases_are_skipped_and_named_in_the_answer():
    step, tried = bisect("3.6.0", "fixed", untestable={"3.5.0"})
    assert step.decided and step.first == "3.6.0"  # 3.5.0 (the middle) skipped, not needed
    assert tried[0] == "3.5.0" and len(tried) <= max_steps(RELEASES)
    step, tried = bisect("3.5.1", "fixed", untestable={"3.5.1"})
    assert not step.decided and step.first == "3.6.0" and step.last_other == "3.5.0"
    assert "3.5.1 could not be tested" in step.result
    assert len(tried) <= max_steps(RELEASES)


def test_the_bound_stops_a_bisection_that_cannot_decide():
    step, tried = bisect("3.4.0", "fixed", untestable=set(RELEASES[1:-1]))
    assert not step.decided and len(tried) == max_steps(RELEASES) == 6
    assert "not tried (6 steps at most)" in step.result and step.first == "3.9.0"


def test_adjacent_releases_need_no_step_and_verdicts_map_outcomes():
    step = bisect_step(
        releases=["3.8.0", "3.9.0"],
        verdicts={"3.8.0": "good", "3.9.0": "bad"},
        direction="regressed",
        steps=0,
        package="triton",
    )
    assert step.decided and step.result.startswith("regressed in triton 3.9.0: passes on 3.8.0")
    assert [verdict_of(o) for o in ("reproduced", "flaky", "not_reproduced")] == [
        "bad",
        "bad",
        "good",
    ]
    skipped = ("environment_mismatch", "failed_differently", "failed", "invalid", "infra_error")
    assert {verdict_of(o) for o in skipped} == {"skip"}
