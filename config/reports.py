"""What a task or a command did, by outcome, and the one line it logs or prints.

A report whose line is only counts subclasses `Tally` as a dataclass: each field is a list (the
references of what had that outcome, counted by length) or a number, and `summary()` reads
"TITLE: 2 done, 0 refused" in the fields' order.
"""

from __future__ import annotations

from dataclasses import fields
from typing import ClassVar


class Tally:
    TITLE: ClassVar[str] = ""

    def summary(self) -> str:
        counts = []
        for found in fields(self):
            value = getattr(self, found.name)
            counts.append(f"{len(value) if isinstance(value, list) else value} {found.name}")
        return f"{self.TITLE}: {', '.join(counts)}"
