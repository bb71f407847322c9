"""The run file's cross-field rules: what no single field can say (references, uniqueness, one primary metric,
the weights' names, a score against its primary metric, what pairwise verdicts and ratings name), read from the
parsed tree itself, so they are reported even when some field is invalid. :mod:`evalcore.runfile.models` runs
them after the field checks.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from typing import Any

from evalcore.core import records
from evalcore.core.metric_set import MetricSet
from evalcore.runfile._refs import References
from evalcore.runfile.pairwise import pairwise_problems
from evalcore.runfile.ratings import ratings_problems

Loc = tuple[str | int, ...]


def differs_from_primary(status: Any, score: Any, metrics: dict[str, Any], primary: str | None) -> bool:
    """Whether a scored result's ``score`` differs from its value of the primary metric (when it has one)."""
    return status == "scored" and primary in metrics and metrics[primary] != score


def _entries(data: Any, key: str) -> list[tuple[int, dict[str, Any]]]:
    """The objects in ``data[key]`` with their indexes; anything malformed is left to the fields."""
    items = data.get(key) if isinstance(data, dict) else None
    return [(i, x) for i, x in enumerate(items) if isinstance(x, dict)] if isinstance(items, list) else []


def cross_problems(data: dict[str, Any]) -> Iterator[tuple[Loc, str]]:
    """Every cross-field problem of a parsed run file, as ``(location, message)``."""
    metrics = _entries(data, "metrics")
    yield from _metric_problems(metrics)
    yield from _duplicates("contenders", [(i, (c.get("id"),)) for i, c in _entries(data, "contenders")], "id")
    cases = [(i, (c.get("dataset"), c.get("id"))) for i, c in _entries(data, "cases")]
    yield from _duplicates("cases", cases, "id")
    yield from _weight_problems(data.get("run"), [m for _, m in metrics])
    yield from _result_problems(data)
    yield from pairwise_problems(data)
    yield from ratings_problems(data)


def header_problems(data: dict[str, Any]) -> Iterator[tuple[Loc, str]]:
    """The cross-field problems of the metrics, the contenders and the weights (cases and results aside)."""
    metrics = _entries(data, "metrics")
    yield from _metric_problems(metrics)
    yield from _duplicates("contenders", [(i, (c.get("id"),)) for i, c in _entries(data, "contenders")], "id")
    yield from _weight_problems(data.get("run"), [m for _, m in metrics])


def _metric_problems(metrics: list[tuple[int, dict[str, Any]]]) -> Iterator[tuple[Loc, str]]:
    yield from _duplicates("metrics", [(i, (m.get("name"),)) for i, m in metrics], "name")
    primaries = [(i, m.get("name")) for i, m in metrics if m.get("primary") is True]
    if not primaries:
        yield ("metrics",), 'no metric is primary: mark exactly one with "primary": true'
    for i, _ in primaries[1:]:
        yield ("metrics", i, "primary"), f"exactly one metric may be primary ({primaries[0][1]!r} already is)"


def _duplicates(section: str, keys: list[tuple[int, tuple]], field: str) -> Iterator[tuple[Loc, str]]:
    unique = Unique(section, field)
    for i, key in keys:
        if _hashable(key) and (problem := unique.problem(i, key)) is not None:
            yield problem


class Unique:
    """The rule that a key of a section's entries is unique, told one entry at a time."""

    def __init__(self, section: str, field: str):
        self.section, self.field = section, field
        self.first: dict[tuple, int] = {}

    def problem(self, i: int, key: tuple) -> tuple[Loc, str] | None:
        """The problem of entry ``i`` with ``key`` (a tuple of text and integers), or None when it is the first."""
        first = self.first.setdefault(key, i)
        if first == i:
            return None
        shown = key[0] if len(key) == 1 else key
        return (self.section, i, self.field), f"duplicate {shown!r}: already at {self.section}.{first}"


def _hashable(key: tuple) -> bool:
    return all(isinstance(part, str | int) for part in key)


def _weight_problems(run: Any, metrics: list[dict[str, Any]]) -> Iterator[tuple[Loc, str]]:
    weights = run.get("weights") if isinstance(run, dict) else None
    # A metric of the wrong shape is reported by the field check; it adds no name here.
    declared = [
        records.Metric(name, text if isinstance(text := m.get("description"), str) else "")
        for m in metrics
        if isinstance(name := m.get("name"), str)
    ]
    allowed = MetricSet.of(declared).weightable
    for name in weights if isinstance(weights, dict) else ():
        if name not in allowed:
            yield ("run", "weights", name), f"{name!r} cannot be weighted; allowed: {', '.join(allowed)}"


def _result_problems(data: dict[str, Any]) -> Iterator[tuple[Loc, str]]:
    contenders = {c.get("id") for _, c in _entries(data, "contenders") if isinstance(c.get("id"), str)}
    cases = {k for _, c in _entries(data, "cases") if _hashable(k := (c.get("dataset"), c.get("id")))}
    metrics = [m for _, m in _entries(data, "metrics")]
    declared: set[str] = {n for m in metrics if isinstance(n := m.get("name"), str)}
    # A name of the wrong type (a list, an object) is reported by the field check; it names no metric here.
    primary = next(
        (m.get("name") for m in metrics if m.get("primary") is True and isinstance(m.get("name"), str)), None
    )
    refs = References(
        contenders if isinstance(data.get("contenders"), list) else None,
        cases if isinstance(data.get("cases"), list) else None,
    )
    rules = ResultRules(refs, declared, primary)
    for i, r in _entries(data, "results"):
        key = (r.get("contender"), r.get("dataset"), r.get("case"), r.get("sample"))
        if _hashable(key):
            yield from rules.problems(i, *key, r.get("status"), r.get("score"), r.get("metrics"))


class ResultRules:
    """The cross-field rules of results, told one result at a time: (contender, dataset, case, sample) is unique,
    the contender and the case exist, its metrics are declared, and a scored result's ``score`` is its value of
    the primary metric."""

    def __init__(self, refs: References, declared: Collection[str], primary: str | None):
        """``refs``: the contenders and cases a result may name."""
        self.refs, self.declared, self.primary = refs, declared, primary
        self.seen: dict[tuple, int] = {}

    def problems(
        self, i: int, contender: Any, dataset: Any, case: Any, sample: Any, status: Any, score: Any, metrics: Any
    ) -> Iterator[tuple[Loc, str]]:
        """The problems of ``results[i]``, whose key parts are text and integers."""
        key = (contender, dataset, case, sample)
        first = self.seen.setdefault(key, i)
        if first != i:
            yield ("results", i), f"duplicate result {key!r}: already at results.{first}"
        if (problem := self.refs.contender_problem(("results", i, "contender"), contender)) is not None:
            yield problem
        if (problem := self.refs.case_problem(("results", i, "case"), dataset, case)) is not None:
            yield problem
        if not isinstance(metrics, dict):
            return
        for name in metrics:
            if name not in self.declared:
                yield ("results", i, "metrics", name), f"{name!r} is not a declared metric ({_names(self.declared)})"
        if differs_from_primary(status, score, metrics, self.primary):
            shown = metrics[self.primary]
            yield ("results", i, "score"), f"{score!r} differs from the primary metric {self.primary!r} ({shown!r})"


def _names(names: Iterable[str]) -> str:
    return "declared: " + ", ".join(sorted(names)) if names else "none declared"
