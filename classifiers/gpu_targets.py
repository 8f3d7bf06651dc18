"""AMD GPU targets and the product names that carry them: classifiers/data/amdgpu_targets.json.

The targets are LLVM's AMDGPU processors (gfx600 ... gfx1250) and its generic processors
(gfx9-generic ... gfx12-generic); a `gfx` token that is none of them is not a target. Each
product (a marketing name, a code name, a CPU whose integrated GPU it names) maps to one target,
found in text with or without "AMD" / "Radeon" / "RX", written together or apart ("7900XTX",
"RX 7900 XTX"). The data file names its sources; this module only reads it.
"""

from __future__ import annotations

import functools
import itertools
import json
from dataclasses import dataclass
from pathlib import Path

from config import linear_re

DATA_FILE = Path(__file__).resolve().parent / "data" / "amdgpu_targets.json"
SEPARATOR = r"[\s_-]*"  # between the tokens of a product's match: "7900XTX", "7900 XTX", "7900-XTX"
MAX_MENTIONS = 200  # product names read per text: enough for any report


@dataclass(frozen=True)
class Target:
    name: str  # gfx1100
    family: str  # GCN GFX11 (RDNA 3)
    kind: str  # dgpu | apu | generic

    @property
    def integrated(self) -> bool:
        return self.kind == "apu"

    @property
    def generic(self) -> bool:
        return self.kind == "generic"


@dataclass(frozen=True)
class Product:
    name: str
    target: str
    match: str
    cpu: bool = False  # the name is a CPU's: its integrated GPU is meant only when alone
    source: str = ""


@dataclass(frozen=True)
class Mention:
    product: Product
    start: int
    end: int


def _tokens(match: str) -> list[str]:
    """A match split into its tokens; a bracketed group is one token, spaces included."""
    tokens, i = [], 0
    while i < len(match):
        if match[i].isspace():
            i += 1
            continue
        close = {"[": "]", "(": ")"}.get(match[i])
        end = match.index(close, i) + 1 if close else _word_end(match, i)
        tokens.append(match[i:end])
        i = end
    return tokens


def _word_end(match: str, start: int) -> int:
    end = start
    while end < len(match) and not match[end].isspace() and match[end] not in "[(":
        end += 1
    return end


def _alternatives(token: str) -> str:
    words = [w.strip() for w in token.strip("[]()").split("|")]
    escaped = [SEPARATOR.join(linear_re.escape(part) for part in w.split()) for w in words]
    return "(?:" + "|".join(escaped) + ")"


def match_pattern(match: str) -> str:
    """The regular expression of a product's match (see the data file's `about`)."""
    parts = []
    for index, token in enumerate(_tokens(match)):
        piece = (SEPARATOR if index else "") + _alternatives(token)  # an absent token: no space
        parts.append(f"(?:{piece})?" if token.startswith("[") else piece)
    return r"\b" + "".join(parts)


class Table:
    def __init__(self, data: dict):
        self.sources = {s["id"]: s for s in data["sources"]}
        self.targets = {
            t["target"]: Target(t["target"], t["family"], t["kind"]) for t in data["targets"]
        }
        self.products = [Product(**p) for p in data["products"]]
        unknown = {p.target for p in self.products} - set(self.targets)
        if unknown:
            raise ValueError(f"{DATA_FILE.name}: products of unknown targets {sorted(unknown)}")
        patterns = [match_pattern(p.match) for p in self.products]
        self._set = linear_re.PatternSet(patterns, linear_re.I)
        self._patterns = [linear_re.compile(p, linear_re.I) for p in patterns]

    def mentions(self, text: str) -> list[Mention]:
        """Every product named in the text, the longest where names overlap, in text order."""
        found = []
        for index in self._set.matching(text):
            matches = itertools.islice(self._patterns[index].finditer(text), MAX_MENTIONS)
            found += [
                Mention(self.products[index], m.start() + _lead(m.group(0)), m.end())
                for m in matches
                if _ends_a_word(text, m.end())
            ]
        found.sort(key=lambda m: (m.start, m.start - m.end))
        kept: list[Mention] = []
        for mention in found:
            if not kept or mention.start >= kept[-1].end:
                kept.append(mention)
            elif mention.end - mention.start > kept[-1].end - kept[-1].start:
                kept[-1] = mention
        return kept[:MAX_MENTIONS]


def _lead(matched: str) -> int:
    """The separators a match starts with when its first tokens are absent ("my 7900XTX")."""
    return len(matched) - len(matched.lstrip(" \t\n_-"))


def _ends_a_word(text: str, end: int) -> bool:
    """A name ends where a word does: "RX 7900 XT" is not read inside "RX 7900 XTX"."""
    return end >= len(text) or not (text[end].isalnum() or text[end] == "_")


@functools.cache
def table() -> Table:
    return Table(json.loads(DATA_FILE.read_text(encoding="utf-8")))


def target(name: str) -> Target | None:
    return table().targets.get((name or "").lower())


def known_targets() -> list[str]:
    return list(table().targets)


def mentions_in(text: str) -> list[Mention]:
    return table().mentions(text or "")
