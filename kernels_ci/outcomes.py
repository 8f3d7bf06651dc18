"""The outcome of one attempt (N executions), from what each execution showed and what the report
expects. Pure.

The expectation is the reported symptom (triage's labels: a crash, a hang, a wrong result; a
compile error is a crash of that detail) and the error the report quotes, if any
(kernels_ci.expectations). An execution shows the reported failure when its kind is the
reported symptom and, where the report quotes an error, its failure is that error; a failure
that is the quoted error counts whatever kind the symptom rules gave the report.

- reproduced: at least half the executions show the reported failure, with one signature;
- flaky: some show it, but under half, or their signatures differ;
- failed_differently: the executions failed, but not as reported (both signatures are shown);
- failed: they failed, and the report gives nothing to compare with (no symptom of a failure,
  no quoted error): never "reproduced" by itself;
- environment_mismatch: at least half failed because of the versions (an API this release
  lacks, a removed module, a version check), naming the versions the reporter used. A report
  about that very error (it quotes it: "tl.gather is missing") is reproduced, and says it is
  the versions' doing: the reporter's environment and ours do not differ there;
- not_reproduced: every execution passed, and ran the kernel (where the backend counts
  launches); a pass that launched no kernel proves nothing and is an invalid reproducer;
- invalid: at least half could not run (syntax error, missing module or file, network);
- cannot_observe: every execution passed on a backend that cannot show the reported failure (a
  compile-only backend and a wrong result, the interpreter and an AMD compile error): it judges
  nothing and counts for nothing, and says where the failure can show;
- infra_error: the runner, the image or the environment failed; never counted as fixed.
Only not_reproduced is a pass for fix verification; only reproduced and flaky are failures.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from classifiers.symptom import FAILURES
from kernels_ci.expectations import ExpectedError, matched
from kernels_ci.signatures import Observation, signature_hash

FAILURE_KINDS = {"wrong_result", "crash", "hang", "compile_error"}
# what an execution showed, in the symptom labels: a compile error is a crash of that detail
AS_SYMPTOM = {"compile_error": ("crash", "compile_error")}
NO_KERNEL = "the script ran no kernel (no launch reached Triton)"


@dataclass
class Expectation:
    symptom: str
    detail: str = ""
    error: ExpectedError | None = None
    # the versions the reporter used and those this attempt ran, for the words of a verdict
    reported_versions: dict = field(default_factory=dict)
    versions: dict = field(default_factory=dict)
    chosen: tuple[str, ...] = ()  # of reported_versions, the packages a maintainer chose

    @property
    def known(self) -> bool:
        return self.symptom in FAILURES or self.error is not None

    @property
    def kind(self) -> str:
        """The failure a backend must be able to show to judge it ("" : none in particular)."""
        if self.detail == "compile_error":
            return "compile_error"
        return self.symptom if self.symptom in FAILURES else ""

    def said(self) -> str:
        kind = f"{self.symptom}, {self.detail.replace('_', ' ')}" if self.detail else self.symptom
        if self.error is not None:
            return f"{kind}: {self.error.signature}"[:300]
        return kind


@dataclass
class Verdict:
    outcome: str
    symptom_runs: int
    signature: str
    signature_hash: str
    detail: str


def shows_kind(observation: Observation, reported: str, detail: str = "") -> bool:
    """Whether an execution's kind is the reported symptom; a reported compile error is shown
    by a compile error only."""
    if observation.kind not in FAILURE_KINDS or reported not in FAILURES:
        return False
    return AS_SYMPTOM.get(observation.kind, (observation.kind, "")) == (reported, detail)


def shows_reported(observation: Observation, expectation: Expectation) -> bool:
    if expectation.error is not None and matched(expectation.error, observation) is not None:
        return True
    if expectation.error is not None and (expectation.error.exc_type or expectation.error.lines):
        return False  # it quotes an error: the kind alone is not enough
    return shows_kind(observation, expectation.symptom, expectation.detail)


def _versions(versions: dict) -> str:
    return ", ".join(f"{name} {version}" for name, version in sorted(versions.items()))


def classify(
    observations: list[Observation],
    *,
    reported: str = "",
    detail: str = "",
    expectation: Expectation | None = None,
    unobservable: str = "",
) -> Verdict:
    """`unobservable`: why the backend cannot show the expected failure ("" when it can); its
    passes are then cannot_observe."""
    expectation = expectation or Expectation(symptom=reported, detail=detail)
    n = len(observations)
    if n == 0:
        return Verdict("infra_error", 0, "", "", "no execution ran")
    kinds = Counter(o.kind for o in observations)
    summary = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
    if kinds["infra"]:
        infra = next(o for o in observations if o.kind == "infra")
        return _verdict(
            "infra_error",
            0,
            infra.signature,
            f"{kinds['infra']}/{n} executions hit an infrastructure failure ({summary})",
        )
    matching = [o for o in observations if shows_reported(o, expectation)]
    signatures = Counter(o.signature for o in matching)
    said = expectation.said()
    which = expectation.error and matched(expectation.error, matching[0]) if matching else None
    if which is not None and len(expectation.error.quoted_errors()) > 1:
        said = f"{said}; it is the quoted {which.signature}"[:400]
    if matching and len(matching) * 2 >= n and len(signatures) == 1:
        text = f"{len(matching)}/{n} executions showed the reported failure ({said}); {summary}"
        if matching[0].kind == "environment":  # what the report is about is the versions' doing
            text += f"; it is the versions' doing ({matching[0].environment})"
        return _verdict("reproduced", len(matching), matching[0].signature, text)
    if kinds["invalid"] * 2 >= n:
        invalid = next(o for o in observations if o.kind == "invalid")
        return _verdict(
            "invalid",
            0,
            invalid.signature,
            f"the reproducer cannot run: {invalid.message} ({summary})",
        )
    if kinds["environment"] * 2 >= n:
        return _environment(observations, expectation, summary, n)
    if matching:
        text = f"{len(matching)}/{n} executions showed the reported failure ({said}); {summary}"
        if len(signatures) > 1:
            text += f"; {len(signatures)} different signatures"
        top = signatures.most_common(1)[0][0]
        return _verdict("flaky", len(matching), top, text)
    failures = [o for o in observations if o.kind in FAILURE_KINDS | {"environment"}]
    if failures:
        top = Counter(o.signature for o in failures).most_common(1)[0][0]
        if not expectation.known:
            text = (
                f"failed (no reported failure to compare with): {len(failures)}/{n} executions "
                f"failed as {top}; {summary}"
            )
            return _verdict("failed", 0, top, text)
        text = f"failed differently: expected {said}; got {top} ({len(failures)}/{n}); {summary}"
        return _verdict("failed_differently", 0, top, text)
    passes = [o for o in observations if o.kind == "pass"]
    if (
        passes
        and all(o.launches == 0 for o in passes if o.launches is not None)
        and any(o.launches is not None for o in passes)
    ):
        return _verdict("invalid", 0, "no kernel ran", f"{NO_KERNEL} ({summary})")
    if unobservable:
        return _verdict("cannot_observe", 0, "", f"{unobservable}; it judges nothing ({summary})")
    text = f"0/{n} executions showed the reported failure ({said}); {summary}"
    return _verdict("not_reproduced", 0, "", text)


def _environment(observations, expectation: Expectation, summary: str, n: int) -> Verdict:
    failed = [o for o in observations if o.kind == "environment"]
    first = failed[0]
    ran = _versions(expectation.versions) or "this runner's versions"
    text = (
        f"{len(failed)}/{n} executions failed because of the environment on {ran} "
        f"({first.environment})"
    )
    reported = {
        k: v for k, v in expectation.reported_versions.items() if k not in expectation.chosen
    }
    chosen = {k: v for k, v in expectation.reported_versions.items() if k in expectation.chosen}
    if reported:
        text += f"; the reporter used {_versions(reported)}"
    if chosen:
        text += f"; a maintainer asked for {_versions(chosen)}"
    return _verdict("environment_mismatch", 0, first.signature, f"{text}; {summary}")


def _verdict(outcome: str, runs: int, signature: str, detail: str) -> Verdict:
    return Verdict(outcome, runs, signature, signature_hash(signature), detail)
