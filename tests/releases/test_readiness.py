import io
import json
from datetime import UTC, date, datetime

import pytest
from django.core.management import CommandError, call_command

from releases.readiness import readiness_build
from releases.report_formats import release_notes_markdown, report_render
from releases.services.fixes import fix_links_sync
from releases.services.targets import target_set

AS_OF = date(2026, 12, 2)


@pytest.fixture
def train_data(make, series):
    gpu_body = "### GPU\n\nAMD Instinct MI300X\n\n### ROCm Component\n\nrocBLAS\n"
    blocker = make.issue(number=1, title="Hang on <MI300X>", labels=["gfx942"])
    target_set(issue=blocker, series=series, version="7.9", flags=["blocker"])
    make.issue(number=2, title="Slower since 7.8", labels=["regression", "priority: critical"])
    make.issue(number=3, title="Docs typo")  # untriaged: no labels
    fixed = make.issue(number=4, title="NaN in gemm", body=gpu_body, state="closed")
    make.issue(number=5, title="Later", labels=["regression"], milestone="7.10")
    make.pull_request(
        number=6,
        body="Fixes #4",
        merged=True,
        base_ref="develop",
        merge_commit_sha="c" * 40,
        merged_at=datetime(2026, 11, 20, tzinfo=UTC),
    )
    make.pull_request(
        number=7,
        title="cherry-pick",
        merged=True,
        base_ref="release/rocm-rel-7.9",
        merged_at=datetime(2026, 11, 21, tzinfo=UTC),
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


def test_the_api_answers_the_same_report(api_client, train_data):
    response = api_client.get("/api/releases/7.9/readiness/?as_of=2026-12-02")
    assert response.status_code == 200
    expected = readiness_build(series=train_data["series"], version="7.9", as_of=AS_OF)
    assert response.json() == json.loads(report_render(expected, "json"))


def test_the_api_answers_404_and_400(api_client, series):
    assert api_client.get("/api/releases/6.0/readiness/").status_code == 404
    assert api_client.get("/api/releases/7.9/readiness/?as_of=soon").status_code == 400


def test_the_api_needs_a_token(client, series):
    assert client.get("/api/releases/").status_code in (401, 403)
