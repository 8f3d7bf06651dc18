"""Judgements on real issues: each labelled issue through the real path, scored per field.

    python benchmarks/real_issues.py --data ../shared/data/rocm_issues/dev.jsonl [--json]
        [--database sqlite | postgres://postgres@127.0.0.1:5432/bench_real_issues]
        [--install demo | empty] [--split benchmarks/data/rocm_issues_split.json | none]
        [--outcomes PATH]

The data is JSON lines, one issue each (kept outside the repository: the texts are third
parties'): `repository` ("OWNER/NAME"), `number`, `title`, `text` (the body), `labels`, `author`,
optional `comments` ([{"author", "association", "body"}]), and `gold` with `kind`, `symptom`,
`severity`, `gfx_targets`, `rocm_version` and `component`.

What runs is what a new user runs: a scratch database, migrated (benchmarks/harness.py; SQLite by
default), the service's own settings (DEBUG off, no REDIS_URL, so every task runs in-process as
in `make demo`), and with `--install demo` (the default) `load_demo`, which trains the models as a
fresh demo install does (the demo's weak labels: demo_train_and_classify); `--install empty`
trains nothing, so only the rules speak. A demo issue whose repository and number a labelled
issue has is deleted first (the demo is synthetic; its numbers can coincide with real ones).
Then each issue is delivered as a signed `issues` `opened` webhook to POST /webhooks/github/,
then its comments as `issue_comment` `created` deliveries, authored as the data says, and read
back through GET /api/issues/OWNER/NAME/NUMBER/ with a viewer's token.

The split (benchmarks/data/rocm_issues_split.json, made once by `split_make` before any rule was
tuned on the set): half of each repository group's issues to tune on, half to check on, named by
URL. Every figure is printed for the tuning part, the check part and the whole set; the misses
listed are the tuning part's only (the check part is scored, never read). Needs-info's reading
(automation.needs_info.services.completeness) of each stored issue is scored too: a "false ask" is a
fact it would ask for that the gold says the report gives (the GPU or its rocminfo, the ROCm
version, steps where the report holds a complete reproducer).

Printed per field: gfx targets precision and recall (micro over issues: every target predicted
or gold counts once per issue), ROCm version accuracy over the issues whose gold names one (equal
when the releases are the same: "6.2" = "6.2.0", "6.2" != "6.2.1"; and major.minor alone), the
`symptom` prediction ("n/a" while the service has none), severity exact and within one level,
kind and component agreement (component over the issues whose gold names one, compared without
case, spaces, "-" or "_"), each with its ten worst misses (issue, gold, got, evidence).
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import io
import json
import os
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import harness  # noqa: E402

SECRET = "benchmark-webhook-secret"  # noqa: S105 - the deliveries' signing key, this run only
SEVERITY_ORDER = ("critical", "high", "medium", "low")
WORST = 10
CLASSIFIED_FIELDS = ("symptom", "severity", "kind", "component")
START = datetime(2026, 1, 5, 9, 0, 0)

# --- scoring (pure functions: tests/benchmarks/test_real_issues_scoring.py) -------------------


def version_release(version: str | None) -> tuple[int, ...] | None:
    """ "6.2" and "6.2.0" are the same release: (6, 2); "6.2.1" is (6, 2, 1). None if not X.Y."""
    if not version:
        return None
    parts = str(version).strip().lower().removeprefix("rocm").strip().split(".")
    if len(parts) < 2 or not all(p.isdigit() for p in parts):
        return None
    numbers = [int(p) for p in parts[:3]]
    while len(numbers) > 2 and numbers[-1] == 0:
        numbers.pop()
    return tuple(numbers)


def version_equal(gold: str | None, got: str | None) -> bool:
    return version_release(gold) is not None and version_release(gold) == version_release(got)


def version_minor_equal(gold: str | None, got: str | None) -> bool:
    gold_release, got_release = version_release(gold), version_release(got)
    return (
        gold_release is not None and got_release is not None and gold_release[:2] == got_release[:2]
    )


def component_key(name: str | None) -> str:
    return "".join(ch for ch in (name or "").lower() if ch.isalnum())


def severity_distance(gold: str, got: str | None) -> int | None:
    """Levels between two severities (critical, high, medium, low); None if either is unknown."""
    if gold not in SEVERITY_ORDER or got not in SEVERITY_ORDER:
        return None
    return abs(SEVERITY_ORDER.index(gold) - SEVERITY_ORDER.index(got))


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


@dataclass
class Outcome:
    """One issue as the service judged it."""

    ref: str
    gold: dict
    gfx_targets: list[str] = field(default_factory=list)
    rocm_version: str | None = None
    environment_evidence: dict = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)  # model name → label
    confidences: dict[str, float] = field(default_factory=dict)
    evidence: dict[str, object] = field(default_factory=dict)
    classes: dict[str, list[str]] = field(default_factory=dict)  # the labels the model knows
    missing: list[str] = field(default_factory=list)  # what needs-info would ask for


def gfx_score(outcomes: list[Outcome]) -> dict:
    tp = fp = fn = exact = 0
    misses = []
    for o in outcomes:
        gold, got = set(o.gold.get("gfx_targets") or []), set(o.gfx_targets)
        tp, fp, fn = tp + len(gold & got), fp + len(got - gold), fn + len(gold - got)
        exact += gold == got
        if gold != got:
            misses.append((len(got - gold) + len(gold - got), o))
    misses.sort(key=lambda pair: (-pair[0], pair[1].ref))
    return {
        "issues": len(outcomes),
        "precision": _ratio(tp, tp + fp),
        "recall": _ratio(tp, tp + fn),
        "exact": _ratio(exact, len(outcomes)),
        "true_positives": tp,
        "false_positives": fp,
        "false_negatives": fn,
        "worst": [
            _miss(o, sorted(o.gold.get("gfx_targets") or []), sorted(o.gfx_targets), _env_why(o))
            for _, o in misses[:WORST]
        ],
    }


def rocm_version_score(outcomes: list[Outcome]) -> dict:
    scored = [o for o in outcomes if version_release(o.gold.get("rocm_version"))]
    right = sum(version_equal(o.gold["rocm_version"], o.rocm_version) for o in scored)
    minor = sum(version_minor_equal(o.gold["rocm_version"], o.rocm_version) for o in scored)
    unasked = [o for o in outcomes if not o.gold.get("rocm_version") and o.rocm_version]
    wrong = [o for o in scored if not version_equal(o.gold["rocm_version"], o.rocm_version)]
    # a wrong version is worse than none; then the versions given where the gold has none
    wrong.sort(key=lambda o: (not o.rocm_version, o.ref))
    worst = [_miss(o, o.gold["rocm_version"], o.rocm_version, _env_why(o)) for o in wrong]
    worst += [_miss(o, None, o.rocm_version, _env_why(o)) for o in unasked]
    stated_none = sum(not version_release(o.gold.get("rocm_version")) for o in outcomes)
    return {
        "issues": len(scored),
        "accuracy": _ratio(right, len(scored)),
        "major_minor_accuracy": _ratio(minor, len(scored)),
        "given_where_gold_has_none": len(unasked),
        # every issue: the same release, or none where the gold has none
        "agreement_all_issues": _ratio(right + stated_none - len(unasked), len(outcomes)),
        "worst": worst[:WORST],
    }


def _label_key(name: str, label: str | None) -> str:
    return component_key(label) if name == "component" else str(label or "")


def label_score(outcomes: list[Outcome], name: str) -> dict:
    """Agreement of one classified field (component over the issues whose gold names one), also
    within the model's own classes (the labels its probabilities name); severity within one
    level too."""
    if not any(name in o.labels for o in outcomes):
        return {"issues": 0, "accuracy": None, "note": f"n/a: the service has no {name} prediction"}
    scored = [o for o in outcomes if o.gold.get(name)]
    agree = [_label_key(name, o.gold[name]) == _label_key(name, o.labels.get(name)) for o in scored]
    classes = {_label_key(name, c) for o in outcomes for c in o.classes.get(name, ())}
    known = [
        ok for o, ok in zip(scored, agree, strict=True) if _label_key(name, o.gold[name]) in classes
    ]
    result = {
        "issues": len(scored),
        "accuracy": _ratio(sum(agree), len(scored)),
        "gold_outside_model_classes": len(scored) - len(known),
        "accuracy_within_model_classes": _ratio(sum(known), len(known)),
    }
    missed = [o for o, ok in zip(scored, agree, strict=True) if not ok]
    if name == "severity":
        distances = [severity_distance(o.gold[name], o.labels.get(name)) for o in scored]
        result["within_one"] = _ratio(sum(d is not None and d <= 1 for d in distances), len(scored))
        far = {o.ref: severity_distance(o.gold[name], o.labels.get(name)) for o in missed}
        missed.sort(key=lambda o: (-(far[o.ref] if far[o.ref] is not None else 9), o.ref))
    else:  # the most confident misses first
        missed.sort(key=lambda o: (-o.confidences.get(name, 0.0), o.ref))
    result["confusion"] = _confusion(scored, name)
    result["worst"] = [
        _miss(o, o.gold[name], o.labels.get(name), _label_why(o, name)) for o in missed[:WORST]
    ]
    return result


def _confusion(scored: list[Outcome], name: str) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {}
    for o in scored:
        row = table.setdefault(str(o.gold[name]), {})
        got = str(o.labels.get(name) or "-")
        row[got] = row.get(got, 0) + 1
    return table


def _miss(o: Outcome, gold, got, why) -> dict:
    return {"issue": o.ref, "gold": gold, "got": got, "evidence": why}


def _env_why(o: Outcome) -> dict:
    ev = o.environment_evidence
    return {"gpus": ev.get("gpus", []), "sources": ev.get("sources", {})}


def _label_why(o: Outcome, name: str):
    evidence = o.evidence.get(name)
    if isinstance(evidence, dict):
        terms = evidence.get("terms")
        evidence = terms[:6] if isinstance(terms, list) else evidence
    return {"confidence": o.confidences.get(name), "evidence": evidence}


ASKED_FACTS = ("gpu", "rocm_version", "steps", "rocminfo")  # those the gold can say are present


def gold_present(gold: dict) -> dict[str, bool]:
    """What the gold says a report gives of needs-info's facts (classifiers.completeness.FACTS):
    the GPU (a model or target named), so that no rocminfo is needed for it; the ROCm version;
    steps, when it holds a complete reproducer. The OS is not labelled: never a false ask."""
    gpu = bool(gold.get("gpu_models") or gold.get("gfx_targets"))
    return {
        "gpu": gpu,
        "rocminfo": gpu,
        "rocm_version": bool(version_release(gold.get("rocm_version"))),
        "steps": bool(gold.get("has_complete_reproducer")),
    }


def asks_score(outcomes: list[Outcome]) -> dict:
    """Needs-info's asks for facts the gold says the report gives (what it would name on its
    first reading, whatever the kind), and how many reports it would ask anything."""
    false_asks: dict[str, int] = {}
    worst = []
    for o in outcomes:
        present = gold_present(o.gold)
        wrong = [fact for fact in o.missing if present.get(fact)]
        for fact in wrong:
            false_asks[fact] = false_asks.get(fact, 0) + 1
        if wrong:
            worst.append(_miss(o, [f for f in present if present[f]], o.missing, wrong))
    return {
        "issues": len(outcomes),
        "false_asks": sum(false_asks.values()),
        "issues_with_a_false_ask": len(worst),
        "by_fact": dict(sorted(false_asks.items())),
        "would_ask": sum(bool(o.missing) for o in outcomes),
        "asks": sum(len(o.missing) for o in outcomes),
        "worst": worst[:WORST],
    }


def scores(outcomes: list[Outcome]) -> dict:
    result = {"gfx_targets": gfx_score(outcomes), "rocm_version": rocm_version_score(outcomes)}
    for name in CLASSIFIED_FIELDS:
        result[name] = label_score(outcomes, name)
    result["needs_info"] = asks_score(outcomes)
    return result


# --- deliveries ------------------------------------------------------------------------------


def _numeric_id(base: int, *parts: object) -> int:
    return base + zlib.crc32("/".join(str(p).lower() for p in parts).encode()) % 90_000_000


def _stamp(minutes: int) -> str:
    return (START + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _user(template: dict, login: str) -> dict:
    user = copy.deepcopy(template)
    uid = _numeric_id(800_000_000, "user", login)
    user.update(
        login=login,
        id=uid,
        node_id=f"U_bench{uid}",
        url=f"https://api.github.com/users/{login}",
        html_url=f"https://github.com/{login}",
        avatar_url=f"https://avatars.githubusercontent.com/u/{uid}?v=4",
    )
    return user


def _repository(template: dict, full_name: str, github_id: int) -> dict:
    owner, name = full_name.split("/", 1)
    repo = copy.deepcopy(template)
    repo.update(
        id=github_id,
        node_id=f"R_bench{github_id}",
        name=name,
        full_name=full_name,
        html_url=f"https://github.com/{full_name}",
        url=f"https://api.github.com/repos/{full_name}",
    )
    repo["owner"] = _user(template["owner"], owner)
    return repo


def _label(repo: str, name: str) -> dict:
    lid = _numeric_id(600_000_000, "label", repo, name)
    return {
        "id": lid,
        "node_id": f"LA_bench{lid}",
        "url": f"https://api.github.com/repos/{repo}/labels/{name}",
        "name": name,
        "color": "ededed",
        "default": False,
        "description": "",
    }


def issue_deliveries(item: dict, *, index: int, repository: dict, templates: dict) -> list:
    """(event, payload) pairs: the `issues` opened delivery, then one per comment."""
    repo, number = item["repository"], int(item["number"])
    opened = copy.deepcopy(templates["issues__opened"])
    issue = opened["issue"]
    api = f"https://api.github.com/repos/{repo}/issues/{number}"
    comments = item.get("comments") or []
    issue.update(
        id=900_000_000 + index,
        node_id=f"I_bench{900_000_000 + index}",
        number=number,
        title=item["title"],
        body=item.get("text") or None,
        user=_user(issue["user"], item.get("author") or "reporter"),
        labels=[_label(repo, name) for name in item.get("labels") or []],
        author_association="NONE",
        created_at=_stamp(index * 60),
        updated_at=_stamp(index * 60),
        comments=0,
        url=api,
        repository_url=f"https://api.github.com/repos/{repo}",
        labels_url=f"{api}/labels{{/name}}",
        comments_url=f"{api}/comments",
        events_url=f"{api}/events",
        html_url=f"https://github.com/{repo}/issues/{number}",
    )
    opened.update(repository=repository, sender=issue["user"])
    deliveries = [("issues", opened)]
    for position, comment in enumerate(comments, start=1):
        payload = copy.deepcopy(templates["issue_comment__created"])
        cid = 950_000_000 + index * 100 + position
        current = copy.deepcopy(issue)
        current.update(comments=position, updated_at=_stamp(index * 60 + position))
        author = _user(payload["comment"]["user"], comment.get("author") or "commenter")
        payload["comment"].update(
            id=cid,
            node_id=f"IC_bench{cid}",
            body=comment.get("body") or "",
            user=author,
            author_association=comment.get("association") or "NONE",
            created_at=_stamp(index * 60 + position),
            updated_at=_stamp(index * 60 + position),
            url=f"https://api.github.com/repos/{repo}/issues/comments/{cid}",
            html_url=f"https://github.com/{repo}/issues/{number}#issuecomment-{cid}",
            issue_url=api,
        )
        payload.update(issue=current, repository=repository, sender=author)
        deliveries.append(("issue_comment", payload))
    return deliveries


# --- the run ---------------------------------------------------------------------------------


def data_read(path: Path) -> list[dict]:
    items = []
    for line_number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        item = json.loads(line)
        missing = {"repository", "number", "title", "gold"} - set(item)
        if missing:
            raise SystemExit(f"{path}:{line_number}: missing {', '.join(sorted(missing))}")
        items.append(item)
    return items


# --- the split: tuned on one part, reported on the other --------------------------------------

SPLIT_FILE = Path(__file__).resolve().parent / "data" / "rocm_issues_split.json"
SPLIT_SEED = 20261207
PARTS = ("tune", "check")


def repository_group(repository: str) -> str:
    """The three groups the split is stratified by: ROCm's tracker (indexed as
    ROCm/legacy-rocm-build), the other ROCm/* repositories, and other projects."""
    name = repository.strip().lower()
    if name in ("rocm/rocm", "rocm/legacy-rocm-build"):
        return "tracker"
    return "rocm" if name.startswith("rocm/") else "other"


def split_make(items: list[dict], *, seed: int = SPLIT_SEED) -> dict:
    """Half of each group's issues to tune on, half to check on: within a group the issues are
    ordered by a digest of the seed and their URL (fixed, whatever the file's order), the first
    half (rounded down) is the tuning part. Only URLs are kept: the texts are third parties'."""
    groups: dict[str, list[str]] = {}
    for item in items:
        groups.setdefault(repository_group(item["repository"]), []).append(item_url(item))
    parts: dict[str, list[str]] = {part: [] for part in PARTS}
    for urls in groups.values():
        urls = sorted(set(urls), key=lambda url: hashlib.sha256(f"{seed}:{url}".encode()).digest())
        parts["tune"] += urls[: len(urls) // 2]
        parts["check"] += urls[len(urls) // 2 :]
    parts = {part: sorted(urls) for part, urls in parts.items()}
    return {
        "seed": seed,
        "method": "by issue, stratified by repository group (tracker, other ROCm/*, other "
        "projects); within a group ordered by sha256(seed:url), the first half tunes",
        "counts": {part: len(urls) for part, urls in parts.items()},
        **parts,
    }


def item_url(item: dict) -> str:
    return item.get("url") or f"https://github.com/{item['repository']}/issues/{item['number']}"


def split_read(path: Path) -> dict[str, str]:
    """{url: part} of a split file."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return {url: part for part in PARTS for url in data.get(part, [])}


def split_items(items: list[dict], split: dict[str, str]) -> dict[str, list[int]]:
    """Each part's positions in `items`; issues the split does not name are "unsplit"."""
    found: dict[str, list[int]] = {}
    for index, item in enumerate(items):
        found.setdefault(split.get(item_url(item), "unsplit"), []).append(index)
    return found


def _environment(database_url: str, var_dir: str) -> None:
    for name in ("REDIS_URL", "DEBUG", "GITHUB_REPOS", "GITHUB_TOKEN", "CLASSIFIER_SENTIMENT_CSV"):
        os.environ.pop(name, None)
    os.environ.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=database_url,
        VAR_DIR=var_dir,
        SECRET_KEY="benchmark-only-secret-key",
        GITHUB_WEBHOOK_SECRET=SECRET,
        GITHUB_API_URL="http://127.0.0.1:9",  # nothing here may reach GitHub
        ALLOWED_HOSTS="127.0.0.1,localhost,testserver",
        LOG_LEVEL="ERROR",
        SECURE_SSL_REDIRECT="0",
    )


def _install(kind: str) -> float:
    from django.core.management import call_command

    started = time.monotonic()
    call_command("migrate", "--noinput", verbosity=0)
    if kind == "demo":
        call_command("load_demo", "--no-user", stdout=io.StringIO())
    return time.monotonic() - started


def _viewer_token() -> str:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from rest_framework.authtoken.models import Token

    user, _ = get_user_model().objects.get_or_create(username="benchmark-viewer")
    user.groups.add(Group.objects.get(name="viewers"))
    return Token.objects.get_or_create(user=user)[0].key


def _repositories(items: list[dict]) -> dict[str, int]:
    """Repository ids as GitHub would send them: the demo's own where it has that repository."""
    from triage.models import Repository

    known = {r.full_name.lower(): r.github_id for r in Repository.objects.exclude(github_id=None)}
    names = {item["repository"].lower(): item["repository"] for item in items}
    return {
        lower: known.get(lower) or _numeric_id(700_000_000, "repository", lower) for lower in names
    }


def _clear_coinciding_demo_issues(items: list[dict]) -> int:
    from triage.models import Issue

    removed = 0
    for item in items:
        found = Issue.objects.filter(
            repository__full_name__iexact=item["repository"], number=int(item["number"])
        )
        if found.exists():
            found.delete()
            removed += 1
    return removed


def deliver_all(items: list[dict]) -> dict:
    from django.test import Client

    from tests.fakes.github_webhooks import delivery_headers, fixture_payload

    templates = {n: fixture_payload(n) for n in ("issues__opened", "issue_comment__created")}
    ids = _repositories(items)
    client = Client()
    sent = 0
    for index, item in enumerate(items):
        repository = _repository(
            templates["issues__opened"]["repository"],
            item["repository"],
            ids[item["repository"].lower()],
        )
        for event, payload in issue_deliveries(
            item, index=index, repository=repository, templates=templates
        ):
            body = json.dumps(payload).encode()
            headers = delivery_headers(event, body, SECRET, f"bench-{index}-{sent}")
            headers["X-GitHub-Hook-Installation-Target-ID"] = str(repository["id"])
            headers.pop("Content-Type")
            answer = client.post(
                "/webhooks/github/", data=body, content_type="application/json", headers=headers
            )
            if answer.status_code != 202:
                raise RuntimeError(f"{event} of {_ref(item)} answered {answer.status_code}")
            sent += 1
    return {"deliveries": sent}


def _ref(item: dict) -> str:
    return f"{item['repository']}#{item['number']}"


def read_back(items: list[dict], token: str) -> list[Outcome]:
    from django.test import Client

    client = Client(headers={"Authorization": f"Token {token}"})
    outcomes = []
    for item in items:
        answer = client.get(f"/api/issues/{item['repository']}/{int(item['number'])}/")
        if answer.status_code != 200:
            raise RuntimeError(f"GET {_ref(item)} answered {answer.status_code}")
        outcomes.append(outcome_of(item, answer.json()))
    return outcomes


def outcome_of(item: dict, detail: dict) -> Outcome:
    """What the API says of one issue, against its gold labels."""
    outcome = Outcome(ref=_ref(item), gold=item["gold"])
    for prediction in detail.get("predictions") or []:
        name, evidence = prediction["model"], prediction.get("evidence") or {}
        if name == "environment":
            outcome.gfx_targets = list(evidence.get("architectures") or [])
            outcome.rocm_version = evidence.get("rocm_version") or None
            outcome.environment_evidence = evidence
        elif name in CLASSIFIED_FIELDS:
            outcome.labels[name] = prediction["label"]
            outcome.confidences[name] = prediction.get("confidence") or 0.0
            outcome.evidence[name] = evidence
            outcome.classes[name] = sorted(evidence.get("probabilities") or {})
    return outcome


def asks_read(items: list[dict], outcomes: list[Outcome]) -> None:
    """What needs-info would ask each report for (automation.needs_info.services.completeness, on
    what the service stored), into each outcome's `missing`."""
    from automation.needs_info import services as needs_info
    from triage.models import Issue

    for item, outcome in zip(items, outcomes, strict=True):
        issue = Issue.objects.get(
            repository__full_name__iexact=item["repository"], number=int(item["number"])
        )
        outcome.missing = list(needs_info.completeness(issue).missing)


TRAINED_MODELS = ("symptom", "kind", "severity")


def train_on_part(items: list[dict], split: dict[str, str], part: str, var_dir: str) -> dict:
    """Train the models that have gold labels on one part's reports, as a deployment does from
    its labelled history: `train_classifier MODEL --jsonl` (activated whatever it scores)."""
    from django.core.management import call_command

    path = Path(var_dir) / f"{part}.jsonl"
    chosen = [item for item in items if split.get(item_url(item)) == part]
    path.write_text("".join(json.dumps(item) + "\n" for item in chosen), encoding="utf-8")
    trained = {}
    for name in TRAINED_MODELS:
        out = io.StringIO()
        call_command("train_classifier", name, "--jsonl", str(path), "--force", stdout=out)
        trained[name] = out.getvalue().strip().splitlines()[0]
    return {"part": part, "issues": len(chosen), "models": trained}


def run(
    data: Path,
    *,
    database: str,
    install: str,
    split: dict[str, str] | None = None,
    train_part: str = "",
) -> dict:
    items = data_read(data)
    timings: dict[str, float] = {}
    with (
        harness.scratch_database(database) as database_url,
        tempfile.TemporaryDirectory(prefix="bench-real-issues-") as var_dir,
    ):
        _environment(database_url, var_dir)
        import django

        django.setup()
        timings["install_s"] = round(_install(install), 1)
        trained = train_on_part(items, split or {}, train_part, var_dir) if train_part else {}
        removed = _clear_coinciding_demo_issues(items)
        token = _viewer_token()
        started = time.monotonic()
        delivered = deliver_all(items)
        timings["deliver_s"] = round(time.monotonic() - started, 1)
        started = time.monotonic()
        outcomes = read_back(items, token)
        asks_read(items, outcomes)
        timings["read_back_s"] = round(time.monotonic() - started, 1)
        from django.db import connections

        connections.close_all()  # before the scratch database is dropped
    return {
        "data": str(data),
        "issues": len(items),
        "deliveries": delivered["deliveries"],
        "demo_issues_replaced": removed,
        "install": install,
        "trained_on": trained,
        "database": "sqlite" if database.startswith("sqlite") else "postgres",
        "timings": timings,
        "scores": scores(outcomes),
        "parts": {
            part: scores([outcomes[i] for i in positions])
            for part, positions in split_items(items, split or {}).items()
            if split
        },
        "outcomes": [
            {
                "issue": o.ref,
                "url": item_url(item),
                "part": (split or {}).get(item_url(item), ""),
                "gold": o.gold,
                "gfx_targets": o.gfx_targets,
                "rocm_version": o.rocm_version,
                "labels": o.labels,
                "missing": o.missing,
            }
            for item, o in zip(items, outcomes, strict=True)
        ],
    }


# --- printing --------------------------------------------------------------------------------


def _figure(value) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def figures(s: dict) -> list[tuple[str, str]]:
    """(what, figure) rows of one set's scores, in the order the issue's targets name them."""
    gfx, version, asks = s["gfx_targets"], s["rocm_version"], s["needs_info"]
    rows = [
        ("issues", str(gfx["issues"])),
        ("gfx targets precision", _figure(gfx["precision"])),
        ("gfx targets recall", _figure(gfx["recall"])),
        ("ROCm version (gold names one)", _figure(version["accuracy"])),
        ("  issues it is over", str(version["issues"])),
        ("  given where the gold has none", str(version["given_where_gold_has_none"])),
        ("  every issue (none = none)", _figure(version["agreement_all_issues"])),
    ]
    for name in CLASSIFIED_FIELDS:
        part = s[name]
        label = "severity exact" if name == "severity" else name
        rows.append((label, _figure(part["accuracy"])))
        if "within_one" in part:
            rows.append(("severity within one level", _figure(part["within_one"])))
    rows += [
        ("needs-info false asks", str(asks["false_asks"])),
        ("  reports with one", str(asks["issues_with_a_false_ask"])),
        *((f"  for {fact}", str(asks["by_fact"].get(fact, 0))) for fact in ASKED_FACTS),
        ("  reports it would ask anything", str(asks["would_ask"])),
    ]
    return rows


def report_text(result: dict) -> str:
    t = result["timings"]
    lines = [
        f"{result['issues']} issues ({result['deliveries']} deliveries) from {result['data']};"
        f" install {result['install']} on {result['database']}: install {t['install_s']} s,"
        f" deliveries {t['deliver_s']} s, read back {t['read_back_s']} s",
        "",
    ]
    if result.get("trained_on"):
        trained = result["trained_on"]
        lines[1:1] = [
            f"then trained on the {trained['part']} part's {trained['issues']} labelled reports:",
            *(f"  {summary}" for summary in trained["models"].values()),
        ]
    columns = {**{p: result["parts"][p] for p in PARTS if p in result["parts"]}}
    columns["whole set"] = result["scores"]
    table = {name: figures(scores) for name, scores in columns.items()}
    header = "".join(f"{name:>11}" for name in table)
    lines.append(f"{'':<34}{header}")
    for row, (what, _) in enumerate(next(iter(table.values()))):
        values = "".join(f"{table[name][row][1]:>11}" for name in table)
        lines.append(f"{what:<34}{values}")
    # the misses to learn from: the tuning part's (the check part is only ever scored)
    learn_from = result["parts"].get("tune", result["scores"])
    which = "the tuning part" if "tune" in result["parts"] else "the whole set"
    for name, part in learn_from.items():
        if not part.get("worst"):
            continue
        lines += ["", f"worst misses ({which}): {name}"]
        for miss in part["worst"]:
            why = json.dumps(miss["evidence"], ensure_ascii=False)
            lines.append(
                f"  {miss['issue']}: gold {json.dumps(miss['gold'])}, got"
                f" {json.dumps(miss['got'])}; {why[:160]}"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="labelled issues, JSON lines")
    parser.add_argument(
        "--database",
        default="sqlite",
        help="sqlite (a temporary file) or a postgres:// URL of a scratch database named bench*",
    )
    parser.add_argument("--install", choices=("demo", "empty"), default="demo")
    parser.add_argument(
        "--split",
        type=Path,
        default=SPLIT_FILE,
        help="the tuning and check parts, by URL (default: benchmarks/data/rocm_issues_split.json;"
        " 'none' scores the whole set only)",
    )
    parser.add_argument(
        "--train-on",
        choices=PARTS,
        default="",
        help="after the install, train symptom, kind and severity on this part's gold labels"
        " (train_classifier --jsonl): what a deployment learns from its labelled history",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--outcomes", type=Path, help="also write each issue's gold and judgements (JSON) here"
    )
    args = parser.parse_args(argv)
    if not args.data.is_file():
        parser.error(f"no file at {args.data}")
    split = None
    if str(args.split) != "none":
        if not args.split.is_file():
            parser.error(f"no split file at {args.split}")
        split = split_read(args.split)
    if args.train_on and split is None:
        parser.error("--train-on needs the split")
    result = run(
        args.data,
        database=args.database,
        install=args.install,
        split=split,
        train_part=args.train_on,
    )
    if args.outcomes:
        args.outcomes.write_text(json.dumps(result["outcomes"], indent=1), encoding="utf-8")
    result.pop("outcomes")
    print(json.dumps(result, indent=1) if args.json else report_text(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
