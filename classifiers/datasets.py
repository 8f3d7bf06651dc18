"""Labelled CSV files (and JSON lines of labelled real reports) for training and evaluation, read
strictly: a bad file is refused whole.

Issue models read the columns title, body, label; text models read text, label; the duplicates
index reads title, body. An optional repository column ("repository" or "repo", OWNER/NAME) tells
a model trained per repository which repository each row is from. Other columns are ignored.

Text is UTF-8. A NUL byte or another stray control character inside an otherwise UTF-8 file (a
build log pasted into an issue carries them) is removed and counted: "1 NUL byte removed in row
812" (rows are data rows, the header not counted), not a reason to refuse 1,500 rows. UTF-16
(with its BOM, or without one: NUL in every other byte) and binary files are still refused.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from classifiers.registry import model_class

csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
MAX_REPORTED_LINES = 5
GROUP_COLUMNS = ("repository", "repo")
# C0 controls but tab, newline and carriage return; DEL; the C1 controls
STRAY_CONTROLS = [c for c in range(0x20) if chr(c) not in "\t\n\r"] + list(range(0x7F, 0xA0))
_REMOVE_CONTROLS = dict.fromkeys(STRAY_CONTROLS)
# UTF-16 text holds a NUL in every other byte (ASCII characters); UTF-8 text with a stray NUL
# holds a few. Past this share of the even or the odd bytes, the file is not UTF-8.
UTF16_NUL_SHARE = 0.25


class CsvError(ValueError):
    pass


@dataclass
class Cleaned:
    """What was removed from one row: its data-row number, NUL bytes, other control characters."""

    row: int
    nul: int
    other: int


@dataclass
class LabelledTexts:
    texts: list[str]
    labels: list[str]
    path: str
    groups: list[str] | None = None  # the repository column, where the file has one
    cleaned: list[Cleaned] = field(default_factory=list)
    skipped: int = 0  # JSON lines whose gold leaves this label out

    def __len__(self) -> int:
        return len(self.texts)

    def cleaning_note(self) -> str:
        """ "1 NUL byte removed in row 812" ("" when nothing was removed)."""
        if not self.cleaned:
            return ""
        nul = sum(c.nul for c in self.cleaned)
        other = sum(c.other for c in self.cleaned)
        what = [
            _count(nul, "NUL byte") if nul else "",
            _count(other, "control character") if other else "",
        ]
        rows = [c.row for c in self.cleaned]
        where = "row" if len(rows) == 1 else "rows"
        return f"{' and '.join(w for w in what if w)} removed in {where} {_numbers(rows)}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _numbers(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:MAX_REPORTED_LINES])
    more = len(numbers) - MAX_REPORTED_LINES
    return shown + (f" and {more} more" if more > 0 else "")


def required_columns(name: str) -> list[str]:
    cls = model_class(name)
    columns = ["title", "body"] if cls.input == "issue" else ["text"]
    return columns + (["label"] if getattr(cls, "needs_labels", True) else [])


def _utf8_text(raw: bytes, path: Path) -> str:
    """The file as text, or CsvError: UTF-16, binary and other encodings are refused."""
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise CsvError(f"{path} is not UTF-8 text (UTF-16 text); save it as UTF-8 and try again")
    if b"\x00" in raw and _looks_utf16(raw):
        raise CsvError(
            f"{path} is not UTF-8 text (it holds NUL bytes: UTF-16 or binary); "
            "save it as UTF-8 and try again"
        )
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CsvError(
            f"{path} is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
            "save it as UTF-8 and try again"
        ) from None


def _looks_utf16(raw: bytes) -> bool:
    halves = [half for half in (raw[0::2], raw[1::2]) if half]
    return any(half.count(0) / len(half) >= UTF16_NUL_SHARE for half in halves)


def _clean(values: dict[str, str], row: int) -> tuple[dict[str, str], Cleaned | None]:
    """The row's values without stray control characters, and what was removed (or None)."""
    nul = other = 0
    cleaned = {}
    for key, value in values.items():
        kept = value.translate(_REMOVE_CONTROLS)
        if len(kept) != len(value):
            found = value.count("\x00")
            nul += found
            other += len(value) - len(kept) - found
        cleaned[key] = kept
    return cleaned, (Cleaned(row=row, nul=nul, other=other) if nul or other else None)


def labelled_csv_read(path: str | Path, *, name: str) -> LabelledTexts:
    cls = model_class(name)
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CsvError(f"cannot read {path}: {exc.strerror or exc}") from None
    reader = csv.DictReader(io.StringIO(_utf8_text(raw, path), newline=""))
    try:
        header = [h.translate(_REMOVE_CONTROLS).strip().lower() for h in (reader.fieldnames or [])]
    except csv.Error as exc:
        raise CsvError(f"{path}: not a CSV file ({exc})") from None
    needed = required_columns(name)
    missing = [c for c in needed if c not in header]
    if missing:
        raise CsvError(
            f"{path}: missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
            f"(model {name} needs {', '.join(needed)}; found {', '.join(header) or 'no header'})"
        )
    reader.fieldnames = header
    group_column = next((c for c in GROUP_COLUMNS if c in header), None)
    result = LabelledTexts(texts=[], labels=[], path=str(path), groups=[] if group_column else None)
    empty = []
    try:
        for row_number, row in enumerate(reader, start=1):
            line = reader.line_num
            values, cleaned = _clean(
                {k: (v or "") for k, v in row.items() if k is not None}, row_number
            )
            if cleaned:
                result.cleaned.append(cleaned)
            label = values.get("label", "").strip() if "label" in needed else str(line)
            has_text = any(values.get(c, "").strip() for c in needed if c != "label")
            if not has_text or not label:
                empty.append(line)
                continue
            result.texts.append(cls.text_of(values))
            result.labels.append(label)
            if group_column:
                result.groups.append(values.get(group_column, "").strip())
    except csv.Error as exc:
        raise CsvError(f"{path}, line {reader.line_num}: {exc}") from None
    if empty:
        raise CsvError(f"{path}: {len(empty)} rows without text or label (lines {_numbers(empty)})")
    if not result.texts:
        raise CsvError(f"{path}: no rows")
    return result


JSONL_TEXT_KEYS = ("text", "body")  # the issue's text: the labelled sets' "text", or "body"


def labelled_jsonl_read(path: str | Path, *, name: str) -> LabelledTexts:
    """Labelled real reports in JSON lines (the format of ../shared/data/rocm_issues/dev.jsonl):
    `title`, `text` (or `body`), `repository`, and `gold` holding this model's label under its
    name (`gold.kind`, `gold.symptom`, `gold.severity`, `gold.component`). A report whose gold
    leaves the label out (null: the text does not say) is skipped and counted; a line that is
    not a JSON object, lacks a title or a gold, or names a class the model does not take, is
    refused with its line number and nothing is read."""
    cls = model_class(name)
    if cls.input != "issue" or not getattr(cls, "needs_labels", True):
        raise CsvError(f"--jsonl holds labelled issues: {name} does not train on them")
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CsvError(f"cannot read {path}: {exc.strerror or exc}") from None
    result = LabelledTexts(texts=[], labels=[], path=str(path), groups=[])
    labels = set(getattr(cls, "labels", ()) or ())
    skipped = 0
    for line_number, line in enumerate(_utf8_text(raw, path).splitlines(), start=1):
        if not line.strip():
            continue
        item = _jsonl_item(line, path, line_number)
        label = item["gold"].get(name)
        if label is None or not str(label).strip():
            skipped += 1
            continue
        label = str(label).strip() if labels else str(label).strip().lower()
        if labels and label not in labels:
            takes = ", ".join(sorted(labels))
            raise CsvError(f"{path}, line {line_number}: {name} {label!r} is not one of {takes}")
        values, cleaned = _clean(
            {
                "title": str(item.get("title") or ""),
                "body": str(next((item[k] for k in JSONL_TEXT_KEYS if item.get(k)), "")),
            },
            line_number,
        )
        if cleaned:
            result.cleaned.append(cleaned)
        result.texts.append(cls.text_of(values))
        result.labels.append(label)
        result.groups.append(str(item.get("repository") or "").strip())
    if not result.texts:
        raise CsvError(f"{path}: no report with a gold {name}")
    result.skipped = skipped
    return result


def _jsonl_item(line: str, path: Path, line_number: int) -> dict:
    try:
        item = json.loads(line)
    except ValueError as exc:
        raise CsvError(f"{path}, line {line_number}: not JSON ({exc})") from None
    if not isinstance(item, dict) or not isinstance(item.get("gold"), dict):
        raise CsvError(f"{path}, line {line_number}: not a labelled report (no gold object)")
    if not str(item.get("title") or "").strip():
        raise CsvError(f"{path}, line {line_number}: no title")
    return item
