"""The outcome of one attempt (N executions), from what each execution showed. Pure.

- reproduced: at least half the executions show the reported symptom, with one signature;
- flaky: some show it, but under half, or their signatures differ;
- not reproduced: none shows it;
- invalid reproducer: at least half could not run (syntax error, missing module or file, network);
- infra error: the runner or the image failed; never counted as fixed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from classifiers.symptom import FAILURES
from kernels_ci.signatures import Observation, signature_hash

FAILURE_KINDS = {"wrong_result", "crash", "hang", "compile_error"}
# what an execution showed, in the symptom labels: a compile error is a crash of that detail
AS_SYMPTOM = {"compile_error": ("crash", "compile_error")}


@dataclass
class Verdict:
    outcome: str
    symptom_runs: int
    signature: str
    signature_hash: str
    detail: str


def shows_symptom(observation: Observation, reported: str, detail: str = "") -> bool:
    """Whether an execution shows the reported symptom (any failure when the report names no
    crash, hang or wrong result); a reported compile error is shown by a compile error only."""
    if observation.kind not in FAILURE_KINDS:
        return False
    if reported not in FAILURES:
        return True
    return AS_SYMPTOM.get(observation.kind, (observation.kind, "")) == (reported, detail)


def classify(observations: list[Observation], *, reported: str, detail: str = "") -> Verdict:
    n = len(observations)
    if n == 0:
        return Verdict("infra_error", 0, "", "", "no execution ran")
    kinds = Counter(o.kind for o in observations)
    matching = [o for o in observations if shows_symptom(o, reported, detail)]
    signatures = Counter(o.signature for o in matching)
    top = signatures.most_common(1)[0][0] if signatures else ""
    summary = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
    if kinds["infra"]:
        infra = next(o for o in observations if o.kind == "infra")
        return Verdict(
            "infra_error",
            len(matching),
            infra.signature,
            signature_hash(infra.signature),
            f"{kinds['infra']}/{n} executions hit an infrastructure failure ({summary})",
        )
    if kinds["invalid"] * 2 >= n:
        invalid = next(o for o in observations if o.kind == "invalid")
        return Verdict(
            "invalid",
            0,
            invalid.signature,
            signature_hash(invalid.signature),
            f"the reproducer cannot run: {invalid.message} ({summary})",
        )
    if matching and len(matching) * 2 >= n and len(signatures) == 1:
        outcome = "reproduced"
    elif matching:
        outcome = "flaky"
    else:
        outcome = "not_reproduced"
    if outcome == "not_reproduced":
        other = [o for o in observations if o.kind in FAILURE_KINDS]
        top = other[0].signature if other else ""
    said = f"{reported}, {detail.replace('_', ' ')}" if detail else reported
    text = f"{len(matching)}/{n} executions showed the reported symptom ({said}); {summary}"
    if len(signatures) > 1:
        text += f"; {len(signatures)} different signatures"
    return Verdict(outcome, len(matching), top, signature_hash(top), text)
