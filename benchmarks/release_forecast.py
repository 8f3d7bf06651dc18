"""Quality of the fix-by-branch-cut forecast, by replaying past trains (docs/PERFORMANCE.md).

    python benchmarks/release_forecast.py [--data demo|synthetic|both] [--trains 24]
        [--issues-per-train 80] [--seed 0] [--json]

For each data set the past trains are replayed (releases.history, releases.forecast.replay: one
row per issue open on a train at 28, 21, 14, 7, 3 and 1 days before its branch cut), then
rolling origin: the model is fitted on the trains before train k and scores train k, for every
k from the third train on. Printed: the Brier score of the model and of the base rate (the
fixed share of the training rows, the forecast that knows nothing), the skill score
1 - Brier/base, per-train scores, and a calibration table (predicted probability in tenths:
rows, mean predicted, observed share fixed).

demo: the bundled demo (load_demo, about 3 minutes on 2 cores) in a scratch SQLite database.
synthetic: a larger history in another scratch database: `--trains` six-week trains with
`--issues-per-train` new issues each, fixed at a daily rate that depends on the severity, an
assignee, a regression label and the component, the fix in a pull request opened 1 to 12 days
before it merges ("Fixes #N"), unfixed issues closed as stale after 60 to 240 days. It is a
check that the method finds a signal where there is one, not a claim about real trains.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks import harness  # noqa: E402

COMPONENTS = ["hip", "rocblas", "miopen", "rccl", "hipblaslt", "rocfft", "triton", "compiler"]
SEVERITY_RATE = {"critical": 4.0, "high": 2.5, "medium": 1.0, "low": 0.5}


def _setup() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()


def _evaluate(series) -> dict:
    from django.utils import timezone

    from releases import forecast
    from releases.history import history_load

    started = time.perf_counter()
    history = history_load(series)
    rows = forecast.replay(history, forecast.past_trains(history, timezone.now()))
    replayed = time.perf_counter() - started
    started = time.perf_counter()
    metrics = forecast.evaluate_rolling(rows)
    metrics["replay_s"] = round(replayed, 2)
    metrics["evaluate_s"] = round(time.perf_counter() - started, 2)
    metrics["fixed_rows"] = sum(r.label for r in rows)
    return metrics


def _worker_demo() -> dict:
    _setup()
    import io

    from django.core.management import call_command

    from releases.models import ReleaseSeries

    call_command("load_demo", "--no-user", stdout=io.StringIO())
    return _evaluate(ReleaseSeries.objects.get(name="rocm"))


def _worker_synthetic(trains: int, per_train: int, seed: int) -> dict:
    _setup()
    from django.db import transaction
    from django.utils import timezone

    from releases.services.fixes import fix_links_sync_ids
    from releases.services.series import series_create
    from triage.models import Comment, Issue, IssuePrediction, Label, Person, Repository

    rng = random.Random(seed)
    today = timezone.now().date()
    epoch = today - timedelta(days=42 * (trains + 1))
    repositories = [
        Repository.objects.create(
            full_name=name, html_url=f"https://github.com/{name}", default_branch="develop"
        )
        for name in ("synth/runtime", "synth/libraries", "synth/compiler")
    ]
    series = series_create(
        name="synth", epoch_version="1.0", epoch_date=epoch, repositories=repositories
    )
    labels = {
        (r.id, name): Label.objects.create(repository=r, name=name)
        for r in repositories
        for name in ("bug", "regression")
    }
    developer = Person.objects.create(external_id="1", login="dev")
    component_rate = {c: rng.uniform(0.5, 2.0) for c in COMPONENTS}
    start = datetime.combine(epoch, datetime.min.time(), tzinfo=UTC) - timedelta(days=42)
    end = timezone.now()
    number = {r.id: 0 for r in repositories}
    github_id = iter(range(10, 10**9))
    issues, pulls, comments, predictions, regressions, assigned = [], [], [], [], [], []
    for _ in range(trains * per_train):
        repository = rng.choice(repositories)
        number[repository.id] += 1
        created = start + timedelta(seconds=rng.uniform(0, (end - start).total_seconds()))
        severity = rng.choices(list(SEVERITY_RATE), weights=[1, 3, 6, 4])[0]
        component = rng.choice(COMPONENTS)
        has_assignee = rng.random() < 0.4
        regression = rng.random() < 0.15
        rate = 0.012 * SEVERITY_RATE[severity] * component_rate[component]
        rate *= (2.0 if has_assignee else 1.0) * (1.5 if regression else 1.0)
        fixed_at = created + timedelta(days=rng.expovariate(rate))
        stale_at = created + timedelta(days=rng.uniform(60, 240))
        closed_at = min(fixed_at + timedelta(hours=rng.uniform(1, 48)), stale_at)
        issue = Issue(
            repository=repository,
            number=number[repository.id],
            external_id=str(next(github_id)),
            title=f"synthetic {severity} {component} issue",
            state="closed" if closed_at < end else "open",
            closed_at=closed_at if closed_at < end else None,
            created_at=created,
            updated_at=min(closed_at, end),
            html_url=f"{repository.html_url}/issues/{number[repository.id]}",
        )
        issues.append(issue)
        engagement = SEVERITY_RATE[severity] * (1.5 if regression else 1.0)
        for _ in range(min(30, int(rng.expovariate(1 / (1 + engagement))))):
            when = created + timedelta(days=rng.expovariate(1 / 10))
            if when < min(closed_at, end):
                comments.append((issue, when))
        predictions.append((issue, severity, component))
        if regression:
            regressions.append(issue)
        if has_assignee:
            assigned.append(issue)
        if fixed_at < stale_at and fixed_at < end:
            pulls.append((issue, fixed_at - timedelta(days=rng.uniform(1, 12)), fixed_at))
    with transaction.atomic():
        Issue.objects.bulk_create(issues, batch_size=1000)
        Comment.objects.bulk_create(
            [
                Comment(
                    issue=i,
                    external_id=str(next(github_id)),
                    body="same",
                    created_at=w,
                    updated_at=w,
                )
                for i, w in comments
            ],
            batch_size=2000,
        )
        IssuePrediction.objects.bulk_create(
            [
                row
                for issue, severity, component in predictions
                for row in (
                    IssuePrediction(issue=issue, model_name="severity", label=severity),
                    IssuePrediction(issue=issue, model_name="component", label=component),
                    IssuePrediction(issue=issue, model_name="kind", label="bug"),
                )
            ],
            batch_size=2000,
        )
        Issue.labels.through.objects.bulk_create(
            [
                Issue.labels.through(issue_id=i.id, label_id=labels[(i.repository_id, "bug")].id)
                for i in issues
            ]
            + [
                Issue.labels.through(
                    issue_id=i.id, label_id=labels[(i.repository_id, "regression")].id
                )
                for i in regressions
            ],
            batch_size=2000,
        )
        Issue.assignees.through.objects.bulk_create(
            [Issue.assignees.through(issue_id=i.id, person_id=developer.id) for i in assigned]
        )
        prs = []
        for issue, opened, merged in pulls:
            number[issue.repository_id] += 1
            prs.append(
                Issue(
                    repository=issue.repository,
                    number=number[issue.repository_id],
                    external_id=str(next(github_id)),
                    is_pull_request=True,
                    title="the fix",
                    body=f"Fixes #{issue.number}",
                    state="closed",
                    merged=True,
                    merged_at=merged,
                    closed_at=merged,
                    merge_commit_sha=f"{next(github_id):040x}",
                    base_ref="develop",
                    created_at=opened,
                    updated_at=merged,
                    html_url=f"{issue.repository.html_url}/pull/{number[issue.repository_id]}",
                )
            )
        Issue.objects.bulk_create(prs, batch_size=1000)
        fix_links_sync_ids(ids=[p.id for p in prs])
    metrics = _evaluate(series)
    metrics["issues"] = len(issues)
    metrics["pull_requests"] = len(prs)
    return metrics


def _print(name: str, metrics: dict) -> None:
    brier, base = metrics["brier"], metrics["base_rate_brier"]
    skill = 1 - brier / base if brier is not None and base else None
    print(f"\n## {name}")
    extra = f", {metrics['issues']} issues" if "issues" in metrics else ""
    print(
        f"{metrics['trains']} past trains{extra}, {metrics['rows']} replayed rows "
        f"({metrics['fixed_rows']} fixed by the cut); replay {metrics['replay_s']} s, "
        f"rolling evaluation {metrics['evaluate_s']} s"
    )
    if brier is None:
        print("too few trains to evaluate")
        return
    print(
        f"rolling origin over {metrics['evaluated_trains']} trains, {metrics['evaluated_rows']} "
        f"rows: Brier {brier:.4f}, base rate {base:.4f}, skill {skill:+.3f}"
    )
    print(
        "\n| train | rows | fixed | Brier | base-rate Brier |\n| --- | ---: | ---: | ---: | ---: |"
    )
    for t in metrics["per_train"]:
        print(
            f"| {t['train']} | {t['n']} | {t['fixed']} | {t['brier']:.4f} | "
            f"{t['base_rate_brier']:.4f} |"
        )
    print("\n| predicted | rows | mean predicted | observed |\n| --- | ---: | ---: | ---: |")
    for b in metrics["calibration"]:
        print(f"| {b['bin']} | {b['n']} | {b['mean_predicted']:.3f} | {b['observed']:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", choices=["demo", "synthetic", "both"], default="both")
    parser.add_argument("--trains", type=int, default=24, help="synthetic: past trains")
    parser.add_argument("--issues-per-train", type=int, default=80)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--worker", choices=["demo", "synthetic"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker == "demo":
        print(json.dumps(_worker_demo()))
        return
    if args.worker == "synthetic":
        print(json.dumps(_worker_synthetic(args.trains, args.issues_per_train, args.seed)))
        return
    results = {}
    wanted = ["demo", "synthetic"] if args.data == "both" else [args.data]
    for name in wanted:
        with harness.scratch_database("sqlite") as database_url:
            harness.migrate(database_url)
            env = harness.base_env(DATABASE_URL=database_url, KERNELS_CI_DEMO_RUN="0")
            argv = [
                __file__,
                "--worker",
                name,
                "--trains",
                str(args.trains),
                "--issues-per-train",
                str(args.issues_per_train),
                "--seed",
                str(args.seed),
            ]
            results[name] = harness.run_json(argv, env, timeout=1800)
    if args.json:
        print(json.dumps(results, indent=2, sort_keys=True))
        return
    print(f"# fix-by-branch-cut forecast, rolling origin; {harness.machine()}")
    for name, metrics in results.items():
        _print(name, metrics)


if __name__ == "__main__":
    main()
