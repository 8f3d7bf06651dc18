"""Hostile CSV files for `train_classifier MODEL --csv` and `evaluate_classifier MODEL --csv`.

With a trained, active model in place, every bad file (missing columns, latin-1, UTF-16, binary,
empty rows, an empty file, a header only, ...) is refused with a CommandError that says what is
wrong, and nothing is saved: the artifact folder holds the same files, the same versions, and the
same active version as before. A NUL byte or a stray control character inside an otherwise UTF-8
file is not a bad file: it is removed and counted (tests/classifiers/test_commands.py).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from classifiers import artifacts
from tests.classifiers.corpus import kind_rows

pytestmark = pytest.mark.django_db

GOOD_HEADER = "title,body,label\n"
BAD_FILES = {  # name: (bytes, what the message must say)
    "missing label column": (b"title,body\nCrash,on gfx942\n", "missing column label"),
    "missing every column": (b"summary,kind\nCrash,bug\n", "missing columns title, body, label"),
    "latin-1": (
        (GOOD_HEADER + "Crash \xe9 on MI300X,hangs,bug\n").encode("latin-1"),
        "not UTF-8",
    ),
    "UTF-16 with its BOM": (
        (GOOD_HEADER + "Crash,hangs,bug\n").encode("utf-16"),
        "is not UTF-8 text (UTF-16 text)",
    ),
    "UTF-16 without a BOM": (
        (GOOD_HEADER + "Crash,hangs,bug\n").encode("utf-16-le"),
        "holds NUL bytes",
    ),
    "binary (PNG)": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00", "not UTF-8"),
    "binary (random bytes)": (bytes(range(256)) * 4, "not UTF-8"),
    "binary (high bytes)": (bytes(range(128, 256)) * 4, "byte 0x80 at offset 0"),
    "empty rows": (
        (GOOD_HEADER + "Crash,hangs,bug\n,,\n,,feature\nAdd a flag,,\n").encode(),
        "3 rows without text or label",
    ),
    "only empty rows": ((GOOD_HEADER + ",,\n,,\n").encode(), "2 rows without text or label"),
    "an empty file": (b"", "found no header"),
    "a header only": (GOOD_HEADER.encode(), "no rows"),
    "a UTF-8 BOM and a header only": (b"\xef\xbb\xbf" + GOOD_HEADER.encode(), "no rows"),
    "an unclosed quote": (
        (GOOD_HEADER + 'Crash,"hangs\n').encode(),
        "rows without text or label",
    ),
}


def write_good_csv(path: Path, rows: list[dict] | None = None) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=["title", "body", "label"])
        writer.writeheader()
        writer.writerows(kind_rows() if rows is None else rows)
    return path


def artifact_state(name: str) -> tuple:
    root = artifacts.artifact_root()
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*")) if root.exists() else []
    return artifacts.versions(name), artifacts.active_version(name), files


@pytest.fixture
def trained_kind(tmp_path):
    call_command("train_classifier", "kind", "--csv", str(write_good_csv(tmp_path / "good.csv")))
    state = artifact_state("kind")
    assert state[1] is not None  # a version is active
    return state


@pytest.mark.parametrize("bad", list(BAD_FILES))
def test_a_bad_csv_is_refused_by_training_and_evaluation_and_nothing_is_saved(
    tmp_path, trained_kind, bad
):
    content, message = BAD_FILES[bad]
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    for command in ("train_classifier", "evaluate_classifier"):
        with pytest.raises(CommandError) as refused:
            call_command(command, "kind", "--csv", str(path), stdout=io.StringIO())
        assert message in str(refused.value), (command, str(refused.value))
        assert str(path) in str(refused.value)  # says which file
        assert artifact_state("kind") == trained_kind, command


def test_a_nul_byte_in_utf8_text_is_removed_and_utf16_still_refused(tmp_path, trained_kind):
    rows = [dict(r, body=r["body"] + "\x00") if n == 3 else r for n, r in enumerate(kind_rows())]
    path = write_good_csv(tmp_path / "log.csv", rows)
    out = io.StringIO()
    call_command("evaluate_classifier", "kind", "--csv", str(path), stdout=out)
    assert "1 NUL byte removed in row 4" in out.getvalue()
    path.write_bytes(path.read_text(encoding="utf-8").encode("utf-16-le"))
    with pytest.raises(CommandError, match="holds NUL bytes: UTF-16 or binary"):
        call_command("evaluate_classifier", "kind", "--csv", str(path), stdout=io.StringIO())
    assert artifact_state("kind") == trained_kind


@pytest.mark.parametrize(
    ("target", "message"),
    [("missing.csv", "cannot read"), (".", "cannot read")],
)
def test_a_path_that_is_not_a_readable_file_is_refused(tmp_path, trained_kind, target, message):
    path = tmp_path / target
    for command in ("train_classifier", "evaluate_classifier"):
        with pytest.raises(CommandError, match=message):
            call_command(command, "kind", "--csv", str(path), stdout=io.StringIO())
        assert artifact_state("kind") == trained_kind


def test_a_text_model_needs_its_text_column(tmp_path, settings):
    path = tmp_path / "senti.csv"
    path.write_bytes(b"title,body,label\nThanks,great,positive\nUgh,broken,negative\n")
    with pytest.raises(CommandError, match="missing column text"):
        call_command("train_classifier", "sentiment", "--csv", str(path))
    assert artifact_state("sentiment")[:2] == ([], None)


def test_a_single_class_trains_nothing(tmp_path, trained_kind):
    path = tmp_path / "one.csv"
    path.write_bytes((GOOD_HEADER + "Crash,hangs,bug\nHang,on gfx942,bug\n").encode())
    with pytest.raises(CommandError, match="at least two classes"):
        call_command("train_classifier", "kind", "--csv", str(path))
    assert artifact_state("kind") == trained_kind
