"""Outcome classification from mixed executions, and signatures."""

from kernels_ci.outcomes import classify
from kernels_ci.sandbox import SandboxResult
from kernels_ci.signatures import Observation, observe

WRONG = Observation("wrong_result", signature="AssertionError: not close | main")
OTHER_WRONG = Observation("wrong_result", signature="AssertionError: N elements | check")
PASS = Observation("pass")


def test_it_calls_half_or_more_with_one_signature_reproduced():
    verdict = classify([WRONG, WRONG, WRONG, PASS, PASS], reported="wrong_result")
    assert verdict.outcome == "reproduced" and verdict.symptom_runs == 3
    assert verdict.signature == WRONG.signature and len(verdict.signature_hash) == 12


def test_it_calls_under_half_or_differing_signatures_flaky():
    assert classify([WRONG, PASS, PASS, PASS, PASS], reported="wrong_result").outcome == "flaky"
    mixed = classify([WRONG, OTHER_WRONG, WRONG, OTHER_WRONG], reported="wrong_result")
    assert mixed.outcome == "flaky" and "2 different signatures" in mixed.detail


def test_another_failure_is_failed_differently_and_a_pass_that_ran_the_kernel_not_reproduced():
    hang = Observation("hang", signature="timeout")
    verdict = classify([hang] * 5, reported="wrong_result")
    assert verdict.outcome == "failed_differently"
    assert "expected wrong_result; got timeout" in verdict.detail
    ran = Observation("pass", launches=2)
    assert classify([ran] * 5, reported="wrong_result").outcome == "not_reproduced"


def test_with_nothing_reported_to_compare_a_failure_is_failed_never_reproduced():
    hang = Observation("hang", signature="timeout")
    verdict = classify([hang] * 5, reported="other")
    assert verdict.outcome == "failed"
    assert verdict.detail.startswith("failed (no reported failure to compare with)")
    assert classify([Observation("pass", launches=1)] * 5, reported="other").outcome == (
        "not_reproduced"
    )


def test_a_pass_that_launched_no_kernel_is_no_pass():
    verdict = classify([Observation("pass", launches=0)] * 3, reported="crash")
    assert verdict.outcome == "invalid" and "ran no kernel" in verdict.detail


def test_a_reported_compile_error_is_a_crash_that_only_a_compile_error_shows():
    compiler = Observation("compile_error", signature="LLVM ERROR: cannot select")
    crash = Observation("crash", signature="Segmentation fault | main")
    verdict = classify([compiler] * 3, reported="crash", detail="compile_error")
    assert verdict.outcome == "reproduced" and "(crash, compile error)" in verdict.detail
    assert classify([crash] * 3, reported="crash", detail="compile_error").outcome == (
        "failed_differently"
    )
    assert classify([compiler] * 3, reported="crash").outcome == "failed_differently"


def test_it_calls_a_reproducer_that_cannot_run_invalid_and_runner_failures_infra():
    invalid = Observation("invalid", signature="ModuleNotFoundError", message="no module")
    assert classify([invalid] * 3 + [PASS] * 2, reported="crash").outcome == "invalid"
    infra = Observation("infra", signature="infra: engine")
    assert classify([infra, PASS, PASS], reported="crash").outcome == "infra_error"
    assert classify([], reported="crash").outcome == "infra_error"


def test_a_signature_has_the_exception_normalized_message_and_top_three_user_frames():
    stderr = (
        "Traceback (most recent call last):\n"
        '  File "/tmp/repro-abc/launch.py", line 14, in <module>\n'
        '  File "/tmp/repro-abc/repro.py", line 30, in <module>\n'
        '  File "/tmp/repro-abc/repro.py", line 20, in run\n'
        '  File "/tmp/repro-abc/repro.py", line 12, in check\n'
        '  File "/tmp/repro-abc/repro.py", line 8, in compare\n'
        '  File "/usr/lib/torch/testing.py", line 99, in assert_close\n'
        "RuntimeError: index 1023 out of bounds at 0x7f00ab\n"
    )
    observation = observe(SandboxResult(returncode=1, stderr=stderr))
    assert observation.kind == "crash"
    assert observation.signature == (
        "RuntimeError: index N out of bounds at 0x? | compare < check < run"
    )


def test_a_signal_is_its_own_signature():
    observation = observe(SandboxResult(returncode=-11, signal_name="SIGSEGV"))
    assert (observation.kind, observation.signature) == ("crash", "signal SIGSEGV")


def test_a_hipcc_error_is_a_compile_error_with_the_first_error_as_signature():
    stderr = (
        "In file included from /tmp/repro-ab12/repro.hip:1:\n"
        "/tmp/repro-ab12/repro.hip:7:3: error: no matching function for call to 'atomicAdd'\n"
        "  atomicAdd(x, 1.0);\n  ^~~~~~~~~\n"
        "/tmp/repro-ab12/repro.hip:9:1: error: expected ';' after expression\n"
        "2 errors generated when compiling for gfx942.\n"
    )
    observation = observe(SandboxResult(returncode=1, stderr=stderr))
    assert observation.kind == "compile_error"
    assert (
        observation.signature == "error: no matching function for call to 'atomicAdd' | repro.hip"
    )


def test_only_a_marker_with_the_runs_nonce_means_infra():
    forged = SandboxResult(returncode=3, stdout="REPRO-INFRA: torch is missing\n", nonce="ab12")
    assert observe(forged).kind == "crash"
    other_nonce = SandboxResult(returncode=3, stdout="REPRO-INFRA-ffff: x\n", nonce="ab12")
    assert observe(other_nonce).kind == "crash"
    ours = SandboxResult(returncode=3, stdout="REPRO-INFRA-ab12: torch is missing\n", nonce="ab12")
    assert (observe(ours).kind, observe(ours).message) == ("infra", "torch is missing")


def test_a_run_stopped_at_its_memory_ceiling_by_the_timeout_is_the_memory_limit_not_a_hang():
    at_ceiling = observe(SandboxResult(returncode=-9, timed_out=True, limit="memory"))
    assert (at_ceiling.kind, at_ceiling.signature) == ("invalid", "sandbox limit: memory")
    assert observe(SandboxResult(returncode=-9, timed_out=True)).kind == "hang"
