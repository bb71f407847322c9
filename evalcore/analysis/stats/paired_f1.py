"""Did macro-F1 change? A candidate's macro-F1 against a base's on their shared cases, with a paired interval
and p-value.

Macro-F1 is computed from a contender's results as a whole (:mod:`evalcore.core.aggregates`), so it has no
per-case value to difference. Each side's labelled results are folded per case into per-label counts (right
answers, expected, predicted), a case's samples averaged so that every case weighs one on both sides (as for
every name a comparison compares; with the same number of samples everywhere, F1 being a ratio of counts,
the value is the leaderboard's), and:

- the **interval** is a paired bootstrap: each resample of the shared cases recomputes both sides' macro-F1
  from the drawn cases' counts, and the hull of the difference's percentile and BCa intervals at
  Hesterberg's expanded level (:func:`evalcore.analysis.stats.intervals.bootstrap_interval`; BCa's acceleration from
  the jackknife, each shared case left out once) bounds it. When every case on which the sides differ goes
  one way, no resample can move the difference past 0 the other way, so the interval would end at 0 (the
  flaw of a conditional interval of paired proportions); the interval is therefore the hull of that one
  and of the same bootstrap with :data:`PSEUDO` of a pseudo-case going each way added to the cases (one the
  candidate gets right and the base wrong, one the reverse, their labels spread as the shared cases'
  expected labels are and a wrong answer spread evenly over the other labels), as Agresti & Min (2005)
  add half a pair to each discordant cell of a paired table. Two sides that answer alike on every case
  (both perfect included) get that interval alone, of non-zero width, and ``note`` says so
  (:data:`AGREE_PSEUDO`);
- the **p-value** is a paired permutation test: each permutation swaps the two sides' answers on a random
  half of the cases (a coin per case) and recomputes the difference; ``p = (1 + #{|T*| ≥ |T|}) / (B + 1)``.

The resamples and coins are drawn as :func:`evalcore.analysis.stats.paired.paired_differences` draws its own from
the same seed (the same cases in each resample, the same coin per case). NumPy only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evalcore.analysis.stats.intervals import bootstrap_interval, expanded_level
from evalcore.analysis.stats.paired import ALPHA, BLOCK
from evalcore.analysis.stats.resampling import count_blocks
from evalcore.storage.frames import ResultColumns

#: How the p-value of an aggregate metric's change is found (a result's ``method``).
CASE_SWAP = "case-swap permutation"
#: The weight of each of the two pseudo-cases added to the second bootstrap: half a case, as Agresti & Min
#: ("Simple improved confidence intervals for comparing matched proportions", Statistics in Medicine 24,
#: 2005) add half a pair to each discordant cell.
PSEUDO = 0.5
#: Why a macro-F1 change whose two sides answer alike on every case has the interval it has (``note``).
AGREE_PSEUDO = (
    "the two sides answer alike on every case: the interval is the bootstrap's with half a pseudo-case going "
    "each way (Agresti-Min), as resampling alone gives a point"
)


@dataclass(frozen=True)
class LabelCounts:
    """One contender's labelled results folded per case: (cases, labels) counts of right answers (``tp``),
    expected (``support``) and predicted (``predicted``) labels, each case's samples averaged (a case's
    support sums to 1)."""

    tp: np.ndarray
    support: np.ndarray
    predicted: np.ndarray

    @property
    def labelled(self) -> np.ndarray:
        """Whether each case has a labelled result."""
        return self.support.sum(axis=1) > 0

    def stacked(self) -> np.ndarray:
        """(cases, 3 x labels): tp, support, predicted side by side."""
        return np.concatenate([self.tp, self.support, self.predicted], axis=1)


def label_counts(
    columns: ResultColumns, metric: str, contender: str, case_row: np.ndarray, n_cases: int, names: Sequence[str]
) -> LabelCounts | None:
    """A contender's labels for ``metric`` folded per compared case; None when its run has no such labels.

    Args:
        columns: the run's results.
        metric: the aggregate metric.
        contender: whose results.
        case_row: for each case of ``columns``, its row among the compared cases (-1: not compared).
        n_cases: how many cases are compared.
        names: the labels of both runs, in order: the counts' columns.
    """
    labels = columns.labels.get(metric)
    if labels is None or contender not in columns.contenders:
        return None
    recode = np.asarray([names.index(n) for n in labels.names] + [-1], dtype=np.int64)
    row = case_row[columns.case] if len(columns) else columns.case
    mine = (columns.contender == columns.contenders.index(contender)) & (row >= 0) & (labels.want >= 0)
    row, want, got = row[mine], recode[labels.want[mine]], recode[labels.got[mine]]
    width, size = len(names), n_cases * len(names)
    # Each case weighs one: its samples' counts are averaged (as every name compared averages them).
    weight = 1.0 / np.bincount(row, minlength=n_cases)[row] if len(row) else np.empty(0)

    def counted(kept: np.ndarray, label: np.ndarray) -> np.ndarray:
        cells = row[kept] * width + label[kept]
        return np.bincount(cells, weights=weight[kept], minlength=size).reshape(n_cases, width)

    every = np.ones(len(row), dtype=bool)
    return LabelCounts(counted(want == got, want), counted(every, want), counted(got >= 0, got))


def macro_f1(totals: np.ndarray, n_labels: int) -> np.ndarray:
    """Macro-F1 along the last axis of (..., 3 x labels) totals (tp, support, predicted): the mean F1 over the
    labels that occur; NaN where none does."""
    tp, support, predicted = (totals[..., i * n_labels : (i + 1) * n_labels] for i in range(3))
    occurs = support + predicted > 0
    f1 = np.divide(2 * tp, support + predicted, out=np.zeros_like(tp), where=occurs)
    n = occurs.sum(axis=-1)
    return np.divide(f1.sum(axis=-1), n, out=np.full(n.shape, np.nan), where=n > 0)


def paired_macro_f1(base: LabelCounts, candidate: LabelCounts, B: int = 1000, seed: int = 0) -> dict:  # noqa: N803
    """The change of macro-F1 from ``base`` to ``candidate`` on the cases both have labels for.

    Returns:
        ``n`` (shared cases), ``base``, ``candidate``, ``mean_diff`` (candidate − base), ``lo``, ``hi``,
        ``p_value``, ``significant``, ``method`` and ``note`` (:data:`AGREE_PSEUDO` when the two sides answer
        alike on every shared case, else empty; see the module docstring); ``lo``/``hi`` are null only with
        no shared case.
    """
    shared = base.labelled & candidate.labelled
    n_labels = base.tp.shape[1]
    # Cases not shared count nothing on either side, but keep their place: the draws are per compared case.
    b = np.where(shared[:, None], base.stacked(), 0.0)
    c = np.where(shared[:, None], candidate.stacked(), 0.0)
    base_value, cand_value = (float(macro_f1(x.sum(axis=0), n_labels)) for x in (b, c))
    row = {"n": int(shared.sum()), "base": base_value, "candidate": cand_value, "mean_diff": cand_value - base_value}
    if not shared.any():
        none = {"lo": np.nan, "hi": np.nan, "p_value": np.nan, "significant": False, "method": CASE_SWAP, "note": ""}
        return {**row, **none}
    rng = np.random.default_rng(seed)
    lo, hi, note = _interval(b, c, shared, row["mean_diff"], rng, B, seed)
    moved, base_total, cand_total = c - b, b.sum(axis=0), c.sum(axis=0)
    swapped = np.empty(B)
    for start in range(0, B, BLOCK):
        kept = rng.integers(0, 2, size=(min(BLOCK, B - start), len(b)), dtype=np.int32).astype(float)
        gained = kept @ moved  # the candidate side keeps its answers where a coin says so, takes the base's elsewhere
        swapped[start : start + len(kept)] = macro_f1(base_total + gained, n_labels) - macro_f1(
            cand_total - gained, n_labels
        )
    extreme = int((np.abs(swapped) >= abs(row["mean_diff"]) - 1e-12).sum())
    p_value = (1 + extreme) / (B + 1)
    return {
        **row,
        "lo": lo,
        "hi": hi,
        "p_value": p_value,
        "significant": p_value < ALPHA,
        "method": CASE_SWAP,
        "note": note,
    }


def _interval(
    b: np.ndarray,
    c: np.ndarray,
    shared: np.ndarray,
    estimate: float,
    rng: np.random.Generator,
    B: int,  # noqa: N803
    seed: int,
) -> tuple[float, float, str]:
    """The interval of the change and its ``note`` (see the module docstring), from the base's and the
    candidate's (cases, 3 x labels) counts, zero where a case is not ``shared``."""
    n_labels, n = b.shape[1] // 3, int(shared.sum())
    side = 3 * n_labels
    both = np.concatenate([b, c], axis=1)
    pseudo = np.concatenate(_pseudo_cases(b[shared], n_labels), axis=1)
    # The pseudo-cases' counts come from a generator of their own, so that the cases' resamples and the
    # permutation's coins stay the draws of :func:`evalcore.analysis.stats.paired.paired_differences`.
    extra = np.random.default_rng([seed, 1]).binomial(n + 2, 1 / (n + 2), size=(B, 2)) @ pseudo
    resampled, widened = np.empty(B), np.empty(B)
    start = 0
    for block in count_blocks(np.zeros(len(b), dtype=np.int64), B, rng, rows=BLOCK):
        totals = block @ both
        resampled[start : start + len(block)] = _difference(totals, n_labels)
        widened[start : start + len(block)] = _difference(totals + extra[start : start + len(block)], n_labels)
        start += len(block)
    level = expanded_level(n)
    base_pseudo, cand_pseudo = np.vstack([b[shared], pseudo[:, :side]]), np.vstack([c[shared], pseudo[:, side:]])
    centre = float(_difference(np.concatenate([base_pseudo, cand_pseudo], axis=1).sum(axis=0), n_labels))
    skew = _jackknife_acceleration(base_pseudo, cand_pseudo, n_labels)
    low, high = bootstrap_interval(widened[:, None], np.array([centre]), np.array([skew]), level)
    lo, hi = min(float(low[0]), estimate), max(float(high[0]), estimate)
    if np.ptp(resampled) <= 1e-12:
        return lo, hi, AGREE_PSEUDO
    skew = _jackknife_acceleration(b[shared], c[shared], n_labels)
    low, high = bootstrap_interval(resampled[:, None], np.array([estimate]), np.array([skew]), level)
    return min(lo, float(low[0])), max(hi, float(high[0])), ""


def _difference(totals: np.ndarray, n_labels: int) -> np.ndarray:
    """The candidate's macro-F1 minus the base's, from (..., 6 x labels) totals: the base's, then the candidate's."""
    side = 3 * n_labels
    return macro_f1(totals[..., side:], n_labels) - macro_f1(totals[..., :side], n_labels)


def _pseudo_cases(base: np.ndarray, n_labels: int) -> tuple[np.ndarray, np.ndarray]:
    """The base's and the candidate's counts (2, 3 x labels) of two pseudo-cases of weight :data:`PSEUDO`: the
    first the candidate gets right and the base wrong, the second the reverse. Their expected labels are
    spread as ``base``'s (shared cases') are, a wrong answer evenly over the other labels."""
    support = base[:, n_labels : 2 * n_labels].sum(axis=0)
    share = support / support.sum()
    wrong = (1 - share) / (n_labels - 1) if n_labels > 1 else np.zeros(n_labels)
    right_row = np.concatenate([share, share, share])
    wrong_row = np.concatenate([np.zeros(n_labels), share, wrong])
    return PSEUDO * np.vstack([wrong_row, right_row]), PSEUDO * np.vstack([right_row, wrong_row])


def _jackknife_acceleration(base: np.ndarray, candidate: np.ndarray, n_labels: int) -> float:
    """BCa's acceleration of the macro-F1 difference from its jackknife (DiCiccio & Efron 1996, eq. 6.7):
    ``Σu³ / (6 (Σu²)^1.5)``, ``u`` the mean of the leave-one-case-out differences minus each."""
    left_out = [macro_f1(x.sum(axis=0) - x, n_labels) for x in (base, candidate)]
    u = np.nan_to_num(left_out[1] - left_out[0])
    u = u.mean() - u
    spread = float((u**2).sum())
    return float((u**3).sum()) / (6 * spread**1.5) if spread > 0 else 0.0
