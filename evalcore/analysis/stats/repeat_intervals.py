"""Intervals of repeat metrics (pass@k, pass^k of :mod:`evalcore.analysis.scores.repeats`): skewed per-case
values need more than the percentile interval."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from evalcore.analysis.stats.intervals import (
    bootstrap_interval,
    expanded_level,
    mean_acceleration,
    proportion_interval,
    ratio,
)

#: Below this many cases short of 1 (or above 0), a repeat metric's interval also holds the proportion's.
RARE_CASES = 10


def repeat_intervals(
    per_case: Mapping[str, tuple[np.ndarray, np.ndarray]],
    tables: Mapping[str, np.ndarray],
    exact: Mapping[str, np.ndarray],
) -> dict[str, np.ndarray]:
    """Intervals of repeat metrics (``pass@k``, ``pass^k``): the proportion's where a contender's per-case values
    are all 0 or 1 (``exact``), else the hull of the percentile and BCa intervals
    (:func:`~evalcore.analysis.stats.intervals.bootstrap_interval`) at the expanded level.

    A case's pass@k is 1 for most cases of a good contender and far below it for a few: its mean is skewed, and
    the percentile interval alone missed the truth more than 7% of the time on 30 cases in the seeded simulation
    of ``tests/analysis/test_repeats.py``. BCa corrects for the skew; where a handful of cases fall short of 1 the
    resamples cannot show how rare they are, and with fewer than :data:`RARE_CASES` of them the interval also holds
    the proportion interval of the values as fractional hits (wider: a value in [0, 1] varies at most as a 0/1 one
    of the same mean).

    Args:
        per_case: name → the (cases, contenders) sums and counts of its values
            (:class:`~evalcore.analysis.stats.resampling.CaseMatrix`).
        tables: name → (resamples, contenders) resampled values.
        exact: name → (2, contenders) the proportion's interval, NaN where values are not all 0 or 1.
    """
    out = {}
    for name, (sums, counts) in per_case.items():
        known = counts > 0
        given = exact.get(name)
        if not known.any() or (given is not None and not np.isnan(given).any()):
            continue  # no value, or every contender's values 0 or 1: the proportion's interval stands
        values = ratio(sums, counts)
        estimate = ratio(np.where(known, values, 0.0).sum(axis=0), known.sum(axis=0).astype(float))
        level = expanded_level(known.sum(axis=0))
        low, high = bootstrap_interval(tables[name], estimate, mean_acceleration(values, known), level)
        # Values in [0, 1] vary no more than 0/1 ones of the same mean: the proportion's interval of fractional
        # hits bounds what the resamples cannot show when few cases fall short of 1 (or rise above 0).
        hits, n = np.where(known, values, 0.0).sum(axis=0), known.sum(axis=0).astype(float)
        lo_p, hi_p = proportion_interval(hits, n)
        short = np.minimum((known & (values < 1)).sum(axis=0), (known & (values > 0)).sum(axis=0))
        rare = short < RARE_CASES
        bounds = np.stack([np.where(rare, np.fmin(low, lo_p), low), np.where(rare, np.fmax(high, hi_p), high)])
        out[name] = bounds if given is None else np.where(np.isnan(given), bounds, given)
    return out
