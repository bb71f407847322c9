"""How good is the judge? Judge verdicts against human labels, and judges against each other.

Two raters (the human and a judge, or two judges) are compared over the rows where both gave a value
(cells as :mod:`~evalcore.analysis.people.labels` reads them). A pair is compared as **numbers** when every value
of both columns is a number, else as **labels** (numbers then read as their shortest text, ``4.0`` as
``4``); ``labels=True`` compares every pair as labels (a 1–5 rating meant as five classes).

- labels: ``accuracy`` (share of rows with the same label) and Cohen's ``kappa``, ``(po − pe) / (1 − pe)``
  with ``po`` the observed agreement and ``pe`` the agreement expected by chance from each rater's label
  shares; undefined (null) when both raters give one and the same label on every row.
- numbers: ``accuracy`` (the same number), Pearson's ``pearson``, Spearman's ``spearman`` (Pearson's r of
  the ranks, tied values sharing their average rank) and the mean absolute error ``mae``. A correlation is
  undefined (null) when a rater gives one value on every row.

Intervals are 95%. ``accuracy`` is a mean of 0/1 values: its interval is a proportion's, which keeps its
coverage at 0% and 100% as the leaderboard's does (:func:`~evalcore.analysis.stats.intervals.proportion_interval`).
Every other statistic has a bootstrap percentile interval over rows, with the conventions of
:mod:`~evalcore.analysis.stats.resampling`: B resamples of the rows with replacement from
``np.random.default_rng(seed)`` (a fresh generator per comparison, so each is reproducible on its own),
the statistic recomputed on each (ranks included), resamples where it is undefined left out.

A resample is a row of multiplicities over the rows, and every statistic is written as sums weighted by
them, so a block of resamples is computed at once and the point estimate is the same code with weight 1.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Literal

import numpy as np
import pandas as pd

from evalcore.analysis.people.labels import HUMAN, Cell, cell_value, label_text
from evalcore.analysis.stats.intervals import LEVEL, percentile_interval, proportion_interval
from evalcore.analysis.stats.resampling import resample_counts

Kind = Literal["labels", "numbers"]
#: A statistic of weighted rows: a (resamples × rows) matrix of multiplicities in, one value per resample out.
Statistic = Callable[[np.ndarray], np.ndarray]
#: The statistics of each kind, in the order they are reported.
STATISTICS: dict[str, tuple[str, ...]] = {
    "labels": ("accuracy", "kappa"),
    "numbers": ("accuracy", "pearson", "spearman", "mae"),
}
#: Resamples computed at once: a block of (resamples × rows) weights and ranks stays small.
BLOCK = 100


@dataclass(frozen=True)
class Estimate:
    """A statistic and its 95% interval; NaN when undefined (no rows, no variance)."""

    value: float
    lo: float
    hi: float


@dataclass
class Agreement:
    """How rater ``b`` agrees with rater ``a`` over the rows where both gave a value.

    Attributes:
        a, b: the two columns; ``a`` is ``human`` when a judge is compared with the human.
        kind: ``labels`` or ``numbers`` (see the module docstring).
        n: rows where both have a value.
        missing: rows where either is missing.
        stats: name → estimate, the names of :data:`STATISTICS` for the kind.
        labels: for labels, every label either rater gave, sorted (numbers first, by value).
        confusion: for labels, counts of (``a``'s label, ``b``'s label), rows and columns in ``labels`` order.
    """

    a: str
    b: str
    kind: Kind
    n: int
    missing: int
    stats: dict[str, Estimate]
    labels: list[str] = field(default_factory=list)
    confusion: list[list[int]] = field(default_factory=list)


@dataclass
class AgreementReport:
    """Every judge against the human, and every two judges against each other.

    Attributes:
        rows: rows in the table.
        judges: one per judge column, ``a`` being ``human``, in the table's order.
        pairs: one per two judge columns, in the table's order.
        resamples, seed: the bootstrap's B and seed.
        level: the intervals' two-sided level.
    """

    rows: int
    judges: list[Agreement]
    pairs: list[Agreement]
    resamples: int
    seed: int
    level: float = LEVEL


def agreement(
    frame: pd.DataFrame,
    judges: Sequence[str],
    *,
    labels: bool = False,
    B: int = 1000,  # noqa: N803
    seed: int = 0,
) -> AgreementReport:
    """Compare each judge column with ``human``, and every two judge columns with each other.

    Args:
        frame: a labels frame (:class:`~evalcore.analysis.people.labels.LabelsTable`'s): ``human`` and the judges.
        judges: the judge columns, in the order to report them.
        labels: compare every pair as labels, even columns of numbers.
        B: bootstrap resamples per statistic.
        seed: seed of ``np.random.default_rng``.
    """
    columns = {name: _cells(frame[name]) for name in [HUMAN, *judges]}
    kinds = {name: column_kind(cells) for name, cells in columns.items()}

    def compare(a: str, b: str) -> Agreement:
        kind: Kind = "labels" if labels or "labels" in (kinds[a], kinds[b]) else "numbers"
        return compare_raters(columns[a], columns[b], a, b, kind, B=B, seed=seed)

    return AgreementReport(
        rows=len(frame),
        judges=[compare(HUMAN, j) for j in judges],
        pairs=[compare(a, b) for a, b in combinations(judges, 2)],
        resamples=B,
        seed=seed,
    )


def _cells(column: pd.Series) -> list[Cell]:
    """A column's cells, with a NaN pandas may have put for None read as missing."""
    return [None if isinstance(v, float) and np.isnan(v) else v for v in column.tolist()]


def column_kind(cells: Sequence[Cell]) -> Kind:
    """``numbers`` when every value that is there is a number (a column of nothing too), else ``labels``."""
    return "numbers" if all(c is None or isinstance(c, float) for c in cells) else "labels"


def compare_raters(
    a: Sequence[Cell],
    b: Sequence[Cell],
    a_name: str = "a",
    b_name: str = "b",
    kind: Kind = "labels",
    *,
    B: int = 1000,  # noqa: N803
    seed: int = 0,
) -> Agreement:
    """The agreement of two raters, over the rows where both gave a value.

    Args:
        a, b: the two raters' cells, row by row (None: missing).
        a_name, b_name: their names, for the report.
        kind: ``labels`` or ``numbers``; numbers need every value of both to be a number.
        B: bootstrap resamples; seed: seed of ``np.random.default_rng``.

    Raises:
        ValueError: ``a`` and ``b`` differ in length, or ``numbers`` for a rater that gave a label.
    """
    if len(a) != len(b):
        raise ValueError(f"{a_name} has {len(a)} rows, {b_name} {len(b)}")
    both = [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
    missing = len(a) - len(both)
    if kind == "numbers":
        if not all(isinstance(v, float) for pair in both for v in pair):
            raise ValueError(f"{a_name} or {b_name} gave a label: compare them as labels")
        x = np.array([p[0] for p in both], dtype=float)
        y = np.array([p[1] for p in both], dtype=float)
        stats = _statistics(len(both), _number_statistics(x, y), x == y, B, seed)
        return Agreement(a_name, b_name, kind, len(both), missing, stats)
    names = sorted({label_text(v) for pair in both for v in pair}, key=_label_order)
    code = {label: i for i, label in enumerate(names)}
    ca = np.array([code[label_text(p[0])] for p in both], dtype=np.int64)
    cb = np.array([code[label_text(p[1])] for p in both], dtype=np.int64)
    stats = _statistics(len(both), {"kappa": lambda w: _kappa(w, ca, cb, len(names))}, ca == cb, B, seed)
    confusion = np.zeros((len(names), len(names)), dtype=np.int64)
    np.add.at(confusion, (ca, cb), 1)
    return Agreement(a_name, b_name, kind, len(both), missing, stats, names, confusion.tolist())


def _label_order(label: str) -> tuple[int, float, str]:
    """Labels that read as numbers first, by value; then text."""
    try:
        return (0, float(label), label)
    except ValueError:
        return (1, 0.0, label)


def _statistics(n: int, computed: dict[str, Statistic], equal: np.ndarray, B: int, seed: int) -> dict[str, Estimate]:  # noqa: N803
    """Accuracy with a proportion's interval, then each of ``computed`` (name → statistic of a (resamples × rows)
    weight matrix) with its bootstrap percentile interval."""
    hits = float(equal.sum())
    low, high = proportion_interval(np.array([hits]), np.array([float(n)]))
    out = {"accuracy": Estimate(hits / n if n else np.nan, float(low[0]), float(high[0]))}
    if not n:
        return out | {name: Estimate(np.nan, np.nan, np.nan) for name in computed}
    point = {name: float(statistic(np.ones((1, n)))[0]) for name, statistic in computed.items()}
    samples: dict[str, list[np.ndarray]] = {name: [] for name in computed}
    for weights in _resamples(n, B, seed):
        for name, statistic in computed.items():
            samples[name].append(statistic(weights))
    for name in computed:
        drawn = np.concatenate(samples[name]) if samples[name] else np.array([np.nan])
        lo, hi = percentile_interval(drawn)
        out[name] = Estimate(point[name], float(lo), float(hi))
    return out


def _resamples(n: int, B: int, seed: int) -> Iterator[np.ndarray]:  # noqa: N803
    """B bootstrap resamples of ``n`` rows as multiplicities, in blocks of :data:`BLOCK`, from one generator."""
    rng = np.random.default_rng(seed)
    strata = np.zeros(n, dtype=np.int64)
    for start in range(0, B, BLOCK):
        yield resample_counts(strata, min(BLOCK, B - start), rng)


# --- statistics of weighted rows: w is (resamples, rows), each row of w a resample's multiplicities ------


def _number_statistics(x: np.ndarray, y: np.ndarray) -> dict[str, Statistic]:
    return {
        "pearson": lambda w: weighted_pearson(w, x, y),
        "spearman": lambda w: weighted_pearson(w, weighted_ranks(w, x), weighted_ranks(w, y)),
        "mae": lambda w: (w @ np.abs(x - y)) / w.sum(axis=1),
    }


def _kappa(w: np.ndarray, a: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    total = w.sum(axis=1)
    observed = (w @ (a == b).astype(float)) / total
    chance = (_label_totals(w, a, k) * _label_totals(w, b, k)).sum(axis=1) / total**2
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = (observed - chance) / (1.0 - chance)
    # pe = 1: both raters gave one and the same label throughout; chance explains everything, kappa says nothing.
    return np.where(np.isclose(chance, 1.0, rtol=0, atol=1e-12), np.nan, kappa)


def _label_totals(w: np.ndarray, codes: np.ndarray, k: int) -> np.ndarray:
    """(resamples, k): the weight of each label code, without a (rows × labels) indicator matrix."""
    order = np.argsort(codes, kind="stable")
    present, starts = np.unique(codes[order], return_index=True)
    out = np.zeros((w.shape[0], k))
    out[:, present] = np.add.reduceat(w[:, order], starts, axis=1)
    return out


def weighted_ranks(w: np.ndarray, values: np.ndarray) -> np.ndarray:
    """(resamples, rows): each row's rank within each resample, a row drawn m times counting m times and
    tied values sharing their average rank (1-based)."""
    distinct, codes = np.unique(values, return_inverse=True)
    totals = _label_totals(w, codes.reshape(-1), len(distinct))
    below = np.cumsum(totals, axis=1) - totals
    return (below + (totals + 1.0) / 2.0)[:, codes.reshape(-1)]


def weighted_pearson(w: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r of each resample (``x``, ``y``: (rows,) or (resamples, rows)); NaN where either is constant."""
    total = w.sum(axis=1, keepdims=True)
    dx = x - (w * x).sum(axis=1, keepdims=True) / total
    dy = y - (w * y).sum(axis=1, keepdims=True) / total
    sxx, syy, sxy = (w * dx * dx).sum(axis=1), (w * dy * dy).sum(axis=1), (w * dx * dy).sum(axis=1)
    # Constant within the drawn rows, tested exactly: a variance of float dust would give a wild r.
    constant = _constant(w, x) | _constant(w, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.clip(sxy / np.sqrt(sxx * syy), -1.0, 1.0)
    return np.where(constant, np.nan, r)


def _constant(w: np.ndarray, values: np.ndarray) -> np.ndarray:
    drawn = w > 0
    v = np.broadcast_to(values, w.shape)
    return np.where(drawn, v, np.inf).min(axis=1) == np.where(drawn, v, -np.inf).max(axis=1)


# --- point estimates, for callers and hand checks ------------------------------------------------------


def cohen_kappa(a: Sequence[object], b: Sequence[object]) -> float:
    """Cohen's kappa of two raters' labels, row by row, rows where either is None left out (NaN when
    undefined: see the module docstring)."""
    cells = [[cell_value(v, f"rater {name}") for v in values] for name, values in (("a", a), ("b", b))]
    return compare_raters(cells[0], cells[1], B=0).stats["kappa"].value


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's correlation of two equally long sequences of numbers (NaN when either is constant)."""
    return float(weighted_pearson(np.ones((1, len(x))), np.asarray(x, float), np.asarray(y, float))[0])


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rank correlation: Pearson's r of the ranks, ties sharing their average rank."""
    w = np.ones((1, len(x)))
    xs, ys = np.asarray(x, float), np.asarray(y, float)
    return float(weighted_pearson(w, weighted_ranks(w, xs), weighted_ranks(w, ys))[0])


def mean_absolute_error(x: Sequence[float], y: Sequence[float]) -> float:
    """The mean of ``|x − y|`` over the rows."""
    return float(np.mean(np.abs(np.asarray(x, float) - np.asarray(y, float))))


def report_data(report: AgreementReport) -> dict[str, object]:
    """The report as plain, JSON-ready data; an undefined value (NaN) is None.

    ``judges``: per judge ``judge, kind, n, missing``, each statistic as ``{value, lo, hi}``, and for labels
    ``labels`` and ``confusion`` (rows: the human's label, columns: the judge's). ``pairs``: the same per two
    judges, named ``a`` and ``b`` (rows: ``a``'s label).
    """

    def one(a: Agreement, names: dict[str, str]) -> dict[str, object]:
        data: dict[str, object] = {**names, "kind": a.kind, "n": a.n, "missing": a.missing}
        data |= {name: {"value": _null(e.value), "lo": _null(e.lo), "hi": _null(e.hi)} for name, e in a.stats.items()}
        if a.kind == "labels":
            data |= {"labels": a.labels, "confusion": a.confusion}
        return data

    return {
        "rows": report.rows,
        "level": report.level,
        "resamples": report.resamples,
        "seed": report.seed,
        "judges": [one(a, {"judge": a.b}) for a in report.judges],
        "pairs": [one(a, {"a": a.a, "b": a.b}) for a in report.pairs],
    }


def _null(value: float) -> float | None:
    return None if np.isnan(value) else float(value)
