"""Labelled CSV files for training and evaluation, read strictly: a bad file is refused whole.

Issue models read the columns title, body, label; text models read text, label; the duplicates
index reads title, body. Other columns are ignored.
"""

from __future__ import annotations

import codecs
import csv
import io
import sys
from dataclasses import dataclass
from pathlib import Path

from classifiers.registry import model_class

csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
MAX_REPORTED_LINES = 5


class CsvError(ValueError):
    pass


@dataclass
class LabelledTexts:
    texts: list[str]
    labels: list[str]
    path: str

    def __len__(self) -> int:
        return len(self.texts)


def required_columns(name: str) -> list[str]:
    cls = model_class(name)
    columns = ["title", "body"] if cls.input == "issue" else ["text"]
    return columns + (["label"] if getattr(cls, "needs_labels", True) else [])


def labelled_csv_read(path: str | Path, *, name: str) -> LabelledTexts:
    cls = model_class(name)
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CsvError(f"cannot read {path}: {exc.strerror or exc}") from None
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) or b"\x00" in raw:
        kind = "UTF-16 text" if raw[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE) else None
        raise CsvError(
            f"{path} is not UTF-8 text ({kind or 'it holds NUL bytes: UTF-16 or binary'}); "
            "save it as UTF-8 and try again"
        )
    try:
        content = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CsvError(
            f"{path} is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
            "save it as UTF-8 and try again"
        ) from None
    reader = csv.DictReader(io.StringIO(content, newline=""))
    try:
        header = [h.strip().lower() for h in (reader.fieldnames or [])]
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
    texts, labels, empty = [], [], []
    try:
        for row in reader:
            line = reader.line_num
            values = {k: (v or "") for k, v in row.items() if k is not None}
            text = cls.text_of(values)
            label = values.get("label", "").strip() if "label" in needed else str(line)
            has_text = any(values.get(c, "").strip() for c in needed if c != "label")
            if not has_text or not label:
                empty.append(line)
                continue
            texts.append(text)
            labels.append(label)
    except csv.Error as exc:
        raise CsvError(f"{path}, line {reader.line_num}: {exc}") from None
    if empty:
        shown = ", ".join(str(n) for n in empty[:MAX_REPORTED_LINES])
        more = (
            f" and {len(empty) - MAX_REPORTED_LINES} more"
            if len(empty) > MAX_REPORTED_LINES
            else ""
        )
        raise CsvError(f"{path}: {len(empty)} rows without text or label (lines {shown}{more})")
    if not texts:
        raise CsvError(f"{path}: no rows")
    return LabelledTexts(texts=texts, labels=labels, path=str(path))
