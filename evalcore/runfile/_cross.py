"""The run file's cross-field rules: what no single field can say (references, uniqueness, one primary metric,
the weights' names, a score against its primary metric, what pairwise verdicts and ratings name), read from the
parsed tree itself, so they are reported even when some field is invalid. :mod:`evalcore.runfile.models` runs
them after the field checks.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from evalcore.core import aggregates, records
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
    first: dict[tuple, int] = {}
    for i, key in keys:
        if not _hashable(key):
            continue
        if key in first:
            shown = key[0] if len(key) == 1 else key
            yield (section, i, field), f"duplicate {shown!r}: already at {section}.{first[key]}"
        else:
            first[key] = i


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
    allowed = aggregates.weightable_names(declared)
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
    seen: dict[tuple, int] = {}
    for i, r in _entries(data, "results"):
        key = (r.get("contender"), r.get("dataset"), r.get("case"), r.get("sample"))
        if not _hashable(key):
            continue
        if key in seen:
            yield ("results", i), f"duplicate result {key!r}: already at results.{seen[key]}"
        seen.setdefault(key, i)
        if key[0] not in contenders and isinstance(data.get("contenders"), list):
            yield ("results", i, "contender"), f"{key[0]!r} is not a contenders[].id"
        if key[1:3] not in cases and isinstance(data.get("cases"), list):
            yield ("results", i, "case"), f"({key[1]!r}, {key[2]!r}) is not a (dataset, id) in cases[]"
        yield from _result_metric_problems(i, r, declared, primary)


def _result_metric_problems(
    i: int, r: dict[str, Any], declared: set[str], primary: str | None
) -> Iterator[tuple[Loc, str]]:
    values = r.get("metrics")
    if not isinstance(values, dict):
        return
    for name in values:
        if name not in declared:
            yield ("results", i, "metrics", name), f"{name!r} is not a declared metric ({_names(declared)})"
    score = r.get("score")
    if differs_from_primary(r.get("status"), score, values, primary):
        shown = values[primary]
        yield ("results", i, "score"), f"{score!r} differs from the primary metric {primary!r} ({shown!r})"


def _names(names: Iterable[str]) -> str:
    return "declared: " + ", ".join(sorted(names)) if names else "none declared"
