"""The results a leaderboard counts: which ones (:class:`Filters`, :func:`select_results`) and the numbers
each one brings (:func:`result_values`).

The results frame has one row per result, with the columns ``contender, dataset, case, variant, sample,
status, error_kind, score, m_<metric>..., cost_usd, latency_s, input_tokens, output_tokens,
meta_<key>...`` (NaN for null; string columns may be categoricals), as
:func:`evalcore.storage.frames.results_frame` builds it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from evalcore.analysis.scores.weights import finite_number
from evalcore.core.errors import EvalcoreError
from evalcore.core.records import AGGREGATE_ONLY, Metric
from evalcore.core.repeat_metrics import RepeatMetric

#: Table columns of usage, in order, and where each comes from in the results frame.
USAGE_COLUMNS = ("cost", "time", "input_tokens", "output_tokens")
USAGE_SOURCES = {
    "cost": "cost_usd",
    "time": "latency_s",
    "input_tokens": "input_tokens",
    "output_tokens": "output_tokens",
}


@dataclass
class Filters:
    """Which results a leaderboard counts; an empty list keeps everything."""

    datasets: list[str] = field(default_factory=list)
    variants: list[str] = field(default_factory=list)
    contenders: list[str] = field(default_factory=list)
    #: case metadata key → values to keep, e.g. ``{"difficulty": ["hard"]}``.
    metadata: dict[str, list[str]] = field(default_factory=dict)
    #: (dataset, case) pairs left out, e.g. the flaky cases a gate with ``flaky: exclude`` does not judge.
    exclude_cases: frozenset[tuple[str, str]] = frozenset()

    def any(self) -> bool:
        """Whether any filter is set: without one, a leaderboard counts the whole run."""
        return bool(self.datasets or self.variants or self.contenders or self.metadata or self.exclude_cases)


def select_results(df: pd.DataFrame, filters: Filters | None = None) -> pd.DataFrame:
    """Keep the results that pass every filter.

    Metadata values are matched against the ``meta_<key>`` column as numbers when it holds numbers,
    else as strings (filters come from a command line or an address bar as text).

    Returns:
        ``df`` itself when nothing is filtered out, else the rows kept.

    Raises:
        EvalcoreError: a metadata key no case has; the message lists the known keys.
    """
    if filters is None or not filters.any():
        return df
    mask = np.ones(len(df), dtype=bool)
    for column, wanted in (
        ("dataset", filters.datasets),
        ("variant", filters.variants),
        ("contender", filters.contenders),
    ):
        if wanted:
            mask &= df[column].isin(_as_list(wanted)).to_numpy()
    for key, values in filters.metadata.items():
        mask &= _metadata_mask(df, key, _as_list(values))
    if filters.exclude_cases:
        pairs = pd.MultiIndex.from_arrays([df["dataset"].astype(str), df["case"].astype(str)])
        mask &= ~pairs.isin(list(filters.exclude_cases))
    # Without a copy when every row stays: copying a million rows for nothing is not free.
    return df if mask.all() else df[mask]


def aggregate_only_mask(df: pd.DataFrame) -> np.ndarray:
    """Which results stand for a reported aggregate score, not an item (their case's metadata holds
    ``aggregate_only: true``, :data:`~evalcore.core.records.AGGREGATE_ONLY`): no interval or paired statistic
    can be drawn from them."""
    column = f"meta_{AGGREGATE_ONLY}"
    if column not in df.columns:
        return np.zeros(len(df), dtype=bool)
    return np.array([v is True or v == 1 for v in df[column].to_numpy()], dtype=bool)


def _as_list(values: Iterable[str] | str) -> list[str]:
    # A lone string is one value, not its characters.
    return [values] if isinstance(values, str) else list(values)


def _metadata_mask(df: pd.DataFrame, key: str, wanted: list[str]) -> np.ndarray:
    column = f"meta_{key}"
    if column not in df.columns:
        known = sorted(c.removeprefix("meta_") for c in df.columns if c.startswith("meta_"))
        raise EvalcoreError(f"metadata filter {key!r}: no case has this key; known keys: {known}")
    values = df[column]
    # Filters come as strings; metadata from YAML/JSON may be numbers.
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        return values.isin([n for n in map(finite_number, map(str, wanted)) if n is not None]).to_numpy()
    return (values.notna() & values.astype(str).isin({str(v) for v in wanted})).to_numpy()


def metadata_matches(value: Any, wanted: Iterable[str] | str) -> bool:
    """Whether one case's metadata value passes a metadata filter: :func:`select_results`'s rule for one value
    (as a number when it is one, else as a string; a case without the key never passes)."""
    if value is None:
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value in {n for n in map(finite_number, map(str, _as_list(wanted))) if n is not None}
    return str(value) in {str(v) for v in _as_list(wanted)}


def result_values(df: pd.DataFrame, metrics: Sequence[Metric]) -> dict[str, np.ndarray]:
    """The per-result numbers every aggregate is built from, as float arrays (NaN for null).

    Keys: ``scored`` and ``errors`` (1.0 or 0.0), ``score`` and each metric name (NaN unless the
    result is scored, so a stray value on an error never counts), then ``cost, time,
    input_tokens, output_tokens``. A repeat metric (:mod:`evalcore.core.repeat_metrics`) has its case's value on
    the case's first scored result and NaN on the others (:func:`evalcore.analysis.scores.repeats.repeat_values`).
    """
    from evalcore.analysis.scores.repeats import repeat_values

    scored = (df["status"] == "scored").to_numpy(dtype=bool)
    values = {"scored": scored.astype(float), "errors": (df["status"] == "error").to_numpy(float)}
    repeats = [m for m in metrics if isinstance(m, RepeatMetric)]
    sources = {"score": "score", **{m.name: f"m_{m.name}" for m in metrics if not isinstance(m, RepeatMetric)}}
    for name, source in sources.items():
        values[name] = np.where(scored, _floats(df, source), np.nan)
    values.update(repeat_values(df, values, repeats))
    for name, source in USAGE_SOURCES.items():
        values[name] = _floats(df, source)
    return values


def _floats(df: pd.DataFrame, column: str) -> np.ndarray:
    if column not in df.columns:
        return np.full(len(df), np.nan)
    return df[column].to_numpy(dtype=float, na_value=np.nan)
