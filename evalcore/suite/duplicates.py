"""When two cases ask the same thing: the near-duplicate rule ``evalcore generate`` drops proposals by.

The rule: a case's input (its text, or an object's canonical JSON) is normalized (lower case, every run of
characters that are not letters or digits one space), cut into overlapping word shingles of
:data:`SHINGLE` words (an input shorter than that is one shingle of all its words), and two inputs are
near-duplicates when the Jaccard similarity of their shingle sets (shared / all) is at least
:data:`THRESHOLD`. Equal normalized texts are always near-duplicates. Standard library only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

#: Words per shingle.
SHINGLE = 3
#: The Jaccard similarity of two inputs' shingle sets from which they are near-duplicates.
THRESHOLD = 0.8
_NOT_WORD = re.compile(r"[\W_]+")


def normalized(value: Any) -> str:
    """A case input's text as the rule compares it: lower case, words separated by one space."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)
    return _NOT_WORD.sub(" ", text.lower()).strip()


def shingles(value: Any) -> frozenset[tuple[str, ...]]:
    """The word shingles of a case input (:data:`SHINGLE` words each)."""
    words = normalized(value).split()
    if len(words) <= SHINGLE:
        return frozenset([tuple(words)])
    return frozenset(tuple(words[i : i + SHINGLE]) for i in range(len(words) - SHINGLE + 1))


def similarity(a: frozenset[tuple[str, ...]], b: frozenset[tuple[str, ...]]) -> float:
    """The Jaccard similarity of two shingle sets (1.0 for two empty ones)."""
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


@dataclass(frozen=True)
class Match:
    """The case a new input is a near-duplicate of, and how similar they are."""

    name: str
    similarity: float


class Seen:
    """Inputs seen so far (a dataset's cases, stored proposals, a batch's earlier proposals), by name."""

    def __init__(self, named: Iterable[tuple[str, Any]] = (), threshold: float = THRESHOLD):
        self.threshold = threshold
        self._sets: list[tuple[str, str, frozenset[tuple[str, ...]]]] = []
        for name, value in named:
            self.add(name, value)

    def add(self, name: str, value: Any) -> None:
        """Remember an input under ``name``."""
        self._sets.append((name, normalized(value), shingles(value)))

    def match(self, value: Any) -> Match | None:
        """The most similar input seen that ``value`` is a near-duplicate of, or None."""
        text, own = normalized(value), shingles(value)
        best: Match | None = None
        for name, seen_text, seen in self._sets:
            score = 1.0 if text == seen_text else similarity(own, seen)
            if score >= self.threshold and (best is None or score > best.similarity):
                best = Match(name, score)
        return best
