import io
import json
from datetime import UTC, date, datetime

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from releases.readiness import readiness_build
from releases.report_formats import release_notes_markdown, report_render
from releases.services.fixes import fix_links_sync
from releases.services.targets import target_set

AS_OF = date(2026, 12, 2)


CREATED = datetime(2026, 11, 1, tzinfo=UTC)


def _predict(issue, **labels):
    """What triage stores after classifying an issue (model name -> label)."""
    from triage.models import IssuePrediction

    for model_name, label in labels.items():
        IssuePrediction.objects.create(
            issue=issue, model_name=model_name, label=label, confidence=0.95
        )


@pytest.fixture
def train_data(make, series):
    blocker = make.issue(number=1, title="Hang on <MI300X>", labels=["gfx942"], created_at=CREATED)
    target_set(issue=blocker, series=series, version="7.9", flags=["blocker"])
    make.issue(
        number=2,
        title="Slower since 7.8",
        labels=["regression", "priority: critical"],
        created_at=CREATED,
    )
    make.issue(number=3, title="Docs typo", created_at=CREATED)  # untriaged: no labels
    fixed = make.issue(number=4, title="NaN in gemm", state="closed", created_at=CREATED)
    _predict(fixed, environment="gfx942", component="rocBLAS", kind="bug")
    make.issue(number=5, title="Later", labels=["regression"], milestone="7.10", created_at=CREATED)
    make.pull_request(
        number=6,
        body="Fixes #4",
        merged=True,
        base_ref="develop",
        merge_commit_sha="c" * 40,
        merged_at=datetime(2026, 11, 20, tzinfo=UTC),
        created_at=CREATED,
    )
    make.pull_request(
        number=7,
        title="cherry-pick",
        merged=True,
        base_ref="release/rocm-rel-7.9",
        merged_at=datetime(2026, 11, 21, tzinfo=UTC),
        created_at=CREATED,
    )
    from triage.models import Issue

    fix_links_sync(pull_request=Issue.objects.get(number=6))
    return {"series": series, "fixed": fixed}


def test_it_says_no_go_with_its_reasons(train_data):
    report = readiness_build(series=train_data["series"], version="7.9", as_of=AS_OF)
    assert report["verdict"] == "NO-GO"
    assert report["reasons"] == [
        "1 open blocker(s): ROCm/ROCm#1",
        "1 open critical regression(s): ROCm/ROCm#2",
    ]
    counts = report["counts"]
    assert (counts["open_blockers"], counts["open_regressions"], counts["untriaged"]) == (1, 1, 1)
    assert [r["reference"] for r in report["fixed"]] == ["ROCm/ROCm#4"]
    assert report["fixed"][0]["architectures"] == ["gfx942"]
    assert report["fixed"][0]["chain"][0]["merge_commit"] == "c" * 40
    assert [m["pull_request"] for m in report["unlinked_release_merges"]] == ["ROCm/ROCm#7"]
    assert report["gpu_matrix"] == [
        {
            "arch": "gfx942",
            "open_blockers": 1,
            "open_regressions": 0,
            "fixes": 1,
            "verified_fixes": 0,
        }
    ]


def test_the_next_train_only_holds_what_targets_it(train_data):
    report = readiness_build(series=train_data["series"], version="7.10", as_of=AS_OF)
    assert [r["reference"] for r in report["open_regressions"]] == ["ROCm/ROCm#5"]
    assert report["verdict"] == "GO"


def test_an_empty_train_is_go(series):
    report = readiness_build(series=series, version="7.9", as_of=AS_OF)
    assert (report["verdict"], report["reasons"]) == (
        "GO",
        ["no open blockers and no open critical regressions"],
    )


@pytest.mark.parametrize("fmt", ["md", "json", "html"])
def test_the_same_data_gives_the_same_bytes(train_data, fmt):
    def render():
        return report_render(
            readiness_build(series=train_data["series"], version="7.9", as_of=AS_OF), fmt
        ).encode()

    assert render() == render()


def test_html_escapes_issue_text(train_data):
    report = readiness_build(series=train_data["series"], version="7.9", as_of=AS_OF)
    html = report_render(report, "html")
    assert "Hang on &lt;MI300X&gt;" in html and "<MI300X>" not in html
    assert "Hang on \\<MI300X\\>" in report_render(report, "md")


def test_release_notes_have_rocms_sections(train_data):
    report = readiness_build(series=train_data["series"], version="7.9", as_of=AS_OF)
    notes = release_notes_markdown(report)
    assert notes.startswith("## ROCm 7.9.0\n\n### Resolved issues\n\n* **NaN in gemm**.")
    assert "Affected GPUs: gfx942. Component: rocBLAS." in notes
    assert "### Known issues\n\n* **Slower since 7.8**." in notes


def test_the_command_writes_json(train_data, tmp_path):
    path = tmp_path / "report.json"
    call_command(
        "readiness_report",
        "7.9.0",
        "--format",
        "json",
        "--as-of",
        "2026-12-02",
        "--output",
        str(path),
        stderr=io.StringIO(),
    )
    data = json.loads(path.read_text())
    assert (data["train"], data["label"], data["verdict"]) == ("7.9", "7.9.0", "NO-GO")


def test_the_command_prints_markdown(train_data):
    out = io.StringIO()
    call_command("readiness_report", "7.9", "--as-of", "2026-12-02", stdout=out)
    assert out.getvalue().startswith("# Readiness of rocm 7.9.0: NO-GO\n")


def test_the_command_refuses_an_unknown_train(series):
    with pytest.raises(CommandError, match="no train 6.0"):
        call_command("readiness_report", "6.0")


def test_the_api_lists_trains(api_client, series):
    response = api_client.get("/api/releases/")
    assert response.status_code == 200
    positions = {t["position"] for t in response.json()["results"]}
    assert positions == {"past", "current", "next"}
    assert {"version", "label", "branch_cut", "release", "phase"} <= set(
        response.json()["results"][0]
    )


def test_the_api_lists_the_trains_the_timeline_page_shows(api_client, client, user, series):
    import re

    client.force_login(user)
    page = client.get("/releases/").content.decode()
    on_page = re.findall(r'href="/releases/(\d+\.\d+)/\?series=rocm"', page)
    listed = [t["version"] for t in api_client.get("/api/releases/").json()["results"]]
    assert listed and list(dict.fromkeys(on_page)) == listed


def test_the_api_answers_the_same_report(api_client, train_data):
    response = api_client.get("/api/releases/7.9/readiness/?as_of=2026-12-02")
    assert response.status_code == 200
    expected = readiness_build(series=train_data["series"], version="7.9", as_of=AS_OF)
    assert response.json() == json.loads(report_render(expected, "json"))
    # a form's empty series field is the default series, not a 400
    blank = api_client.get("/api/releases/7.9/readiness/?as_of=2026-12-02&series=")
    assert blank.status_code == 200 and blank.json() == response.json()


def test_the_api_answers_404_and_400(api_client, series):
    assert api_client.get("/api/releases/6.0/readiness/").status_code == 404
    assert api_client.get("/api/releases/7.9/readiness/?as_of=soon").status_code == 400


def test_the_api_needs_a_token(client, series):
    assert client.get("/api/releases/").status_code in (401, 403)


def _runs(issue, backend: str, outcomes: list[str], arch="gfx942"):
    from kernels_ci.models import ReproCase, ReproRun

    case, _ = ReproCase.objects.get_or_create(
        issue=issue,
        defaults={"script": "x = 1\n", "sha256": "b" * 64, "approved_sha256": "b" * 64},
    )
    start = ReproRun.objects.filter(case=case, arch=arch, backend=backend).count()
    for attempt, outcome in enumerate(outcomes, start=start + 1):
        ReproRun.objects.create(
            case=case,
            arch=arch,
            backend=backend,
            attempt=attempt,
            queue=f"repro.{arch}",
            script_sha256="b" * 64,
            status="done",
            outcome=outcome,
            finished_at=datetime(2026, 11, 22, attempt, tzinfo=UTC),
        )


def test_verification_keeps_every_backend_of_an_architecture(train_data):
    fixed = train_data["fixed"]
    _runs(fixed, "rocm-container", ["reproduced", *["not_reproduced"] * 3])
    _runs(fixed, "triton-amd-compile", ["not_reproduced"])
    report = readiness_build(series=train_data["series"], version="7.9", as_of=AS_OF)
    row = report["fixed"][0]
    assert [(v["arch"], v["backend"], v["state"]) for v in row["verification"]] == [
        ("gfx942", "rocm-container", "verified_fixed"),
        ("gfx942", "triton-amd-compile", "never_reproduced"),
    ]
    assert row["verified_architectures"] == ["gfx942"]
    assert report["gpu_matrix"][0]["verified_fixes"] == 1
    assert "gfx942 (rocm-container): verified_fixed" in report_render(report, "md")


def test_an_architecture_still_reproducing_on_one_backend_is_not_verified(train_data):
    fixed = train_data["fixed"]
    _runs(fixed, "rocm-container", ["reproduced", *["not_reproduced"] * 3])
    _runs(fixed, "triton-amd-compile", ["reproduced"])
    report = readiness_build(series=train_data["series"], version="7.9", as_of=AS_OF)
    row = report["fixed"][0]
    assert len(row["verification"]) == 2
    assert row["verified_architectures"] == []


def test_verification_as_of_counts_only_runs_finished_by_then(train_data):
    _runs(train_data["fixed"], "rocm-container", ["reproduced", *["not_reproduced"] * 3])
    before = readiness_build(series=train_data["series"], version="7.9", as_of=date(2026, 11, 21))
    assert before["fixed"][0]["verification"] == []  # fix merged 11-20, runs finished 11-22
    report = readiness_build(series=train_data["series"], version="7.9", as_of=date(2026, 11, 22))
    assert report["fixed"][0]["verified_architectures"] == ["gfx942"]


def test_as_of_replays_what_was_open_and_fixed_then(make, series):
    early = make.issue(number=1, created_at=datetime(2026, 11, 2, tzinfo=UTC))
    make.issue(number=2, created_at=datetime(2026, 11, 25, tzinfo=UTC))  # not yet filed
    make.issue(
        number=3,
        created_at=datetime(2026, 11, 2, tzinfo=UTC),
        state="closed",
        closed_at=datetime(2026, 11, 28, tzinfo=UTC),
    )
    pr = make.pull_request(
        number=9,
        body="Fixes #1",
        merged=True,
        base_ref="develop",
        merged_at=datetime(2026, 11, 20, 6, tzinfo=UTC),
        created_at=datetime(2026, 11, 10, tzinfo=UTC),
    )
    fix_links_sync(pull_request=pr)

    def build(day):
        return readiness_build(series=series, version="7.9", as_of=day)

    at_19 = build(date(2026, 11, 19))
    assert at_19["counts"]["open_in_train"] == 2  # #1 and #3; #2 was filed later
    assert at_19["fixed"] == []
    at_20 = build(date(2026, 11, 20))
    assert [r["reference"] for r in at_20["fixed"]] == ["ROCm/ROCm#1"]
    at_29 = build(date(2026, 11, 29))
    assert at_29["counts"]["open_in_train"] == 2  # #1 (the issue stays open) and #2
    assert early.reference in {r["reference"] for r in at_29["fixed"]}


def test_as_of_replays_targets_through_punts(make, series):
    from releases.models import Punt
    from releases.services.punting import train_punt

    issue = make.issue(number=1, created_at=datetime(2026, 10, 1, tzinfo=UTC))
    target_set(issue=issue, series=series, version="7.9")
    train_punt(series=series, version="7.9")  # now on 7.10
    Punt.objects.update(created_at=datetime(2026, 12, 10, tzinfo=UTC))  # at the branch cut
    today = readiness_build(series=series, version="7.10", as_of=date(2027, 1, 1))
    assert today["counts"]["open_in_train"] == 1
    past = readiness_build(series=series, version="7.9", as_of=date(2026, 11, 1))
    assert past["counts"]["open_in_train"] == 1  # it was on 7.9 before the punt moved it
    assert (
        readiness_build(series=series, version="7.10", as_of=date(2026, 11, 1))["counts"][
            "open_in_train"
        ]
        == 0
    )


def test_release_branches_follow_the_configured_patterns(make, series):
    series.release_branch_patterns = ["stable-X.Y"]
    series.save()
    make.pull_request(
        number=1, merged=True, base_ref="stable-7.9", merged_at=datetime(2026, 11, 21, tzinfo=UTC)
    )
    make.pull_request(
        number=2,
        merged=True,
        base_ref="release/rocm-rel-7.9",
        merged_at=datetime(2026, 11, 21, tzinfo=UTC),
    )
    report = readiness_build(series=series, version="7.9", as_of=AS_OF)
    assert [m["pull_request"] for m in report["unlinked_release_merges"]] == ["ROCm/ROCm#1"]


def test_triages_predictions_decide_severity_architectures_and_triage(make, series):
    regression = make.issue(number=1, title="Slower", created_at=CREATED)
    target_set(issue=regression, series=series, version="7.9", flags=["regression"])
    _predict(regression, severity="critical", environment="gfx90a gfx942", kind="bug")
    unsure = make.issue(number=2, title="Odd", labels=["bug"], created_at=CREATED)
    from triage.models import IssuePrediction

    IssuePrediction.objects.create(
        issue=unsure, model_name="kind", label="bug", confidence=0.3, needs_triage=True
    )
    report = readiness_build(series=series, version="7.9", as_of=AS_OF)
    assert report["reasons"] == ["1 open critical regression(s): ROCm/ROCm#1"]
    assert report["open_regressions"][0]["architectures"] == ["gfx90a", "gfx942"]
    assert report["counts"]["untriaged"] == 1
    assert report["counts"]["open_critical_high"] == 1


def test_labels_are_the_fallback_without_predictions(make, series):
    issue = make.issue(
        number=1, labels=["gfx1100", "project: MIOpen", "severity: high"], created_at=CREATED
    )
    target_set(issue=issue, series=series, version="7.9")
    row = readiness_build(series=series, version="7.9", as_of=AS_OF)["open_critical_high"][0]
    assert (row["architectures"], row["component"]) == (["gfx1100"], "MIOpen")


def test_its_notes_tell_backports_awaiting_a_decision_from_approved_ones(make, series, admin_user):
    from releases.services.backports import backport_approve, backport_nominate

    backport_nominate(issue=make.issue(number=1), series=series, version="7.9")
    approved = backport_nominate(issue=make.issue(number=2), series=series, version="7.9")
    backport_approve(backport=approved, user=admin_user)

    report = readiness_build(series=series, version="7.9", as_of=timezone.localdate())

    assert report["counts"]["pending_backports"] == 2
    assert "1 backport(s) awaiting a decision" in report["notes"]
    assert "1 approved backport(s) not merged yet" in report["notes"]
