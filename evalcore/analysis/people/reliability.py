"""Agreement among several raters: Krippendorff's alpha, for any number of raters and missing ratings.

From Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": the ratings of each unit (an item,
rated by two or more raters) fill a coincidence matrix ``o[c, k]``, each ordered pair of values from different
raters of a unit counting ``1 / (m_u - 1)`` (``m_u`` the unit's ratings); units rated once are not pairable.
With ``n_c`` the row totals and ``n`` their sum,

    alpha = 1 - (n - 1) · Σ o[c, k] δ²(c, k) / Σ n_c n_k δ²(c, k)

and the distance ``δ²`` says what kind of values they are: ``nominal`` (0 for the same value, else 1),
``ordinal`` (``(Σ_{g=c..k} n_g − (n_c + n_k) / 2)²`` over the values in order) or ``interval`` (``(c − k)²``).
1 is perfect agreement, 0 what chance gives, below 0 systematic disagreement. Pure function.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Literal

import numpy as np

Level = Literal["nominal", "ordinal", "interval"]


def krippendorff_alpha(units: Mapping[Hashable, Sequence[object]], level: Level = "nominal") -> float:
    """Krippendorff's alpha of the values given to each unit (NaN with fewer than two pairable values or
    no variation at all).

    Args:
        units: unit → the values its raters gave (missing ratings simply absent); ordinal and interval
            values must be numbers.
        level: ``nominal``, ``ordinal`` or ``interval``.
    """
    pairable = [list(values) for values in units.values() if len(values) >= 2]
    values = sorted({v for unit in pairable for v in unit}, key=_order)
    if not values:
        return float("nan")
    index = {v: i for i, v in enumerate(values)}
    coincidences = np.zeros((len(values), len(values)))
    for unit in pairable:
        counts = np.bincount([index[v] for v in unit], minlength=len(values)).astype(float)
        coincidences += (np.outer(counts, counts) - np.diag(counts)) / (len(unit) - 1)
    totals = coincidences.sum(axis=1)
    n = totals.sum()
    distance = _distances(values, totals, level)
    expected = float((np.outer(totals, totals) * distance).sum())
    if expected == 0:
        return float("nan")
    return 1.0 - (n - 1) * float((coincidences * distance).sum()) / expected


def _distances(values: list[object], totals: np.ndarray, level: Level) -> np.ndarray:
    k = len(values)
    if level == "nominal":
        return 1.0 - np.eye(k)
    if level == "interval":
        x = np.array(values, dtype=float)
        return (x[:, None] - x[None, :]) ** 2
    cumulative = np.concatenate([[0.0], np.cumsum(totals)])
    distance = np.zeros((k, k))
    for c in range(k):
        for j in range(c, k):
            distance[c, j] = distance[j, c] = (cumulative[j + 1] - cumulative[c] - (totals[c] + totals[j]) / 2) ** 2
    return distance


def _order(value: object) -> tuple[int, float, str]:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return (0, float(value), "")
    return (1, 0.0, str(value))
