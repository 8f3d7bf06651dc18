"""What the service knows of a classifier model: its class and its facts (classifiers/registry.py
says what each fact means). Each model module defines its ENTRY with one of these."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelEntry:
    cls: type
    predicts: str = "issue"
    correction: str = ""
    trained_from_database: bool = True
    page: bool = False
    queue_key: str = ""
    triaged: bool = False
    writes_labels: bool = False

    @property
    def name(self) -> str:
        return self.cls.name

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(getattr(self.cls, "labels", ()))

    @property
    def choices(self) -> tuple[str, ...]:
        """What a triager picks from ("" for a free name or a reference)."""
        return self.labels if self.correction == "choice" else ()
