"""Which shared cases changed outcome between two contenders, regressions first."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

#: A per-case score change smaller than this is float noise, not a flip.
FLIP_TOLERANCE = 1e-9


@dataclass(slots=True)
class Flip:
    """A case whose outcome changed: ``kind`` is ``worse``, ``better``, ``error appeared`` or ``error vanished``."""

    dataset: str
    case: str
    kind: str
    base_score: float
    candidate_score: float


def column(table: Mapping[str, np.ndarray], name: str) -> np.ndarray:
    """A column of ``table``, or NaN for each row when the table lacks it."""
    if name in table:
        return table[name]
    return np.full(len(next(iter(table.values()))), np.nan)


def flips(
    base: Mapping[str, np.ndarray], cand: Mapping[str, np.ndarray], keys: Sequence[tuple[str, str]]
) -> list[Flip]:
    """The shared cases (of ``keys``, one value per case in each column) whose outcome changed, regressions first.

    Order: scores that dropped (largest drop first), errors that appeared, scores that rose (largest rise
    first), errors that vanished; ties by dataset and case id. A case counts only when both contenders
    ran it.
    """
    b_score, c_score = column(base, "score"), column(cand, "score")
    b_err, c_err = column(base, "errors"), column(cand, "errors")
    ran = ~np.isnan(b_err) & ~np.isnan(c_err)
    diff = c_score - b_score
    kinds = {
        "worse": ran & (diff < -FLIP_TOLERANCE),
        "error appeared": ran & (c_err > 0) & (b_err == 0),
        "better": ran & (diff > FLIP_TOLERANCE),
        "error vanished": ran & (b_err > 0) & (c_err == 0),
    }
    parts, kinds_of = [], []
    for kind, mask in kinds.items():
        rows = np.flatnonzero(mask)
        parts.append(rows[np.lexsort((rows, -np.abs(np.nan_to_num(diff[rows]))))])
        kinds_of += [kind] * len(rows)
    rows = np.concatenate(parts)
    scores = zip(b_score[rows].tolist(), c_score[rows].tolist(), strict=True)
    return [Flip(*keys[row], kind, b, s) for row, kind, (b, s) in zip(rows.tolist(), kinds_of, scores, strict=True)]
