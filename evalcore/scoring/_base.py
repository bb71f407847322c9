"""What every scorer shares: the :class:`Scorer` shape, its :class:`Scored` answer, and small text helpers."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Protocol

from evalcore.core.errors import ConfigError, EvalcoreError
from evalcore.core.records import Case, Metric
from evalcore.scoring.adapters import Context, Parsed


@dataclass
class Scored:
    metrics: dict[str, float | None]
    diagnostics: dict[str, Any] = field(default_factory=dict)


class Scorer(Protocol):
    name: str
    metrics: list[Metric]

    def score(self, case: Case, parsed: Parsed, context: Context) -> Scored: ...


def as_text(value: Any) -> str:
    """A string as it is; any other value as canonical JSON (sorted keys), for text comparisons."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def regex_flags(text: str) -> int:
    """The ``re`` flags of a scorer's ``flags`` letters (``i``, ``m``, ``s``); any other letter is a ConfigError."""
    table = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL}
    bad = [c for c in text if c not in table] if isinstance(text, str) else [text]
    if bad:
        raise ConfigError(f"scorer regex: flags {text!r}: use letters from 'ims'")
    value = 0
    for c in text:
        value |= table[c]
    return value


class _ScorerFailures:
    """Turn what a scorer raises into an :class:`EvalcoreError` naming the scorer and the case; an
    :class:`EvalcoreError` (which says so already, or a call that failed) goes through as it is.

    A class rather than a generator: it is entered for every result of a run, and costs a third as much.
    """

    __slots__ = ("name", "case")

    def __init__(self, name: str, case: Case):
        self.name, self.case = name, case

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if isinstance(exc, Exception) and not isinstance(exc, EvalcoreError):
            name, case = self.name, self.case
            raise EvalcoreError(
                f"scorer {name} failed on {case.dataset}/{case.id}: {type(exc).__name__}: {exc}"
            ) from exc


scorer_failures = _ScorerFailures
