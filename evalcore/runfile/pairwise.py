"""The run file's ``pairwise`` key, schema version 2: a run's pairwise verdicts (``docs/run-file.md``).

A run whose suite has a ``pairwise:`` judge holds one entry per comparison after ``refused``; a run without
one has no ``pairwise`` key at all, so its file is what it always was and every reader of version 1 files reads
it. This module owns the entry's model, the rules that cross sections (the contenders and the case it names
exist; one entry per comparison; an outcome exactly when there is no error) and the conversion to
:class:`~evalcore.core.records.PairVerdict` (the writer makes the entry from the model, as for every entry).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from evalcore.core import records
from evalcore.runfile._refs import References

#: The top-level key.
KEY = "pairwise"
Loc = tuple[str | int, ...]


class PairErrorEntry(BaseModel):
    """Why the judge gave no verdict on a comparison."""

    model_config = ConfigDict(extra="forbid", strict=True)

    kind: Literal["judge"]
    """Always ``judge``: a reply that was no verdict, or a judge call that failed after its retries."""
    message: str
    """What went wrong, for a person."""


class PairwiseEntry(BaseModel):
    """Two contenders' answers to one case, judged in both orders."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    dataset: str
    """The case's dataset."""
    case: str
    """The case's id."""
    sample: int = Field(ge=0)
    """Which repetition: ``a``'s and ``b``'s answers of this sample were compared."""
    a: str
    """A ``contenders[].id``: the answer shown first in the first order."""
    b: str
    """Another ``contenders[].id``."""
    outcome: Literal["win", "loss", "tie", "inconsistent"] | None
    """``a``'s outcome: ``win``/``loss``/``tie`` when both orders agree, else ``inconsistent``; null on an error."""
    judge: str
    """The judge model."""
    orders: list[Literal["a", "b", "tie"] | None] = Field(min_length=2, max_length=2)
    """Each order's verdict in contender terms: ``a`` shown first, then ``b`` shown first (null: no verdict)."""
    calls: list[dict[str, Any]]
    """Every judge call: ``order``, ``messages``, ``key``, ``raw``, ``choice``, ``reasoning``, tokens, cost, time."""
    error: PairErrorEntry | None
    """Why there is no outcome, or null."""
    cost_usd: float | None = Field(ge=0)
    """The judge calls' total cost in US dollars; null when any is unknown."""
    latency_s: float = Field(ge=0)
    """The judge calls' total time in seconds."""


def pairwise_problems(data: dict[str, Any]) -> Iterator[tuple[Loc, str]]:
    """The rules of ``pairwise`` entries that cross sections, as ``(location, message)``."""
    items = data.get(KEY)
    if not isinstance(items, list):
        return
    refs = References.of(data)
    seen: dict[tuple, int] = {}
    for i, p in enumerate(items):
        if not isinstance(p, dict):
            continue
        yield from refs.sides_problems(KEY, i, p, ("a", "b"))
        if p.get("a") == p.get("b"):
            yield (KEY, i, "b"), "a contender is not compared with itself"
        yield from refs.case_problems(KEY, i, p)
        if (p.get("outcome") is None) == (p.get("error") is None):
            yield (KEY, i, "outcome"), "give an outcome, or null with an error, not both or neither"
        key = tuple(p.get(k) for k in ("dataset", "case", "sample", "a", "b"))
        if all(isinstance(x, str | int) for x in key):
            if key in seen:
                yield (KEY, i), f"duplicate comparison: already at {KEY}.{seen[key]}"
            seen.setdefault(key, i)


def verdict_of(x: PairwiseEntry) -> records.PairVerdict:
    """The record an entry holds."""
    error = records.ErrorInfo(x.error.kind, x.error.message) if x.error else None
    return records.PairVerdict(
        x.dataset,
        x.case,
        x.sample,
        x.a,
        x.b,
        x.outcome,
        x.judge,
        list(x.orders),
        x.calls,
        error,
        x.cost_usd,
        x.latency_s,
    )


def verdicts_of(items: Any) -> list[records.PairVerdict]:
    """The records of a tree's ``pairwise`` list (validated here).

    Raises:
        pydantic.ValidationError: an entry breaks its model.
    """
    return [verdict_of(PairwiseEntry.model_validate(x)) for x in items]
