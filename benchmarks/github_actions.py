"""Acting on GitHub: what needs-info would ask of real and demo reports, and the writes per 1,000
new issues.

    python benchmarks/github_actions.py [--data /path/to/rocm_issues.jsonl] [--issues 1000]
        [--part all | needs-info | writes] [--seed 7] [--json]
        [--database sqlite | postgres://postgres@127.0.0.1:5432/bench_github_actions]

One scratch database (benchmarks/harness.py; SQLite by default), migrated, with the service's own
settings (DEBUG off, no REDIS_URL: every task runs in-process as in `make demo`) and `load_demo`
(it trains the kind model, and needs-info only asks issues the model calls bugs).

1. Needs-info on real and demo reports (`--part needs-info`). (a) The demo's open issues whose kind
   is "bug" (predicted, not waiting for triage: the rule's own test), each read by
   automation.needs_info.services.completeness. (b) With `--data`, a JSON-lines file of labelled
   real issues in the format of benchmarks/real_issues.py, whose `gold` also has `present`: {gpu,
   rocm_version, os, steps, rocminfo} booleans (does the report, with the reporter's comments, give
   that fact). Each issue is delivered as real_issues.py delivers it (a signed `issues` `opened`
   webhook, then its comments as `issue_comment` deliveries: the service extracts the environment,
   with the reporter's comments, as it does in production), then read by the same `completeness`.
   Printed: the share of bug reports needs-info would ask (any fact missing) and the share per
   fact; for the real set the gold's own shares, and per fact the precision and recall of "missing"
   (missing = not present in the gold) with the ten worst disagreements (issue, fact, what the
   reader found or did not). No repository is opted in: nothing is written anywhere.

2. Writes per 1,000 new issues (`--part writes`). The GitHub emulator (tests/fakes/github_api.py)
   in this process, the service's settings pointed at it (real PyGithub over HTTP); one new
   repository opted in to every action of outbox.ACTIONS with github_dry_run off. `--issues`
   new issues of a mix written here (`issue_mix`: bug reports mostly, as issue forms and as free
   text, complete or lacking facts, some by maintainers; feature requests, questions, docs
   reports), each created on the emulator and delivered as a signed `issues` `opened` webhook;
   then the comments: reporters' follow-ups supplying facts, maintainers' answers, collaborators'
   commands (`/kind bug`, `/assign @x`, `/severity high`, `/needinfo`, the bad `/kind bugg`) and
   a command by someone who may not; then the daily sweep 15 and 30 days later. Printed: the
   outbox rows by action, operation and status, the requests GitHub got (by method and by
   phase), requests per write, the check that every write request matches exactly one
   GitHubWrite row in status done and every done row one request (by method and path), and
   that delivering everything again (fresh delivery ids) and sweeping again makes no request.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from urllib.parse import unquote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import harness, real_issues  # noqa: E402

FACT_NAMES = ("gpu", "rocm_version", "os", "steps", "rocminfo")  # classifiers.completeness.FACTS
MAINTAINERS = ("OWNER", "MEMBER", "COLLABORATOR")
WORST = 10
REPO = "bench-org/rocm-actions"
BOT = "rocm-triage-bot"
TOKEN = "bench-actions-token"  # noqa: S105 - the emulator's token, this run only
COLLABORATORS = ("maint-alice", "maint-bob", "maint-chen")

# --- needs-info scoring (pure: tests/benchmarks/test_github_actions_scoring.py) ---------------


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


@dataclass
class Reading:
    """One report as needs-info reads it."""

    ref: str
    missing: list[str]
    present: dict[str, str] = field(default_factory=dict)  # fact -> where the reader found it
    gold_kind: str | None = None
    predicted_kind: str | None = None
    gold_present: dict[str, bool] | None = None
    environment: dict = field(default_factory=dict)  # what the extraction found, compact
    by_maintainer: bool = False


def gold_missing(reading: Reading, facts=FACT_NAMES) -> list[str]:
    """The facts the gold says the report lacks (a fact the gold does not judge is left out)."""
    gold = reading.gold_present or {}
    return [name for name in facts if name in gold and not gold[name]]


def asking_share(readings: list[Reading], facts=FACT_NAMES, *, gold: bool = False) -> dict:
    """How many reports would be asked (any fact missing), and the share lacking each fact, by
    the reader or (gold=True) by the gold."""

    def missing(r: Reading) -> list[str]:
        return gold_missing(r, facts) if gold else [f for f in r.missing if f in facts]

    lacking = [missing(r) for r in readings]
    counts = {name: sum(name in m for m in lacking) for name in facts}
    asked = sum(bool(m) for m in lacking)
    return {
        "reports": len(readings),
        "asked": asked,
        "share_asked": _ratio(asked, len(readings)),
        "lacking_all": sum(len(m) == len(facts) for m in lacking),
        "missing": counts,
        "share_missing": {name: _ratio(n, len(readings)) for name, n in counts.items()},
    }


def _why(reading: Reading, name: str) -> str:
    """What the reader found for one fact, or what it had when it found nothing."""
    if name in reading.present:
        where = reading.present[name]
        if name == "gpu":
            env = reading.environment
            where += f": {', '.join(env.get('gpus') or env.get('architectures') or [])}"
        return f"found in {where}"
    env = reading.environment
    got = {k: env[k] for k in ("gpus", "architectures", "rocm_version", "os") if env.get(k)}
    return "not found" + (f" (the extraction has {json.dumps(got)})" if got else "")


def fact_scores(readings: list[Reading], facts=FACT_NAMES) -> dict:
    """Per fact: precision and recall of the reader's "missing" against the gold's (not present),
    over the readings whose gold judges that fact; and the worst disagreements: the reader asking
    for what the report gives first (a needless question to a reporter), then taking as given
    what it lacks, the issues with the most disagreements first, taken in turn from each fact."""
    per_fact: dict[str, dict] = {}
    disagreements: dict[str, list[tuple]] = {name: [] for name in facts}
    wrong_per_issue: Counter = Counter()
    for name in facts:
        tp = fp = fn = tn = 0
        for r in readings:
            if r.gold_present is None or name not in r.gold_present:
                continue
            says, truth = name in r.missing, not r.gold_present[name]
            tp, fp = tp + (says and truth), fp + (says and not truth)
            fn, tn = fn + (not says and truth), tn + (not says and not truth)
            if says != truth:
                wrong_per_issue[r.ref] += 1
                disagreements[name].append((r, "asks for what is given" if says else "misses"))
        per_fact[name] = {
            "judged": tp + fp + fn + tn,
            "gold_missing": tp + fn,
            "reader_missing": tp + fp,
            "precision": _ratio(tp, tp + fp),
            "recall": _ratio(tp, tp + fn),
            "agreement": _ratio(tp + tn, tp + fp + fn + tn),
            "true_positives": tp,
            "false_positives": fp,
            "false_negatives": fn,
        }
    queues = {
        name: sorted(
            found,
            key=lambda pair: (pair[1] != "asks for what is given", -wrong_per_issue[pair[0].ref]),
        )
        for name, found in disagreements.items()
    }
    worst: list[dict] = []
    for first_round in (True, False):
        # the false asks of every fact first, then the misses
        while len(worst) < WORST:
            took = False
            for name in facts:
                queue = queues[name]
                if queue and (not first_round or queue[0][1] == "asks for what is given"):
                    r, what = queue.pop(0)
                    worst.append(
                        {"issue": r.ref, "fact": name, "reader": what, "evidence": _why(r, name)}
                    )
                    took = True
                    if len(worst) == WORST:
                        break
            if not took:
                break
    return {"facts": per_fact, "worst": worst}


# --- the audit check (pure) -------------------------------------------------------------------


def request_key(method: str, path: str) -> tuple[str, str]:
    return method.upper(), unquote(path).rstrip("/")


def expected_request(row: dict) -> tuple[str, str] | None:
    """The request a performed outbox row made: (method, path), from its operation, issue,
    payload and GitHub's answer (`detail`, `github_id`); None for a row that sent nothing."""
    if row["status"] not in ("done", "failed"):
        return None
    issue = f"/repos/{row['repository']}/issues/{row['number']}"
    payload, operation = row.get("payload") or {}, row["operation"]
    detail = row.get("detail") or ""
    if operation == "comment":
        if detail.startswith("edited comment") or "comment was deleted" in detail:
            return request_key(
                "PATCH", f"/repos/{row['repository']}/issues/comments/{row['github_id']}"
            )
        return request_key("POST", f"{issue}/comments")
    if operation == "add_labels":
        return request_key("POST", f"{issue}/labels")
    if operation == "remove_label":
        return request_key("DELETE", f"{issue}/labels/{payload.get('label', '')}")
    if operation == "assign":
        return request_key("POST", f"{issue}/assignees")
    if operation == "unassign":
        return request_key("DELETE", f"{issue}/assignees")
    if operation in ("close", "reopen"):
        return request_key("PATCH", issue)
    if operation == "react":
        target = (
            f"/repos/{row['repository']}/issues/comments/{payload['comment_id']}"
            if payload.get("comment_id")
            else issue
        )
        return request_key("POST", f"{target}/reactions")
    return None


def audit_check(requests: list[dict], rows: list[dict]) -> dict:
    """Every write request GitHub got (not GET) against the outbox rows: `ok` when the write
    requests and the rows in status done are the same multiset of (method, path), that is, each
    request is audited by exactly one done row and each done row made exactly one request."""
    sent = Counter(
        request_key(r["method"], r["path"]) for r in requests if r["method"].upper() != "GET"
    )
    done = Counter(expected_request(r) for r in rows if r["status"] == "done")
    failed = Counter(expected_request(r) for r in rows if r["status"] == "failed")
    unaudited = sent - done
    of_failed = unaudited & failed
    return {
        "write_requests": sum(sent.values()),
        "done_rows": sum(done.values()),
        "matched": sum((sent & done).values()),
        "requests_without_done_row": sum(unaudited.values()),
        "requests_of_failed_rows": sum(of_failed.values()),
        "requests_without_row": sum((unaudited - of_failed).values()),
        "done_rows_without_request": sum((done - sent).values()),
        "examples": [f"{m} {p}" for m, p in list(unaudited - of_failed)[:3]]
        + [f"no request for {m} {p}" for m, p in list(done - sent)[:3]],
        # every write request is one row's (done, or failed with GitHub's answer recorded), and
        # every done row made exactly one request
        "ok": sent == done + failed,
        "only_done": sent == done,
    }


def requests_by_method(requests: list[dict]) -> dict[str, int]:
    return dict(sorted(Counter(r["method"].upper() for r in requests).items()))


# --- the mix of new issues (deterministic for a seed) ----------------------------------------

GPUS = (
    ("AMD Instinct MI300X", "gfx942"),
    ("AMD Instinct MI210", "gfx90a"),
    ("AMD Radeon RX 7900 XTX", "gfx1100"),
    ("AMD Radeon PRO W7900", "gfx1100"),
    ("AMD Radeon RX 6800 XT", "gfx1030"),
)
VERSIONS = ("6.1.2", "6.2.0", "6.2.4", "6.3.1", "6.4.0")
SYSTEMS = ("Ubuntu 22.04", "Ubuntu 24.04", "RHEL 9.4", "SLES 15 SP5")
PROBLEMS = (
    (
        "hipMemcpyAsync hangs after a few iterations",
        "The copy never returns and the GPU stays at 100%.",
    ),
    (
        "Segfault in rocblas_gemm_ex with large matrices",
        "The process crashes with a segmentation fault.",
    ),
    (
        "Memory access fault by GPU node-2 during training",
        "Training aborts with a memory access fault.",
    ),
    (
        "hipfft inverse transform gives wrong results",
        "The output differs from numpy by more than 1e-2.",
    ),
    (
        "HIP error: invalid device function in torch.compile",
        "The compiled model fails at the first step.",
    ),
    (
        "rccl all_reduce deadlocks across 8 GPUs",
        "The job stops making progress after the first epoch.",
    ),
    (
        "MIOpen convolution is 5x slower after the upgrade",
        "The same model takes far longer per step.",
    ),
)
STEPS = (
    "```\npython3 repro.py --size 4096\n```",
    "```\nhipcc -O2 saxpy.cpp -o saxpy\n./saxpy 1048576\n```",
    "```python\nimport torch\nx = torch.randn(4096, 4096, device='cuda')\ny = x @ x\n```",
    "1. Build the sample with cmake\n2. Run it with 8 processes\n3. Wait about a minute",
)
FEATURES = (
    (
        "Feature request: support gfx1151 in rocBLAS",
        "It would be great to have rocBLAS kernels "
        "for Strix Halo. Please consider adding this target to the next release.",
    ),
    (
        "Add a Python wheel for hipfft",
        "A wheel on PyPI would make hipfft much easier to use in our projects. Is this planned?",
    ),
    (
        "Request: expose the hipGraph API in the Python bindings",
        "We would like to capture our kernels in graphs from Python.",
    ),
)
QUESTIONS = (
    (
        "How do I install ROCm on WSL2?",
        "Is there a guide for installing ROCm on WSL2 with a Radeon card? Which driver do I need?",
    ),
    ("Is the MI50 still supported?", "Which ROCm release is the last one to support the MI50?"),
    ("Which PyTorch version goes with ROCm 6.3?", "I could not find a compatibility table."),
)
DOCS = (
    ("Docs: broken link in the install guide", "The link to the prerequisites page returns 404."),
    ("Docs: typo in the HIP programming guide", "The section on streams says hipStreamCreat."),
)


@dataclass
class PlannedComment:
    author: str
    association: str
    body: str
    role: str  # follow-up, answer, command, bad command, refused command


@dataclass
class PlannedIssue:
    number: int
    intent: str  # bug, feature, question, docs
    title: str
    body: str
    author: str
    association: str
    given: tuple[str, ...] = ()  # the facts the body gives (a bug report's)
    comments: list[PlannedComment] = field(default_factory=list)


def _fact_text(name: str, gpu, version: str, system: str, form: bool) -> str:
    product, target = gpu
    if name == "gpu":
        return product if form else f"GPU: {product} ({target})"
    if name == "rocm_version":
        return version if form else f"ROCm {version}"
    if name == "os":
        return system if form else f"OS: {system}"
    if name == "rocminfo":
        return (
            "```\n*******\nAgent 2\n*******\n  Name:                    "
            f"{target}\n  Marketing Name:          {product}\n"
            "  Device Type:             GPU\n```"
        )
    raise ValueError(name)


def bug_body(rng: random.Random, given: tuple[str, ...], form: bool, problem: str) -> str:
    gpu, version, system = rng.choice(GPUS), rng.choice(VERSIONS), rng.choice(SYSTEMS)
    steps = rng.choice(STEPS)
    if form:
        sections = [
            ("Problem Description", problem),
            ("Operating System", "os"),
            ("CPU", "AMD EPYC 9654"),
            ("GPU", "gpu"),
            ("ROCm Version", "rocm_version"),
            ("Steps to Reproduce", "steps"),
            ("(Optional for Linux users) Output of /opt/rocm/bin/rocminfo --support", "rocminfo"),
            ("Additional Information", "_No response_"),
        ]
        parts = []
        for heading, value in sections:
            if value in FACT_NAMES:
                if value not in given:
                    value = "_No response_"
                elif value == "steps":
                    value = steps
                else:
                    value = _fact_text(value, gpu, version, system, form=True)
            parts.append(f"### {heading}\n\n{value}\n")
        return "\n".join(parts)
    lines = [problem]
    facts = [n for n in ("gpu", "rocm_version", "os") if n in given]
    if facts:
        lines.append("; ".join(_fact_text(n, gpu, version, system, form=False) for n in facts))
    if "steps" in given:
        lines.append(f"To reproduce:\n{steps}")
    if "rocminfo" in given:
        lines.append("rocminfo --support:\n" + _fact_text("rocminfo", gpu, version, system, False))
    return "\n\n".join(lines)


def follow_up(rng: random.Random, missing: list[str]) -> str:
    gpu, version, system = rng.choice(GPUS), rng.choice(VERSIONS), rng.choice(SYSTEMS)
    lines = ["Sorry, here is what was missing."]
    for name in missing:
        if name == "steps":
            lines.append(f"Steps:\n{rng.choice(STEPS[:3])}")
        else:
            lines.append(_fact_text(name, gpu, version, system, form=False))
    return "\n\n".join(lines)


def issue_mix(count: int, seed: int = 7) -> list[PlannedIssue]:
    """`count` new issues and the comments they get, deterministic for `seed`."""
    rng = random.Random(seed)
    issues = []
    for number in range(1, count + 1):
        roll = rng.random()
        intent = (
            "bug"
            if roll < 0.72
            else "feature"
            if roll < 0.84
            else "question"
            if roll < 0.94
            else "docs"
        )
        author, association = f"reporter{number}", "NONE"
        if intent == "bug":
            if rng.random() < 0.08:
                author, association = rng.choice(COLLABORATORS), "MEMBER"
            form = rng.random() < 0.5
            style = rng.random()
            if style < 0.15:
                given: tuple[str, ...] = ()  # a bare report
            elif style < 0.35:
                given = FACT_NAMES  # a complete one
            else:
                odds = (
                    {"gpu": 0.95, "rocm_version": 0.9, "os": 0.85, "steps": 0.6, "rocminfo": 0.3}
                    if form
                    else {"gpu": 0.6, "rocm_version": 0.5, "os": 0.4, "steps": 0.5, "rocminfo": 0.1}
                )
                given = tuple(name for name in FACT_NAMES if rng.random() < odds[name])
            title, problem = rng.choice(PROBLEMS)
            body = bug_body(rng, given, form and bool(given), problem)
        else:
            pool = {"feature": FEATURES, "question": QUESTIONS, "docs": DOCS}[intent]
            (title, body), given = rng.choice(pool), ()
        issue = PlannedIssue(number, intent, title, body, author, association, given)
        missing = [name for name in FACT_NAMES if name not in given]
        if intent == "bug" and association == "NONE" and missing:
            chance = rng.random()
            if chance < 0.35:  # the reporter answers: all of it, or one fact
                supplied = missing if rng.random() < 0.6 else missing[:1]
                issue.comments.append(
                    PlannedComment(author, "NONE", follow_up(rng, supplied), "follow-up")
                )
            elif chance < 0.42:  # a maintainer answers without a command: the clock stops
                issue.comments.append(
                    PlannedComment(
                        rng.choice(COLLABORATORS),
                        "MEMBER",
                        "Thanks for the report. Does it still happen with the latest release?",
                        "answer",
                    )
                )
        if rng.random() < 0.12:
            line, role = rng.choices(
                [
                    ("/kind bug", "command"),
                    (f"/assign @{rng.choice(COLLABORATORS)}", "command"),
                    ("/severity high", "command"),
                    ("/needinfo", "command"),
                    ("/kind feature", "command"),
                    ("/kind bugg", "bad command"),
                ],
                weights=[25, 30, 10, 10, 10, 15],
            )[0]
            issue.comments.append(
                PlannedComment(rng.choice(COLLABORATORS), "MEMBER", f"{line}\n", role)
            )
        elif rng.random() < 0.02:
            issue.comments.append(
                PlannedComment(author, association, "/assign @me\n", "refused command")
            )
        issues.append(issue)
    return issues


# --- part 1: needs-info on the demo's and real reports ----------------------------------------


def _environment_compact(evidence: dict | None) -> dict:
    evidence = evidence or {}
    return {
        "gpus": list(evidence.get("gpus") or []),
        "architectures": list(evidence.get("architectures") or []),
        "rocm_version": evidence.get("rocm_version") or None,
        "os": evidence.get("os") or None,
    }


def _reading(issue, *, gold: dict | None = None) -> Reading:
    from automation.needs_info import services as needs_info
    from triage.models import IssuePrediction

    predictions = {
        p.model_name: p
        for p in IssuePrediction.objects.filter(issue=issue, model_name__in=("kind", "environment"))
    }
    kind = predictions.get("kind")
    environment = predictions.get("environment")
    report = needs_info.completeness(issue)
    return Reading(
        ref=issue.reference,
        missing=list(report.missing),
        present=dict(report.present),
        gold_kind=(gold or {}).get("kind"),
        predicted_kind=kind.label if kind is not None and not kind.needs_triage else None,
        gold_present=(gold or {}).get("present"),
        environment=_environment_compact(environment.evidence if environment else None),
        by_maintainer=issue.author_association in MAINTAINERS,
    )


def demo_readings() -> list[Reading]:
    from triage.models import Issue

    issues = Issue.objects.filter(
        state=Issue.State.OPEN, is_pull_request=False, deleted_at__isnull=True
    ).select_related("repository")
    readings = [_reading(issue) for issue in issues.order_by("pk")]
    return [r for r in readings if r.predicted_kind == "bug"]


def _issue_of(item: dict):
    from triage.models import Issue

    return Issue.objects.select_related("repository").get(
        repository__full_name__iexact=item["repository"], number=int(item["number"])
    )


def deliver_and_read(items: list[dict]) -> tuple[list[Reading], list[Reading], int]:
    """Each issue as real_issues.py delivers it, read twice: once its `issues` `opened` delivery
    is in (what needs-info reads when it first asks; the gold judges the title and body only),
    then after its comments (the reporter's follow-ups complete it, as needs-info follows them).
    Returns (at opening, after the comments, deliveries)."""
    from django.test import Client

    from tests.fakes.github_webhooks import delivery_headers, fixture_payload

    templates = {n: fixture_payload(n) for n in ("issues__opened", "issue_comment__created")}
    ids = real_issues._repositories(items)
    client, sent = Client(), 0
    at_open, after = [], []
    for index, item in enumerate(items):
        repository = real_issues._repository(
            templates["issues__opened"]["repository"],
            item["repository"],
            ids[item["repository"].lower()],
        )
        deliveries = real_issues.issue_deliveries(
            item, index=index, repository=repository, templates=templates
        )
        for position, (event, payload) in enumerate(deliveries):
            body = json.dumps(payload).encode()
            headers = delivery_headers(event, body, real_issues.SECRET, f"bench-ni-{index}-{sent}")
            headers["X-GitHub-Hook-Installation-Target-ID"] = str(repository["id"])
            headers.pop("Content-Type")
            answer = client.post(
                "/webhooks/github/", data=body, content_type="application/json", headers=headers
            )
            if answer.status_code != 202:
                raise RuntimeError(
                    f"{event} of {real_issues._ref(item)} answered {answer.status_code}"
                )
            sent += 1
            if position == 0:
                at_open.append(_reading(_issue_of(item), gold=item["gold"]))
        after.append(_reading(_issue_of(item), gold=item["gold"]))
    return at_open, after, sent


def _real_summary(readings: list[Reading]) -> dict:
    judged = [r for r in readings if r.gold_present]
    gold_bugs = [r for r in judged if r.gold_kind == "bug"]
    return {
        "gold_bug_reports": asking_share(gold_bugs),
        "predicted_bug_reports": asking_share([r for r in readings if r.predicted_kind == "bug"]),
        "scores_all": fact_scores(judged),
        "scores_gold_bugs": fact_scores(gold_bugs),
    }


def needs_info_part(data: Path | None) -> dict:
    started = time.monotonic()
    demo = demo_readings()
    result: dict = {
        "demo": {
            "bug_reports": asking_share(demo),
            "by_maintainers": sum(r.by_maintainer for r in demo),
        }
    }
    if data is not None:
        items = real_issues.data_read(data)
        removed = real_issues._clear_coinciding_demo_issues(items)
        at_open, after, sent = deliver_and_read(items)
        judged = [r for r in at_open if r.gold_present]
        result["real"] = {
            "data": str(data),
            "issues": len(items),
            "deliveries": sent,
            "demo_issues_replaced": removed,
            "with_gold_present": len(judged),
            "gold_bug_reports_by_gold": asking_share(
                [r for r in judged if r.gold_kind == "bug"], gold=True
            ),
            "at_opening": _real_summary(at_open),
            "after_comments": _real_summary(after),
        }
    result["seconds"] = round(time.monotonic() - started, 1)
    return result


# --- part 2: the writes per 1,000 new issues --------------------------------------------------


def _post_delivery(client, event: str, payload: dict, repo_id: int) -> None:
    from tests.fakes.github_webhooks import delivery_headers

    body = json.dumps(payload).encode()
    headers = delivery_headers(event, body, real_issues.SECRET, f"bench-actions-{uuid.uuid4()}")
    headers["X-GitHub-Hook-Installation-Target-ID"] = str(repo_id)
    headers.pop("Content-Type")
    answer = client.post(
        "/webhooks/github/", data=body, content_type="application/json", headers=headers
    )
    if answer.status_code != 202:
        raise RuntimeError(f"{event} delivery answered {answer.status_code}")


def _opened_payload(template: dict, issue: dict, repository: dict) -> dict:
    payload = copy.deepcopy(template)
    payload.update(action="opened", issue=issue, repository=repository, sender=issue["user"])
    return payload


def _comment_payload(template: dict, comment: dict, issue: dict, repository: dict) -> dict:
    payload = copy.deepcopy(template)
    payload.update(
        action="created",
        comment=comment,
        issue=issue,
        repository=repository,
        sender=comment["user"],
    )
    return payload


def _rule_owners() -> set[str]:
    """The GitHub users (not teams) the ownership rules name."""
    from automation.ownership.models import OwnershipRule

    owners = set()
    for text in OwnershipRule.objects.values_list("owners", flat=True):
        for word in text.replace(",", " ").split():
            if "/" not in word:
                owners.add(word.lstrip("@"))
    return owners


def not_done_reasons(rows: list[dict], top: int = 8) -> list[list]:
    """The rows that were not done: [action, status, an example of why, how many], the why
    compared with its digits left out (issue numbers, logins aside, say the same)."""
    counts: Counter = Counter()
    example: dict[tuple, str] = {}
    for r in rows:
        if r["status"] == "done":
            continue
        key = (r["action"], r["status"], "".join(c for c in r["detail"] if not c.isdigit()))
        example.setdefault(key, r["detail"][:100])
        counts[key] += 1
    return [[a, st, example[(a, st, why)], n] for (a, st, why), n in counts.most_common(top)]


def _row_dicts(repository) -> list[dict]:
    from automation.outbox.models import GitHubWrite

    return [
        {
            "repository": repository.full_name,
            "number": row.issue.number,
            "action": row.action,
            "operation": row.operation,
            "status": row.status,
            "payload": row.payload,
            "detail": row.detail,
            "github_id": row.github_id,
        }
        for row in GitHubWrite.objects.filter(repository=repository).select_related("issue")
    ]


def writes_part(emulator, count: int, seed: int) -> dict:
    from django.test import Client
    from django.utils import timezone

    from automation.commands.models import CommentCommand
    from automation.needs_info import services as needs_info
    from automation.needs_info.models import NeedsInfo
    from automation.outbox import services as outbox
    from automation.outbox.models import GitHubWrite
    from tests.fakes.github_webhooks import fixture_payload
    from triage.models import Comment, Issue
    from triage.services import tracking

    templates = {n: fixture_payload(n) for n in ("issues__opened", "issue_comment__created")}
    plan = issue_mix(count, seed)
    repo_data = emulator.add_repo(REPO)
    # the people the ownership rules name may be assigned, as in a repository set up right
    for login in sorted({*COLLABORATORS, *_rule_owners()}):
        emulator.add_collaborator(REPO, login)
    repository = tracking.repository_track(full_name=REPO)
    repository.github_id = repo_data["id"]
    repository.default_branch = repo_data.get("default_branch") or "main"
    repository.github_actions = list(outbox.ACTIONS)
    repository.github_dry_run = False
    repository.save()
    emulator.clear_log()
    client = Client()
    deliveries: list[tuple[str, dict]] = []
    phases: dict[str, dict] = {}
    timings: dict[str, float] = {}

    def phase(name: str, run) -> None:
        before, started = len(emulator.requests), time.monotonic()
        run()
        timings[name] = round(time.monotonic() - started, 1)
        phases[name] = requests_by_method(emulator.requests[before:])

    def opened() -> None:
        created = timezone.now() - timedelta(minutes=count + 5)
        for item in plan:
            emulator.add_issue(
                REPO,
                number=item.number,
                title=item.title,
                body=item.body,
                user=item.author,
                author_association=item.association,
                created_at=created + timedelta(minutes=item.number),
            )
            payload = _opened_payload(
                templates["issues__opened"], emulator.issue(REPO, item.number), repo_data
            )
            deliveries.append(("issues", payload))
            _post_delivery(client, "issues", payload, repo_data["id"])

    def comments() -> None:
        for item in plan:
            for planned in item.comments:
                comment = emulator.add_comment(
                    REPO,
                    item.number,
                    body=planned.body,
                    user=planned.author,
                    author_association=planned.association,
                )
                payload = _comment_payload(
                    templates["issue_comment__created"],
                    comment,
                    emulator.issue(REPO, item.number),
                    repo_data,
                )
                deliveries.append(("issue_comment", payload))
                _post_delivery(client, "issue_comment", payload, repo_data["id"])

    start = timezone.now()
    sweeps: dict[str, dict] = {}

    def sweep(days: int):
        def run() -> None:
            sweeps[f"+{days} days"] = needs_info.needs_info_sweep(
                now=start + timedelta(days=days)
            ).counts

        return run

    phase("issues opened", opened)
    phase("comments", comments)
    phase("sweep +15 days", sweep(15))
    phase("sweep +30 days", sweep(30))
    first_pass = list(emulator.requests)
    rows = _row_dicts(repository)
    closed_first = Issue.objects.filter(repository=repository, state=Issue.State.CLOSED).count()
    states = Counter(
        NeedsInfo.objects.filter(issue__repository=repository).values_list("state", flat=True)
    )

    # the same pass again: every delivery (fresh delivery ids, as a second hook or a replay
    # sends them), both sweeps
    rows_before = GitHubWrite.objects.filter(repository=repository).count()

    def again() -> None:
        for event, payload in deliveries:
            _post_delivery(client, event, payload, repo_data["id"])
        needs_info.needs_info_sweep(now=start + timedelta(days=15))
        needs_info.needs_info_sweep(now=start + timedelta(days=30))

    phase("everything again", again)
    again_requests = emulator.requests[len(first_pass) :]

    by_row = Counter((r["action"], r["operation"], r["status"]) for r in rows)
    done = sum(r["status"] == "done" for r in rows)
    intents = Counter(item.intent for item in plan)
    roles = Counter(c.role for item in plan for c in item.comments)
    issues = Issue.objects.filter(repository=repository)
    commands = Counter(
        CommentCommand.objects.filter(issue__repository=repository).values_list("status", flat=True)
    )
    asked_by_intent = Counter(
        plan[n - 1].intent
        for n in NeedsInfo.objects.filter(issue__repository=repository).values_list(
            "issue__number", flat=True
        )
    )
    return {
        "issues": count,
        "seed": seed,
        "mix": dict(intents),
        "bugs_by_maintainers": sum(i.intent == "bug" and i.association != "NONE" for i in plan),
        "complete_bug_reports": sum(i.intent == "bug" and len(i.given) == 5 for i in plan),
        "comments": dict(roles),
        "comments_stored": Comment.objects.filter(issue__repository=repository).count(),
        "issues_stored": issues.count(),
        "issues_closed": closed_first,
        "issues_closed_after_again": issues.filter(state=Issue.State.CLOSED).count(),
        "needs_info_states": dict(states),
        "needs_info_by_intent": dict(asked_by_intent),
        "commands": dict(commands),
        "sweeps": sweeps,
        "writes": {"/".join(k): v for k, v in sorted(by_row.items())},
        "writes_by_status": dict(Counter(r["status"] for r in rows)),
        "not_done_why": not_done_reasons(rows),
        "requests": len(first_pass),
        "requests_by_method": requests_by_method(first_pass),
        "requests_by_phase": phases,
        "error_answers": dict(Counter(r["status"] for r in first_pass if r["status"] >= 400)),
        "requests_per_done_write": _ratio(len(first_pass), done),
        "per_1000_issues": {
            "done_writes": round(done * 1000 / count, 1),
            "requests": round(len(first_pass) * 1000 / count, 1),
        },
        "audit": audit_check(first_pass, rows),
        "again": {
            "deliveries": len(deliveries),
            "requests": len(again_requests),
            "new_rows": GitHubWrite.objects.filter(repository=repository).count() - rows_before,
        },
        "timings": timings,
    }


# --- the run ----------------------------------------------------------------------------------


def run(*, data: Path | None, part: str, count: int, seed: int, database: str) -> dict:
    from tests.fakes.github_api import GitHubEmulator

    result: dict = {"database": "sqlite" if database.startswith("sqlite") else "postgres"}
    with (
        harness.scratch_database(database) as database_url,
        tempfile.TemporaryDirectory(prefix="bench-github-actions-") as var_dir,
        GitHubEmulator(token=TOKEN, login=BOT, rate_limit=100_000) as emulator,
    ):
        import os

        real_issues._environment(database_url, var_dir)
        os.environ.update(
            GITHUB_API_URL=emulator.url,
            GITHUB_TOKEN=TOKEN,
            GITHUB_BOT_LOGIN=BOT,
            GITHUB_RETRY_BACKOFF="0",
        )
        import django

        django.setup()
        result["install_s"] = round(real_issues._install("demo"), 1)
        if part in ("all", "needs-info"):
            result["needs_info"] = needs_info_part(data)
            result["needs_info"]["requests_to_github"] = len(emulator.requests)
        if part in ("all", "writes"):
            result["writes"] = writes_part(emulator, count, seed)
        from django.db import connections

        connections.close_all()  # before the scratch database is dropped
    result["machine"] = harness.machine()
    return result


# --- printing ---------------------------------------------------------------------------------


def _f(value) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _share_line(label: str, share: dict) -> str:
    per_fact = "  ".join(f"{name} {_f(v)}" for name, v in share["share_missing"].items())
    return (
        f"{label}: {share['asked']} of {share['reports']} would be asked"
        f" ({_f(share['share_asked'])});"
        f" missing {per_fact}; every fact missing: {share['lacking_all']}"
    )


def report_text(result: dict) -> str:
    lines = [f"install (migrate + load_demo) {result['install_s']} s on {result['database']}"]
    part = result.get("needs_info")
    if part:
        demo = part["demo"]
        lines += [
            "",
            "Needs-info on real and demo reports",
            _share_line("demo, open bug reports (predicted kind bug)", demo["bug_reports"]),
            f"  of which by maintainers (the rule never asks them): {demo['by_maintainers']}",
        ]
        real = part.get("real")
        if real:
            opening, after = real["at_opening"], real["after_comments"]
            lines += [
                f"real: {real['issues']} issues ({real['deliveries']} deliveries) from"
                f" {real['data']}, {real['with_gold_present']} with gold.present",
                _share_line("real, gold bug reports, at opening", opening["gold_bug_reports"]),
                _share_line(
                    "real, gold bug reports, by the gold", real["gold_bug_reports_by_gold"]
                ),
                _share_line(
                    "real, predicted bug reports (the rule's), at opening",
                    opening["predicted_bug_reports"],
                ),
                _share_line(
                    "real, gold bug reports, with the reporter's comments",
                    after["gold_bug_reports"],
                ),
                "",
                "per fact, 'missing' at opening against the gold (title and body):"
                " all issues | gold bug reports | all, with the reporter's comments",
            ]
            for name, s in opening["scores_all"]["facts"].items():
                b = opening["scores_gold_bugs"]["facts"][name]
                c = after["scores_all"]["facts"][name]
                lines.append(
                    f"  {name:<13} precision {_f(s['precision'])} recall {_f(s['recall'])}"
                    f" (tp {s['true_positives']} fp {s['false_positives']} fn"
                    f" {s['false_negatives']}; gold missing {s['gold_missing']} of {s['judged']})"
                    f" | {_f(b['precision'])} / {_f(b['recall'])}"
                    f" | {_f(c['precision'])} / {_f(c['recall'])}"
                )
            lines.append("worst disagreements at opening (all issues):")
            for w in opening["scores_all"]["worst"]:
                lines.append(f"  {w['issue']} {w['fact']}: {w['reader']}; {w['evidence'][:150]}")
        lines.append(f"requests to GitHub during this part: {part['requests_to_github']}")
    part = result.get("writes")
    if part:
        audit, again = part["audit"], part["again"]
        lines += [
            "",
            f"Writes per {part['issues']:,} new issues (seed {part['seed']})",
            f"mix: {json.dumps(part['mix'])}; bugs by maintainers {part['bugs_by_maintainers']},"
            f" complete bug reports {part['complete_bug_reports']}",
            f"comments: {json.dumps(part['comments'])}",
            f"needs-info: {json.dumps(part['needs_info_states'])}; asked by intent"
            f" {json.dumps(part['needs_info_by_intent'])}; sweeps {json.dumps(part['sweeps'])}",
            f"commands: {json.dumps(part['commands'])}; issues closed here {part['issues_closed']}"
            f" (after everything again: {part['issues_closed_after_again']})",
            "outbox rows (action/operation/status):",
        ]
        lines += [f"  {key:<45} {n}" for key, n in part["writes"].items()]
        lines += [
            f"rows by status: {json.dumps(part['writes_by_status'])}",
            *[f"  not done: {a} {st} x{n}: {why}" for a, st, why, n in part["not_done_why"]],
            f"GitHub requests: {part['requests']} {json.dumps(part['requests_by_method'])};"
            f" error answers {json.dumps(part['error_answers'])};"
            f" per done write {_f(part['requests_per_done_write'])}",
        ]
        lines += [f"  {name:<18} {json.dumps(m)}" for name, m in part["requests_by_phase"].items()]
        lines += [
            f"per 1,000 issues: {part['per_1000_issues']['done_writes']} writes done,"
            f" {part['per_1000_issues']['requests']} requests",
            f"audit: {audit['write_requests']} write requests, {audit['done_rows']} done rows,"
            f" {audit['matched']} matched one to one; requests of failed rows (GitHub's answer"
            f" recorded) {audit['requests_of_failed_rows']}, requests without any row"
            f" {audit['requests_without_row']}, done rows without a request"
            f" {audit['done_rows_without_request']}: {'OK' if audit['ok'] else 'MISMATCH'}"
            + (f" {audit['examples']}" if audit["examples"] else ""),
            f"again ({again['deliveries']} deliveries with fresh ids, both sweeps):"
            f" {again['requests']} requests, {again['new_rows']} new outbox rows:"
            f" {'OK' if again['requests'] == 0 else 'NOT IDEMPOTENT'}",
            f"timings: {json.dumps(part['timings'])}",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="labelled real issues, JSON lines (optional)")
    parser.add_argument("--part", choices=("all", "needs-info", "writes"), default="all")
    parser.add_argument("--issues", type=int, default=1000, help="new issues for the writes")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--database",
        default="sqlite",
        help="sqlite (a temporary file) or a postgres:// URL of a scratch database named bench*",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.data is not None and not args.data.is_file():
        parser.error(f"no file at {args.data}")
    result = run(
        data=args.data, part=args.part, count=args.issues, seed=args.seed, database=args.database
    )
    print(json.dumps(result, indent=1) if args.json else report_text(result))
    ok = "writes" not in result or (
        result["writes"]["audit"]["ok"] and result["writes"]["again"]["requests"] == 0
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
