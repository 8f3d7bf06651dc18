import csv
import io
import json

import pytest
from django.core.management import CommandError, call_command

from classifiers import artifacts
from tests.classifiers.corpus import kind_rows

# train_classifier enqueues reclassification of the stored issues once a version is activated
pytestmark = pytest.mark.django_db


def write_csv(path, rows, columns=("title", "body", "label", "repo")):
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({"repo": "x/y", **row})
    return path


@pytest.fixture
def kind_csv(tmp_path):
    return write_csv(tmp_path / "kind.csv", kind_rows())


def test_train_then_evaluate_as_json(kind_csv, tmp_path):
    out = io.StringIO()
    call_command("train_classifier", "kind", "--csv", str(kind_csv), stdout=out)
    assert "active" in out.getvalue()
    held_out = kind_rows(per_class=3) + [
        {"title": "Crash in tests", "body": "", "label": "wontfix"}
    ]
    path = write_csv(tmp_path / "held_out.csv", held_out)
    out = io.StringIO()
    call_command("evaluate_classifier", "kind", "--csv", str(path), "--json", stdout=out)
    result = json.loads(out.getvalue())
    assert {"macro_f1", "accuracy", "per_class", "coverage", "precision_at_threshold"} <= set(
        result
    )
    assert set(result["per_class"]["bug"]) == {"precision", "recall", "f1", "support"}
    assert result["n"] == 15
    assert result["unknown_labels"] == {"wontfix": 1}
    assert 0 <= result["coverage"] <= 1


def test_evaluate_prints_a_table(kind_csv):
    call_command("train_classifier", "kind", "--csv", str(kind_csv), stdout=io.StringIO())
    out = io.StringIO()
    call_command("evaluate_classifier", "kind", "--csv", str(kind_csv), stdout=out)
    assert "macro-F1" in out.getvalue() and "coverage" in out.getvalue()


def test_evaluate_without_a_trained_model_says_so(kind_csv):
    with pytest.raises(CommandError, match="no trained model"):
        call_command("evaluate_classifier", "kind", "--csv", str(kind_csv))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"title,label\nCrash,bug\n", "missing column body"),
        ("title,body,label\nCrash \xe9,x,bug\n".encode("latin-1"), "not UTF-8"),
        (
            b"title,body,label\nCrash,x,bug\n,,feature\nAdd,y,\n",
            "2 rows without text or label",
        ),
        (b"title,body,label\n", "no rows"),
    ],
)
def test_a_bad_csv_is_refused_and_nothing_is_saved(tmp_path, settings, content, message):
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    with pytest.raises(CommandError, match=message):
        call_command("train_classifier", "kind", "--csv", str(path))
    assert artifacts.versions("kind") == []


def test_an_unknown_model_is_refused(kind_csv):
    with pytest.raises(CommandError, match="unknown model 'colour'"):
        call_command("train_classifier", "colour", "--csv", str(kind_csv))


def test_sentiment_reads_text_and_label(tmp_path):
    path = tmp_path / "senti.csv"
    path.write_text("id,text,label\nt1,Thanks!,positive\n", encoding="utf-8")
    with pytest.raises(CommandError, match="at least two classes"):
        call_command("train_classifier", "sentiment", "--csv", str(path))


def test_a_nul_byte_or_control_character_is_removed_and_counted_not_refused(tmp_path):
    from classifiers import datasets

    rows = kind_rows()
    rows[6] = dict(rows[6], body=rows[6]["body"] + "\n[  12.5] amdgpu: ring gfx timeout\x00")
    rows[11] = dict(rows[11], title="\x1b[31mERROR\x1b[0m " + rows[11]["title"])
    path = write_csv(tmp_path / "pasted_logs.csv", rows)
    note = "1 NUL byte and 2 control characters removed in rows 7, 12"
    out = io.StringIO()
    call_command("train_classifier", "kind", "--csv", str(path), stdout=out)
    assert note in out.getvalue() and "active" in out.getvalue()
    out = io.StringIO()
    call_command("evaluate_classifier", "kind", "--csv", str(path), "--json", stdout=out)
    assert json.loads(out.getvalue())["csv_cleaned"] == note
    data = datasets.labelled_csv_read(path, name="kind")
    assert len(data) == len(rows)
    assert not any("\x00" in t or "\x1b" in t for t in data.texts)
    assert "ring gfx timeout" in data.texts[6] and "[31mERROR" in data.texts[11]


def write_jsonl(path, rows, field="kind"):
    """Labelled real reports as the benchmark's data holds them (texts written for the tests)."""
    with path.open("w", encoding="utf-8") as handle:
        for number, row in enumerate(rows, start=1):
            item = {
                "url": f"https://github.com/x/y/issues/{number}",
                "repository": "x/y",
                "number": number,
                "title": row["title"],
                "text": row["body"],
                "gold": {field: row["label"], "component": None},
            }
            handle.write(json.dumps(item) + "\n")
    return path


def test_it_trains_from_labelled_real_reports_and_counts_them_as_decisions(tmp_path):
    path = write_jsonl(tmp_path / "labelled.jsonl", kind_rows())
    out = io.StringIO()
    call_command("train_classifier", "kind", "--jsonl", str(path), stdout=out)
    assert "active" in out.getvalue()
    source = artifacts.metadata_read("kind", artifacts.active_version("kind"))["source"]
    assert source.endswith(f"(gold {len(kind_rows())})")
    out = io.StringIO()
    call_command("evaluate_classifier", "kind", "--jsonl", str(path), "--json", stdout=out)
    assert json.loads(out.getvalue())["n"] == len(kind_rows())


def test_a_report_without_the_label_is_skipped_and_a_bad_line_refuses_the_file(tmp_path):
    path = write_jsonl(tmp_path / "labelled.jsonl", kind_rows())
    with pytest.raises(CommandError, match="no report with a gold component"):
        call_command("train_classifier", "component", "--jsonl", str(path))
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"title": "Crash", "text": "x", "gold": {"kind": "bugg"}}\n')
    with pytest.raises(CommandError, match=r"line \d+: kind 'bugg' is not one of bug, docs"):
        call_command("train_classifier", "kind", "--jsonl", str(path))
    (tmp_path / "broken.jsonl").write_text('{"title": "Crash", "gold": {"kind": "bug"}}\n{oops\n')
    with pytest.raises(CommandError, match="line 2: not JSON"):
        call_command("train_classifier", "kind", "--jsonl", str(tmp_path / "broken.jsonl"))
    assert artifacts.active_version("kind") is None
