"""How sure are we? Bootstrap intervals, P(best), pairwise significance, weight stability, Pareto fronts.

Resampling is over cases, a case being a ``(dataset, case)`` pair, and it is paired: one draw of
cases serves every contender, so the difference between two contenders is not drowned by how hard
the drawn cases happen to be. Samples of a case travel with it (a cluster bootstrap). A micro
average draws from all cases; a macro average draws within each dataset (stratified), so every
resample has every dataset to average over. Every draw comes from ``np.random.default_rng(seed)``.

The work is a few matrix products: results are folded once into per-case sums and counts
(cases × quantities × contenders); a resample is a row of case multiplicities, so all B resampled
tables come from one product of the (B × cases) multiplicity matrix with that array.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from evalcore.analysis.leaderboard import (
    errors_penalty,
    goodness_matrix,
    rank_order,
    result_values,
    validate_weights,
    wscores,
)
from evalcore.core.errors import EvalcoreError
from evalcore.core.records import Metric

#: Two-sided level of every interval here.
LEVEL = 0.95
#: Significance threshold of :func:`pairwise`.
ALPHA = 0.05


@dataclass
class CaseMatrix:
    """Results folded per case: what a resample multiplies.

    Attributes:
        contenders: contender ids, sorted; the last axis of the arrays.
        case_dataset: for each case, the index of its dataset.
        names: the averaged quantities: ``score``, each metric, ``cost``, ``time``.
        product: the distinct (cases, contenders) blocks of :attr:`stacked` as a resample multiplies
            them (equal blocks once: a run's score is its primary metric; most names are known together).
    """

    contenders: np.ndarray
    case_dataset: np.ndarray
    names: list[str]
    product: _Product

    @cached_property
    def blocks(self) -> list[np.ndarray]:
        """(cases, contenders) float64 arrays in :attr:`stacked` order: the sums of each name's non-null
        values, the numbers of its non-null values, then the numbers of error results."""
        p, c = self.product, len(self.contenders)
        if not c:
            return [np.zeros((len(self.case_dataset), 0)) for _ in range(2 * len(self.names) + 1)]
        k, out = p.wide.shape[1], []
        for first in p.source[::c]:
            out.append(p.wide[:, first : first + c] if first < k else
                       p.narrow[:, first - k : first - k + c].astype(np.float64) * p.unscale[first - k : first - k + c])
        return out

    @property
    def sums(self) -> np.ndarray:
        """(cases, names, contenders) sums of the non-null values."""
        return np.stack(self.blocks[: len(self.names)], axis=1).astype(np.float64, copy=False)

    @property
    def counts(self) -> np.ndarray:
        """(cases, names, contenders) numbers of non-null values."""
        return np.stack(self.blocks[len(self.names) : 2 * len(self.names)], axis=1).astype(np.float64, copy=False)

    @property
    def errors(self) -> np.ndarray:
        """(cases, contenders) numbers of error results."""
        return self.blocks[-1].astype(np.float64)

    @cached_property
    def stacked(self) -> np.ndarray:
        """Sums, counts and errors side by side, (cases, 2 x names x contenders + contenders)."""
        return np.concatenate(self.blocks, axis=1).astype(np.float64, copy=False)


#: Integers below this add up exactly in float32 (its 24-bit significand).
_FLOAT32_EXACT = float(2**24)
#: Products with fewer multiply-adds than this are done in one piece (see :meth:`_Product.times`): ten
#: times the smallest split product seen to match the whole one bit for bit here (1.6 * 10**6), far below
#: a big run's (10**9 at 25,000 cases and 40 contenders).
_SPLIT_PRODUCT = 10**7


@dataclass
class _Product:
    """The distinct blocks of :attr:`CaseMatrix.stacked`, ready for ``counts @ stacked``.

    Equal blocks are multiplied once. Blocks of whole numbers (counts, errors, sums of 0/1 scores),
    or of numbers that a power of two makes whole (scores in halves, quarters, eighths), are
    multiplied in float32, scaled, when every partial sum stays a whole number below 2**24: neither
    float32 nor float64 then rounds at all, so the product is the float64 one, bit for bit, at a
    fraction of the cost. The rest is float64, as before.

    Attributes:
        wide: (cases, k) float64 blocks.
        narrow: (cases, k') float32 blocks of whole numbers (values times ``1 / unscale``).
        narrow_max: at least the largest magnitude in ``narrow``.
        unscale: (k',) the power of two that takes each column of ``narrow`` back to its values.
        source: for each column of ``stacked``, its column in ``[wide | narrow]``.
    """

    wide: np.ndarray
    narrow: np.ndarray
    narrow_max: float
    unscale: np.ndarray
    source: np.ndarray

    def times(self, counts: np.ndarray, cases: slice | np.ndarray) -> np.ndarray | None:
        """``counts @ stacked[cases]``, (resamples, columns of stacked); None for a product too small to split.

        BLAS multiplies small matrices with other kernels, whose rounding can depend on the shape: a
        narrower product there could move a sum by its last bit. A big product runs the blocked
        kernels, where each column's sums come out the same whatever its neighbours (a test checks).
        """
        if 0 < counts.shape[0] * counts.shape[1] * self.wide.shape[1] < _SPLIT_PRODUCT:
            return None
        wide, narrow = self.wide[cases], self.narrow[cases]
        parts = [counts @ wide]
        if narrow.shape[1]:
            exact = counts.sum(axis=1).max(initial=0.0) * self.narrow_max < _FLOAT32_EXACT
            whole = ((counts.astype(np.float32) @ narrow).astype(np.float64) if exact
                     else counts @ narrow.astype(np.float64))
            parts.append(whole * self.unscale)  # a power of two: exact
        return np.concatenate(parts, axis=1)[:, self.source]


def case_matrix(df: pd.DataFrame, metrics: Sequence[Metric],
                values: Mapping[str, np.ndarray] | None = None) -> CaseMatrix:
    """Fold a results frame into per-case sums and counts (see :class:`CaseMatrix`).

    Args:
        df: the results.
        metrics: the declared metrics.
        values: :func:`evalcore.analysis.leaderboard.result_values` of ``df``, when already computed.
    """
    contender_codes, contenders = _sorted_codes(df["contender"])
    case_codes = _case_codes(df)
    dataset_codes = _sorted_codes(df["dataset"])[0]
    n_cases, n_contenders = int(case_codes.max(initial=-1)) + 1, len(contenders)
    case_dataset = np.zeros(n_cases, dtype=np.int64)
    case_dataset[case_codes] = dataset_codes
    flat = case_codes * n_contenders + contender_codes
    values = result_values(df, metrics) if values is None else values
    names = ["score", *(m.name for m in metrics), "cost", "time"]
    known = {name: ~np.isnan(values[name]) for name in names}
    product = _product_of(flat, (n_cases, n_contenders), names, values, known)
    return CaseMatrix(np.asarray(contenders, dtype=object), case_dataset, names, product)


def _product_of(flat: np.ndarray, shape: tuple[int, int], names: list[str], values: Mapping[str, np.ndarray],
                known: Mapping[str, np.ndarray]) -> _Product:
    """Fold each distinct block once, straight into the float64 or float32 matrix it belongs to.

    Args:
        flat: each result's cell, ``case * contenders + contender``.
        shape: (cases, contenders).
        names, values, known: the averaged names, each result's values and whether each is known.
    """
    (n_cases, n_contenders), size = shape, shape[0] * shape[1]
    most = int(np.bincount(flat, minlength=size).max(initial=0))  # results in the fullest cell
    # Names with equal values have equal sums; names known together have equal counts.
    entries = ([("sum", i) for i in _first_equal([values[n] for n in names])]
               + [("count", i) for i in _first_equal([known[n] for n in names])] + [("errors", 0)])
    distinct = list(dict.fromkeys(entries))
    scales = {e: _block_scale(e, names, values, known, most) for e in distinct}
    narrow_entries = [e for e in distinct if scales[e] is not None]
    wide_entries = [e for e in distinct if scales[e] is None]
    wide = np.zeros((n_cases, len(wide_entries) * n_contenders))
    narrow = np.zeros((n_cases, len(narrow_entries) * n_contenders), dtype=np.float32)
    place = {e: (wide, i) for i, e in enumerate(wide_entries)} | {e: (narrow, i) for i, e in enumerate(narrow_entries)}
    # One result per cell (one sample, the usual run): folding is placing, into one reused buffer.
    scratch = np.zeros(size) if most <= 1 else None
    for entry in distinct:
        target, i = place[entry]
        factor = scales[entry][0] if target is narrow else 1.0  # type: ignore[index]
        weights = _block_weights(entry, names, values, known)
        if scratch is None:
            block = np.bincount(flat, weights=weights, minlength=size) * factor
        else:
            if len(flat) < size:
                scratch.fill(0.0)
            scratch[flat] = weights
            scratch += 0.0  # as bincount's 0.0 + w: -0.0 becomes 0.0
            block = scratch * factor if factor != 1.0 else scratch
        target[:, i * n_contenders : (i + 1) * n_contenders] = block.reshape(n_cases, n_contenders)
    columns = {e: np.arange(i * n_contenders, (i + 1) * n_contenders) + (0 if target is wide else wide.shape[1])
               for e, (target, i) in place.items()}
    unscale = np.repeat([1.0 / scales[e][0] for e in narrow_entries], n_contenders)  # type: ignore[index]
    return _Product(wide, narrow, max((scales[e][1] for e in narrow_entries), default=0.0),  # type: ignore[index]
                    unscale, np.concatenate([columns[e] for e in entries]))


def _block_weights(entry: tuple[str, int], names: list[str], values: Mapping[str, np.ndarray],
                   known: Mapping[str, np.ndarray]) -> np.ndarray:
    """What each result adds to a block: its value (0 when unknown), 1 when known, 1 when an error."""
    kind, i = entry
    if kind == "sum":
        return np.where(known[names[i]], values[names[i]], 0.0)
    return known[names[i]].astype(float) if kind == "count" else np.asarray(values["errors"], dtype=float)


def _block_scale(entry: tuple[str, int], names: list[str], values: Mapping[str, np.ndarray],
                 known: Mapping[str, np.ndarray], most: int) -> tuple[float, float] | None:
    """For a block float32 multiplies exactly: the power of two that makes it whole, and at least its
    largest cell once scaled; None for any other block."""
    if entry[0] != "sum":
        return 1.0, float(most)
    scale = _whole_scale(values[names[entry[1]]][known[names[entry[1]]]])
    return None if scale is None or scale[1] * most >= _FLOAT32_EXACT else (scale[0], scale[1] * most)


#: The finest fraction a block may hold and still be multiplied whole (scaled) in float32.
_FINEST = 2.0**16


def _whole_scale(known_values: np.ndarray) -> tuple[float, float] | None:
    """The smallest power of two (at most 2**16) that makes every value whole, and the largest value times it.

    None when none does, or when the scaled values are too big for float32 to add exactly.
    """
    top = float(np.abs(known_values).max(initial=0.0))
    if top * _FINEST >= 2.0**62:
        return None
    fine = known_values * _FINEST  # exact: a power of two
    if not np.array_equal(fine, np.trunc(fine)):
        return None
    bits = int(np.bitwise_or.reduce(np.abs(fine).astype(np.int64), initial=0))
    shift = 16 - min(16, (bits & -bits).bit_length() - 1) if bits else 0
    scale = 2.0**shift
    return (scale, top * scale) if top * scale < _FLOAT32_EXACT else None


def _first_equal(arrays: list[np.ndarray]) -> list[int]:
    """For each array, the position of the first array equal to it (NaN equal to NaN)."""
    firsts: list[int] = []
    for i, a in enumerate(arrays):
        step = max(1, len(a) // 64)  # a look at a few values before a full comparison
        match = (j for j in dict.fromkeys(firsts) if arrays[j].dtype == a.dtype
                 and arrays[j][::step].tobytes() == a[::step].tobytes()
                 and np.array_equal(arrays[j], a, equal_nan=a.dtype.kind == "f"))
        firsts.append(next(match, i))
    return firsts


def _sorted_codes(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(column.astype(str), sort=True)``, from a categorical's codes when it is one.

    Turning a million categorical cells into strings took most of a bootstrap's set-up.
    """
    if not isinstance(column.dtype, pd.CategoricalDtype) or column.isna().any():
        codes, uniques = pd.factorize(column.astype(str), sort=True)
        return codes, np.asarray(uniques, dtype=object)
    used = np.flatnonzero(np.bincount(column.cat.codes.to_numpy(), minlength=len(column.cat.categories)))
    names = np.asarray([str(v) for v in column.cat.categories[used]], dtype=object)
    order = np.argsort(names, kind="stable")
    recode = np.full(len(column.cat.categories), -1, dtype=np.int64)
    recode[used[order]] = np.arange(len(used))
    return recode[column.cat.codes.to_numpy()], names[order]


def _case_codes(df: pd.DataFrame) -> np.ndarray:
    """``df.groupby(["dataset", "case"], observed=True, sort=True).ngroup()``, from categorical codes when it can."""
    dataset, case = df["dataset"], df["case"]
    if not all(isinstance(c.dtype, pd.CategoricalDtype) for c in (dataset, case)) or \
            dataset.isna().any() or case.isna().any():
        return df.groupby(["dataset", "case"], observed=True, sort=True).ngroup().to_numpy()
    # groupby sorts categoricals by their categories' order, which is the codes' order.
    key = dataset.cat.codes.to_numpy(np.int64) * len(case.cat.categories) + case.cat.codes.to_numpy(np.int64)
    size = len(dataset.cat.categories) * len(case.cat.categories)
    if size > 4 * len(key) + 1024:
        return np.unique(key, return_inverse=True)[1].reshape(-1)
    # Few possible keys: rank the ones present by marking them, as np.unique would by sorting a million.
    present = np.zeros(size, dtype=bool)
    present[key] = True
    return (np.cumsum(present) - 1)[key]


def resample_counts(strata: np.ndarray, B: int, rng: np.random.Generator) -> np.ndarray:  # noqa: N803
    """How many times each case is drawn in each of B resamples, shape (B, cases).

    Args:
        strata: for each case, its stratum; cases are drawn with replacement within their
            stratum, as many as it has. All zeros: a plain bootstrap over all cases.
        B: number of resamples.
        rng: the generator to draw from.
    """
    n_cases = len(strata)
    counts = np.zeros((B, n_cases))
    # Strata in order, one draw each, as ever: the same seed gives the same resamples. Counting row
    # by row into floats skips a (B x cases) index array and its int64 copy: four times faster.
    for members in (np.flatnonzero(strata == d) for d in np.unique(strata)):
        drawn = rng.integers(0, len(members), size=(B, len(members)))
        block = counts if len(members) == n_cases else np.empty((B, len(members)))
        for b in range(B):
            block[b] = np.bincount(drawn[b], minlength=len(members))
        if block is not counts:
            counts[:, members] = block
    return counts


def _ratio(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    return np.divide(sums, counts, out=np.full_like(sums, np.nan), where=counts > 0)


def resampled_tables(matrix: CaseMatrix, counts: np.ndarray, average: str = "micro") -> dict[str, np.ndarray]:
    """Leaderboard values of every resample: name → (B, contenders), plus ``errors``.

    Micro: sums over the drawn cases divided by counts, the identity resample giving back the
    table exactly. Macro: the same per dataset, then the mean over the datasets that have a value.
    """
    groups = [slice(None)] if average == "micro" else [
        np.flatnonzero(matrix.case_dataset == d) for d in np.unique(matrix.case_dataset)]
    q, c = len(matrix.names), len(matrix.contenders)
    means: list[np.ndarray] = []
    errors: np.ndarray | float = 0.0
    for cases in groups:
        part = counts[:, cases]
        out = matrix.product.times(part, cases)
        out = part @ matrix.stacked[cases] if out is None else out
        means.append(_ratio(out[:, : q * c].reshape(-1, q, c), out[:, q * c : 2 * q * c].reshape(-1, q, c)))
        errors = errors + out[:, 2 * q * c :]
    stacked = np.stack(means)
    present = ~np.isnan(stacked)
    mean = _ratio(np.where(present, stacked, 0.0).sum(axis=0), present.sum(axis=0).astype(float))
    tables = {name: mean[:, q, :] for q, name in enumerate(matrix.names)}
    tables["errors"] = np.broadcast_to(errors, mean[:, 0, :].shape)
    return tables


def percentile_interval(samples: np.ndarray, level: float = LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval along axis 0, ignoring NaN (linear interpolation, as ``np.percentile``).

    A column with no finite sample gets NaN, without numpy's all-NaN warnings.
    """
    ordered = np.sort(samples, axis=0)  # NaN sorts last
    last = np.maximum((~np.isnan(samples)).sum(axis=0) - 1, 0)
    bounds = []
    for q in ((1 - level) / 2, (1 + level) / 2):
        position = q * last
        below = np.floor(position).astype(np.int64)
        above = np.minimum(below + 1, last)
        low = np.take_along_axis(ordered, below[None], axis=0)[0]
        high = np.take_along_axis(ordered, above[None], axis=0)[0]
        bounds.append(low + (position - below) * (high - low))
    return bounds[0], bounds[1]


def bootstrap(
    df: pd.DataFrame,
    metrics: Sequence[Metric],
    weights: Mapping[str, float] | None = None,
    *,
    average: str = "micro",
    B: int = 1000,  # noqa: N803
    seed: int = 0,
) -> pd.DataFrame:
    """Paired case bootstrap of the overall table: 95% intervals and P(best) per contender.

    Each resample draws cases (with all their samples) and recomputes every contender's row; the
    wscore is recomputed with the same weights, the log scale of cost and time taken within the
    resampled table and the errors penalty from the resampled error count.

    Args:
        df: the selected results (one table's worth).
        metrics: the declared metrics.
        weights: as for :func:`evalcore.analysis.leaderboard.rank`; none gives NaN wscore intervals.
        average: ``"micro"`` or ``"macro"``, as the table was aggregated.
        B: number of resamples.
        seed: seed of ``np.random.default_rng``.

    Returns:
        ``contender, score_lo, score_hi, <metric>_lo, <metric>_hi..., wscore_lo, wscore_hi,
        p_best``; ``p_best`` is the share of resamples in which the contender ranks first (by
        wscore with weights, else by score; ties as in the ranking).
    """
    weights = validate_weights(weights, metrics)
    return intervals(resample(df, metrics, average=average, B=B, seed=seed), metrics, weights)


@dataclass
class Resampled:
    """The B resampled tables of one selection of results: everything :func:`bootstrap` needs but the weights.

    The expensive half of a bootstrap; a weight change reuses it (:func:`intervals`).

    Attributes:
        contenders: contender ids, sorted; the last axis of every table.
        tables: name → (B, contenders) values: ``score``, each metric, ``cost``, ``time``, ``errors``.
    """

    contenders: np.ndarray
    tables: dict[str, np.ndarray]


def resample(
    df: pd.DataFrame,
    metrics: Sequence[Metric],
    *,
    average: str = "micro",
    B: int = 1000,  # noqa: N803
    seed: int = 0,
    values: Mapping[str, np.ndarray] | None = None,
) -> Resampled:
    """Draw the B paired case resamples of :func:`bootstrap` and compute every resampled table.

    Args:
        values: :func:`evalcore.analysis.leaderboard.result_values` of ``df``, when already computed.
    """
    if df.empty:
        return Resampled(np.asarray([], dtype=object), {})
    matrix = case_matrix(df, metrics, values)
    strata = matrix.case_dataset if average == "macro" else np.zeros_like(matrix.case_dataset)
    rng = np.random.default_rng(seed)
    blocks = [resampled_tables(matrix, counts, average) for counts in _count_blocks(strata, B, rng)] or \
        [resampled_tables(matrix, np.zeros((0, len(strata))), average)]
    return Resampled(matrix.contenders, {name: np.concatenate([b[name] for b in blocks]) for name in blocks[0]})


def _count_blocks(strata: np.ndarray, B: int, rng: np.random.Generator, rows: int = 125) -> Iterator[np.ndarray]:  # noqa: N803
    """:func:`resample_counts` in blocks of ``rows`` resamples: the same draws, a tenth of the memory.

    With one stratum, drawing row by row gives what one (B x cases) draw gives, so no block of draws
    or counts bigger than ``rows`` x cases ever exists (a fresh process pays for every page it touches).
    """
    if len(np.unique(strata)) > 1:  # strata are drawn one after another over all B rows: keep that order
        counts = resample_counts(strata, B, rng)
        yield from (counts[start : start + rows] for start in range(0, B, rows))
        return
    n_cases = len(strata)
    block = np.empty((rows, n_cases))
    for start in range(0, B, rows):
        n = min(rows, B - start)
        # One row at a time, as 32-bit integers: the same draws (both take 32 bits per case from the
        # generator), with no (rows x cases) index array for a fresh process to fault in every block.
        for i in range(n):
            block[i] = np.bincount(rng.integers(0, n_cases, size=n_cases, dtype=np.int32), minlength=n_cases)
        yield block[:n]


def intervals(resampled: Resampled, metrics: Sequence[Metric], weights: Mapping[str, float] | None) -> pd.DataFrame:
    """:func:`bootstrap`'s table from resampled tables and (validated) weights."""
    bounds = [f"{n}_{e}" for n in ["score", *(m.name for m in metrics), "wscore"] for e in ("lo", "hi")]
    if not len(resampled.contenders):
        return pd.DataFrame(columns=["contender", *bounds, "p_best"])
    tables = {**resampled.tables, "wscore": wscores(resampled.tables, dict(weights or {}))}
    out = pd.DataFrame({"contender": resampled.contenders})
    for name in ["score", *(m.name for m in metrics), "wscore"]:
        out[f"{name}_lo"], out[f"{name}_hi"] = percentile_interval(tables[name])
    id_rank = np.arange(len(resampled.contenders))  # contenders are sorted by id already
    first = rank_order(tables["wscore"], tables["score"], tables["cost"], id_rank)[:, 0]
    out["p_best"] = np.bincount(first, minlength=len(out)) / len(first)
    return out


def pairwise(df: pd.DataFrame, metric: str = "score", B: int = 1000, seed: int = 0) -> pd.DataFrame:  # noqa: N803
    """Paired differences between every ordered pair of contenders, on their shared scored cases.

    A case's value is the mean of the contender's scored samples of it; a case counts for a pair
    when both have a value. ``mean_diff`` is the mean of ``a − b`` over those cases; ``lo``/``hi`` a
    95% paired bootstrap interval (cases drawn from all cases, shared by every pair); ``p_value``
    comes from a two-sided paired sign-flip permutation test (B random sign vectors, the observed
    one counted: ``(1 + #{|T*| ≥ |T|}) / (B + 1)``); ``significant`` is ``p_value < 0.05``.

    Args:
        df: the selected results.
        metric: ``"score"`` or a declared metric name (read from ``m_<metric>``).
        B: number of resamples and of sign flips.
        seed: seed of ``np.random.default_rng``.

    Returns:
        ``a, b, n, mean_diff, lo, hi, p_value, significant``, one row per ordered pair (a ≠ b).
    """
    values, contenders, case_dataset = _case_values(df, metric)
    rng = np.random.default_rng(seed)
    draws = resample_counts(np.zeros_like(case_dataset), B, rng)
    signs = rng.integers(0, 2, size=(B, len(case_dataset))) * 2.0 - 1.0
    rows = []
    for a in range(len(contenders)):
        for row in _pairs_of(values, a, draws, signs):
            b = row.pop("b")
            rows.append({"a": contenders[a], "b": contenders[b], **row})
            rows.append({"a": contenders[b], "b": contenders[a], **_reverse(row)})
    columns = ["a", "b", "n", "mean_diff", "lo", "hi", "p_value", "significant"]
    return pd.DataFrame(rows, columns=columns).sort_values(["a", "b"], ignore_index=True)


def _case_values(df: pd.DataFrame, metric: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    column = "score" if metric == "score" else f"m_{metric}"
    if column not in df.columns:
        known = ["score", *(c.removeprefix("m_") for c in df.columns if c.startswith("m_"))]
        raise EvalcoreError(f"no metric {metric!r} in these results; known: {', '.join(known)}")
    matrix = case_matrix(df, [Metric(metric, "")] if metric != "score" else [])
    q = matrix.names.index(metric)
    return _ratio(matrix.sums[:, q, :], matrix.counts[:, q, :]), matrix.contenders, matrix.case_dataset


def _pairs_of(values: np.ndarray, a: int, draws: np.ndarray, signs: np.ndarray) -> list[dict]:
    """Statistics of contender ``a`` against every later contender, all pairs in one product each."""
    others = values[:, a + 1:]
    shared = ~np.isnan(others) & ~np.isnan(values[:, [a]])
    diff = np.where(shared, values[:, [a]] - others, 0.0)
    n = shared.sum(axis=0)
    mean = _ratio(diff.sum(axis=0), n.astype(float))
    lo, hi = percentile_interval(_ratio(draws @ diff, draws @ shared))
    flipped = np.abs(_ratio(signs @ diff, np.broadcast_to(n, (len(signs), len(n))).astype(float)))
    # The tolerance keeps a flip that reproduces |T| exactly (up to float noise) counted as extreme.
    extreme = (flipped >= np.abs(mean) - 1e-12).sum(axis=0)
    p = np.where(n > 0, (1 + extreme) / (len(signs) + 1), np.nan)
    return [{"b": a + 1 + j, "n": int(n[j]), "mean_diff": mean[j], "lo": lo[j], "hi": hi[j],
             "p_value": p[j], "significant": bool(p[j] < ALPHA)} for j in range(len(n))]


def _reverse(row: dict) -> dict:
    return {**row, "mean_diff": -row["mean_diff"], "lo": -row["hi"], "hi": -row["lo"]}


def weight_stability(
    table: pd.DataFrame,
    weights: Mapping[str, float] | None,
    metrics: Sequence[Metric],
    draws: int = 1000,
    seed: int = 0,
) -> dict[str, float]:
    """How often each contender ranks first when the weights wobble.

    Every weight is multiplied by its own factor, log-uniform in [0.5, 2] (signs kept), ``draws``
    times. Goodness depends only on the signs, so it is computed once; each draw is a matrix
    product.

    Args:
        table: an overall table (one row per contender), as from :func:`evalcore.analysis.leaderboard.aggregate`.
        weights: the weights to perturb; without any, the ranking by score never changes.
        metrics: the declared metrics.
        draws: number of perturbed weight vectors.
        seed: seed of ``np.random.default_rng``.

    Returns:
        contender id → share of draws in which it ranks first (the shares sum to 1).
    """
    weights = validate_weights(weights, metrics)
    if "dataset" in table.columns and table["dataset"].nunique() > 1:
        raise ValueError("weight_stability takes one table; call it once per dataset")
    if table.empty:
        return {}
    columns = {name: table[name].to_numpy(dtype=float) for name in {"errors", "score", "cost", *weights}}
    scores = _perturbed_wscores(columns, weights, draws, np.random.default_rng(seed))
    ids = table["contender"].to_numpy(dtype=object)
    id_rank = np.unique(ids, return_inverse=True)[1]
    first = rank_order(scores, columns["score"], columns["cost"], id_rank)[:, 0]
    return dict(zip(ids, np.bincount(first, minlength=len(ids)) / draws, strict=True))


def _perturbed_wscores(columns: dict[str, np.ndarray], weights: dict[str, float], draws: int,
                       rng: np.random.Generator) -> np.ndarray:
    if not weights:
        return np.full((draws, len(columns["errors"])), np.nan)
    goodness = goodness_matrix(columns, weights)  # (contenders, names)
    factors = np.exp(rng.uniform(np.log(0.5), np.log(2.0), size=(draws, len(weights))))
    magnitudes = np.abs(np.fromiter(weights.values(), dtype=float)) * factors  # (draws, names)
    raw = 100.0 * (magnitudes @ goodness.T) / magnitudes.sum(axis=1, keepdims=True)
    return np.maximum(raw - errors_penalty(columns["errors"], weights), 0.0)


def pareto_front(table: pd.DataFrame, x: str = "cost") -> list[str]:
    """Contenders not dominated on (``score`` higher is better, ``x`` lower is better).

    A row is dominated when another is at least as good on both and better on one. Rows with a
    null score or ``x`` are left out. Works for ``x="cost"`` and ``x="time"``.

    Returns:
        The front's contender ids, by ``x`` ascending (then score descending, then id).
    """
    known = table.dropna(subset=["score", x])
    score, other = known["score"].to_numpy(float), known[x].to_numpy(float)
    at_least = (score[:, None] >= score[None, :]) & (other[:, None] <= other[None, :])
    better = (score[:, None] > score[None, :]) | (other[:, None] < other[None, :])
    dominated = (at_least & better).any(axis=0)  # [j, i]: row j dominates row i
    front = known[~dominated]
    front = front.assign(_neg=-front["score"]).sort_values([x, "_neg", "contender"])
    return [str(c) for c in front["contender"]]
