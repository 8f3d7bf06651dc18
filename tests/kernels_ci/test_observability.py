"""A backend never judges what it cannot observe: a compile-only backend cannot show a wrong result
or a crash at run time, and the interpreter cannot show a GPU target's compile error. Such an
attempt is cannot_observe (never a pass, never counted), and the comparisons a case gets are
only those that can show its failure."""

import json
from io import StringIO

from django.core.management import call_command

from kernels_ci.backends import comparison_backends, describe, unobservable_hint
from kernels_ci.expectations import ExpectedError
from kernels_ci.models import ReproRun
from kernels_ci.outcomes import Expectation, classify
from kernels_ci.services.cases import case_refresh
from kernels_ci.services.comments import _newsworthy
from kernels_ci.signatures import Observation
from kernels_ci.verification import verification_of_runs
from tests.kernels_ci.factories import issue_body

PASS = Observation("pass", launches=1)
WRONG = Observation(
    "wrong_result",
    signature="AssertionError: Tensor-likes are not close!",
    message="AssertionError: Tensor-likes are not close!",
)


def test_each_backend_says_which_failures_it_can_show():
    assert describe("triton-amd-compile").observable() == ("compile_error",)
    assert describe("triton-nvidia-compile").can_observe("compile_error")
    assert not describe("triton-amd-compile").can_observe("wrong_result")
    assert not describe("triton-interpreter").can_observe("compile_error")
    assert describe("triton-interpreter").can_observe("wrong_result")
    assert describe("triton-interpreter").can_observe("")  # nothing particular expected
    assert all(describe("rocm-container").can_observe(kind) for kind in ("crash", "hang"))


def test_a_pass_where_the_failure_cannot_show_is_cannot_observe_and_says_where_it_shows():
    hint = unobservable_hint("triton-amd-compile", "wrong_result", "python", True)
    assert hint.startswith("a compile-only backend (compiles")
    assert "cannot show a wrong result: run it on triton-interpreter or rocm-container" in hint
    expectation = Expectation(symptom="wrong_result")
    verdict = classify([PASS], expectation=expectation, unobservable=hint)
    assert verdict.outcome == "cannot_observe" and hint in verdict.detail
    # the same passes where the failure can show are a real "not reproduced"
    assert classify([PASS], expectation=expectation).outcome == "not_reproduced"


def test_what_a_backend_does_show_still_counts_where_it_cannot_show_the_reported_kind():
    hint = unobservable_hint("triton-interpreter", "compile_error", "python", True)
    assert "cannot show a compile error: run it on triton-amd-compile" in hint
    quoted = ExpectedError(exc_type="AssertionError", message="Tensor-likes are not close!")
    reported = Expectation(symptom="crash", detail="compile_error", error=quoted)
    assert classify([WRONG], expectation=reported, unobservable=hint).outcome == "reproduced"
    other = Expectation(symptom="crash", detail="compile_error")
    assert classify([WRONG], expectation=other, unobservable=hint).outcome == ("failed_differently")


def test_a_compile_error_is_compared_only_where_a_compile_error_can_show():
    names = [d.name for d in comparison_backends("python", True, "compile_error")]
    assert names == ["triton-nvidia-compile"]
    names = [d.name for d in comparison_backends("python", True, "wrong_result")]
    assert names == ["triton-interpreter"]


def test_cannot_observe_neither_counts_for_a_fix_nor_breaks_a_streak(make, settings):
    settings.KERNELS_CI_VERIFY_PASSES = 2
    case = case_refresh(issue=make.issue(number=31, body=issue_body()))
    outcomes = ["reproduced", "not_reproduced", "cannot_observe", "not_reproduced"]
    runs = [
        ReproRun(
            case=case,
            arch="gfx942",
            backend="triton-amd-compile",
            attempt=n,
            status="done",
            outcome=outcome,
            script_sha256="s",
            finished_at=make.now,
        )
        for n, outcome in enumerate(outcomes, 1)
    ]
    state = verification_of_runs(runs, script_sha256="s")[("gfx942", "triton-amd-compile")]
    assert (state.state, state.consecutive_passes) == ("verified_fixed", 2)
    assert not _newsworthy(runs[2])  # nothing to tell the reporter


def test_a_wrong_result_compiled_for_gfx942_is_cannot_observe_not_a_pass(make, needs_kernels_extra):
    """For real: the reporter's wrong-result kernel compiles for gfx942 with Triton's HIP
    backend, which says nothing about the wrong result."""
    make.issue(repository=make.repository("ROCm/triton"), number=88, body=issue_body())
    out = StringIO()
    call_command(
        "run_repro",
        "ROCm/triton#88",
        "--approve",
        "--backend",
        "triton-amd-compile",
        "--arch",
        "gfx942",
        "--no-follow-ups",
        "--runs",
        "1",
        "--json",
        stdout=out,
    )
    rows = json.loads(out.getvalue())
    outcomes = {(r["backend"], r["arch"]): r["outcome"] for r in rows}
    assert outcomes[("triton-amd-compile", "gfx942")] == "cannot_observe"
    # its comparison is the interpreter alone, which shows the wrong result
    assert outcomes[("triton-interpreter", "cpu")] == "reproduced"
    assert ("triton-nvidia-compile", "sm_90") not in outcomes
    detail = next(r["detail"] for r in rows if r["backend"] == "triton-amd-compile")
    assert "cannot show a wrong result" in detail
