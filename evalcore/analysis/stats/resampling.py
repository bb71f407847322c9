"""How sure are we? Bootstrap intervals and P(best), from resamples of the cases.

Resampling is over cases, a case being a ``(dataset, case)`` pair, and it is paired: one draw of
cases serves every contender, so the difference between two contenders is not drowned by how hard
the drawn cases happen to be. Samples of a case travel with it (a cluster bootstrap). A micro
average draws from all cases; a macro average draws within each dataset (stratified), so every
resample has every dataset to average over. Every draw comes from ``np.random.default_rng(seed)``.

The work is a matrix product: results are folded once into per-case sums and counts
(:class:`CaseMatrix`); a resample is a row of case multiplicities, so a block of resampled tables
comes from one product of the (resamples × cases) multiplicity matrix with the folded matrix. The
multiplicities themselves (:func:`resample_counts`, :func:`count_blocks`) are drawn on plain arrays, and
paired comparisons and agreement draw theirs here too; pandas is imported by the functions that read a
results frame, so a comparison of two runs (``evalcore compare``) draws its resamples without loading it.

Precision: counts (results, known values, errors) are whole numbers, which float64 adds exactly in
any order: they are the same on every machine. Sums of values are float64 sums in an order the BLAS
library picks, and that differs between machines. Every value summed has one sign (scores and
metrics in [0, 1], costs and times ≥ 0), so any order is within n·2⁻⁵³ (relative) of the exact sum
over n cases: two machines agree within 1e-9 up to millions of cases, which is what the tests check.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from evalcore.analysis.scores.weights import first_shares, validate_weights, wscores
from evalcore.analysis.stats.intervals import (
    LEVEL,
    expanded_level,
    percentile_interval,
    proportion_interval,
    ratio,
    widen_points,
)
from evalcore.analysis.stats.repeat_intervals import repeat_intervals
from evalcore.core.aggregates import AggregateMetric
from evalcore.core.metric_set import MetricSet
from evalcore.core.records import Metric

if TYPE_CHECKING:
    import pandas as pd


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
    # Strata in order, one draw each: the same seed gives the same resamples. Counting row by row
    # into floats needs no (B x cases) index array and no int64 copy of it.
    for members in (np.flatnonzero(strata == d) for d in np.unique(strata)):
        # 32-bit draws are the same draws as 64-bit ones below 2**32 (numpy takes 32 bits per draw either way),
        # in half the memory: drawing B x cases of them is most of this function's time.
        drawn = rng.integers(0, len(members), size=(B, len(members)), dtype=np.int32)
        block = counts if len(members) == n_cases else np.empty((B, len(members)))
        for b in range(B):
            block[b] = np.bincount(drawn[b], minlength=len(members))
        if block is not counts:
            counts[:, members] = block
    return counts


def count_blocks(strata: np.ndarray, B: int, rng: np.random.Generator, rows: int = 125) -> Iterator[np.ndarray]:  # noqa: N803
    """:func:`resample_counts` in blocks of ``rows`` resamples: the same draws, in a fraction of the memory.

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


@dataclass
class CaseMatrix:
    """Results folded per case: what a resample multiplies.

    The folded matrix, :attr:`stacked`, is (cases, columns): for each name the (cases, contenders)
    block of sums of its non-null values, then for each name the block of its numbers of non-null
    values, then the block of numbers of error results. Equal blocks are kept once (a run's score
    is its primary metric; most names are known together), so equal inputs give equal resampled
    values and the product does no work twice.

    Attributes:
        contenders: contender ids, sorted; the last axis of every block.
        case_dataset: for each case, the index of its dataset.
        names: the averaged quantities: ``score``, each metric, ``cost``, ``time``.
        distinct: (cases, distinct blocks x contenders) float64: each distinct block once.
        source: for each column of :attr:`stacked`, its column in :attr:`distinct`.
    """

    contenders: np.ndarray
    case_dataset: np.ndarray
    names: list[str]
    distinct: np.ndarray
    source: np.ndarray

    @property
    def stacked(self) -> np.ndarray:
        """Sums, counts and errors side by side, (cases, 2 x names x contenders + contenders)."""
        return self.distinct[:, self.source]

    @property
    def sums(self) -> np.ndarray:
        """(cases, names, contenders) sums of the non-null values."""
        q, c = len(self.names), len(self.contenders)
        return self.stacked[:, : q * c].reshape(-1, q, c)

    @property
    def counts(self) -> np.ndarray:
        """(cases, names, contenders) numbers of non-null values."""
        q, c = len(self.names), len(self.contenders)
        return self.stacked[:, q * c : 2 * q * c].reshape(-1, q, c)

    @property
    def errors(self) -> np.ndarray:
        """(cases, contenders) numbers of error results."""
        return self.stacked[:, 2 * len(self.names) * len(self.contenders) :]

    def times(self, counts: np.ndarray, cases: slice | np.ndarray = slice(None)) -> np.ndarray:
        """``counts @ stacked[cases]``, each distinct block multiplied once: (resamples, columns of stacked)."""
        return (counts @ self.distinct[cases])[:, self.source]


def case_matrix(
    df: pd.DataFrame, metrics: Sequence[Metric], values: Mapping[str, np.ndarray] | None = None
) -> CaseMatrix:
    """Fold a results frame into per-case sums and counts (see :class:`CaseMatrix`).

    Args:
        df: the results.
        metrics: the declared metrics.
        values: :func:`evalcore.analysis.scores.results.result_values` of ``df``, when already computed.
    """
    from evalcore.analysis.scores.results import result_values

    contender_codes, contenders = _sorted_codes(df["contender"])
    case_codes = case_positions(df)
    dataset_codes = _sorted_codes(df["dataset"])[0]
    n_cases, n_contenders = int(case_codes.max(initial=-1)) + 1, len(contenders)
    case_dataset = np.zeros(n_cases, dtype=np.int64)
    case_dataset[case_codes] = dataset_codes
    flat = case_codes * n_contenders + contender_codes
    values = result_values(df, metrics) if values is None else values
    names = ["score", *(m.name for m in metrics), "cost", "time"]
    known = {name: ~np.isnan(values[name]) for name in names}
    # What each result adds to each block: its value (0 when unknown), 1 when known, 1 when an error.
    sums = [np.where(known[name], values[name], 0.0) for name in names]
    counts = [known[name].astype(float) for name in names]
    blocks = [*sums, *counts, np.asarray(values["errors"], dtype=float)]
    firsts = _first_equal(blocks)
    kept = list(dict.fromkeys(firsts))
    distinct = np.empty((n_cases, len(kept) * n_contenders))
    for i, block in enumerate(kept):
        folded = np.bincount(flat, weights=blocks[block], minlength=n_cases * n_contenders)
        distinct[:, i * n_contenders : (i + 1) * n_contenders] = folded.reshape(n_cases, n_contenders)
    position = {block: i for i, block in enumerate(kept)}
    source = np.concatenate([position[first] * n_contenders + np.arange(n_contenders) for first in firsts])
    return CaseMatrix(np.asarray(contenders, dtype=object), case_dataset, names, distinct, source)


def _first_equal(arrays: list[np.ndarray]) -> list[int]:
    """For each array, the position of the first array equal to it."""
    firsts: list[int] = []
    for i, a in enumerate(arrays):
        step = max(1, len(a) // 64)  # a look at a few values first: most unequal arrays differ there
        match = (
            j
            for j in dict.fromkeys(firsts)
            if arrays[j][::step].tobytes() == a[::step].tobytes() and np.array_equal(arrays[j], a)
        )
        firsts.append(next(match, i))
    return firsts


def _sorted_codes(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(column.astype(str), sort=True)``, from a categorical's codes when it is one.

    Turning every cell of a big categorical into a string would cost more than the rest of the set-up.
    """
    import pandas as pd

    if not isinstance(column.dtype, pd.CategoricalDtype) or column.isna().any():
        codes, uniques = pd.factorize(column.astype(str), sort=True)
        return codes, np.asarray(uniques, dtype=object)
    used = np.flatnonzero(np.bincount(column.cat.codes.to_numpy(), minlength=len(column.cat.categories)))
    names = np.asarray([str(v) for v in column.cat.categories[used]], dtype=object)
    order = np.argsort(names, kind="stable")
    recode = np.full(len(column.cat.categories), -1, dtype=np.int64)
    recode[used[order]] = np.arange(len(used))
    return recode[column.cat.codes.to_numpy()], names[order]


def case_positions(df: pd.DataFrame) -> np.ndarray:
    """Each result's case as its place among the ``(dataset, case)`` pairs sorted by their text.

    The same as ``df.groupby(["dataset", "case"], sort=True).ngroup()`` on the text (ids are text), from
    categorical codes when it can. The order is the text's, never the run's (a categorical's categories follow the run's
    case order): resample ``b`` draws the same cases whatever order a run lists them in.
    """
    import pandas as pd

    dataset, case = df["dataset"], df["case"]
    if (
        not all(isinstance(c.dtype, pd.CategoricalDtype) for c in (dataset, case))
        or dataset.isna().any()
        or case.isna().any()
    ):
        return df.groupby(["dataset", "case"], observed=True, sort=True).ngroup().to_numpy()
    (dataset_codes, _), (case_codes, case_names) = _sorted_codes(dataset), _sorted_codes(case)
    key = dataset_codes.astype(np.int64) * len(case_names) + case_codes.astype(np.int64)
    size = int(dataset_codes.max(initial=-1) + 1) * len(case_names)
    if size > 4 * len(key) + 1024:
        return np.unique(key, return_inverse=True)[1].reshape(-1)
    # Few possible keys: rank the ones present by marking them, which is linear where sorting is not.
    present = np.zeros(size, dtype=bool)
    present[key] = True
    return (np.cumsum(present) - 1)[key]


def resampled_tables(matrix: CaseMatrix, counts: np.ndarray, average: str = "micro") -> dict[str, np.ndarray]:
    """Leaderboard values of every resample: name → (B, contenders), plus ``errors``.

    Micro: sums over the drawn cases divided by counts, the identity resample giving back the
    table. Macro: the same per dataset, then the mean over the datasets that have a value.
    """
    groups = (
        [slice(None)]
        if average == "micro"
        else [np.flatnonzero(matrix.case_dataset == d) for d in np.unique(matrix.case_dataset)]
    )
    q, c = len(matrix.names), len(matrix.contenders)
    means: list[np.ndarray] = []
    errors: np.ndarray | float = 0.0
    for cases in groups:
        out = matrix.times(counts[:, cases], cases)
        means.append(ratio(out[:, : q * c].reshape(-1, q, c), out[:, q * c : 2 * q * c].reshape(-1, q, c)))
        errors = errors + out[:, 2 * q * c :]
    stacked = np.stack(means)
    present = ~np.isnan(stacked)
    mean = ratio(np.where(present, stacked, 0.0).sum(axis=0), present.sum(axis=0).astype(float))
    tables = {name: mean[:, q, :] for q, name in enumerate(matrix.names)}
    tables["errors"] = np.broadcast_to(errors, mean[:, 0, :].shape)
    return tables


@dataclass
class Resampled:
    """The B resampled tables of one selection of results: everything :func:`bootstrap` needs but the weights.

    The expensive half of a bootstrap; a weight change reuses it (:func:`intervals`).

    Attributes:
        contenders: contender ids, sorted; the last axis of every table.
        tables: name → (B, contenders) values: ``score``, each metric, ``cost``, ``time``, ``errors``.
        binomial: name → (2, contenders) interval of a proportion (:func:`binary_intervals`) of ``score``
            and each metric, NaN for a contender whose values are not all 0 or 1 (its interval is the
            bootstrap's); for a repeat metric whose values are not all 0 or 1, the hull of the percentile and
            BCa intervals (:func:`repeat_intervals`).
        cases: name → (contenders,) how many cases have a value of ``score``, each declared metric,
            ``cost`` and ``time``: the bootstrap interval is read at the expanded level of that many cases
            (:func:`~evalcore.analysis.stats.intervals.expanded_level`); a name without an entry takes ``score``'s.
    """

    contenders: np.ndarray
    tables: dict[str, np.ndarray]
    binomial: dict[str, np.ndarray] = field(default_factory=dict)
    cases: dict[str, np.ndarray] = field(default_factory=dict)


def resample(
    df: pd.DataFrame,
    metric_set: MetricSet,
    *,
    average: str = "micro",
    B: int = 1000,  # noqa: N803
    seed: int = 0,
    values: Mapping[str, np.ndarray] | None = None,
) -> Resampled:
    """Draw the B paired case resamples of :func:`bootstrap` and compute every resampled table.

    Args:
        values: :func:`evalcore.analysis.scores.results.result_values` of ``df``, when already computed.
    """
    if df.empty:
        return Resampled(np.asarray([], dtype=object), {})
    matrix = case_matrix(df, metric_set.per_result, values)
    strata = matrix.case_dataset if average == "macro" else np.zeros_like(matrix.case_dataset)
    rng = np.random.default_rng(seed)
    recompute = _aggregate_recomputers(df, metric_set.aggregates, matrix, average)
    blocks = []
    for counts in count_blocks(strata, B, rng):
        block = resampled_tables(matrix, counts, average)
        blocks.append(block | {name: again(counts) for name, again in recompute.items()})
    if not blocks:
        empty = np.zeros((0, len(strata)))
        blocks = [resampled_tables(matrix, empty, average) | {name: again(empty) for name, again in recompute.items()}]
    tables = {name: np.concatenate([b[name] for b in blocks]) for name in blocks[0]}
    binomial = binary_intervals(matrix) if average == "micro" else {}
    if average == "micro" and metric_set.repeats:
        sums, counts = matrix.sums, matrix.counts
        folded = {
            m.name: (sums[:, matrix.names.index(m.name)], counts[:, matrix.names.index(m.name)])
            for m in metric_set.repeats
        }
        binomial |= repeat_intervals(folded, tables, binomial)
    return Resampled(matrix.contenders, tables, binomial, case_numbers(matrix))


def case_numbers(matrix: CaseMatrix) -> dict[str, np.ndarray]:
    """For each of the matrix's names, (contenders,) how many cases have a value of it."""
    valued = (matrix.distinct > 0).sum(axis=0)  # counts' columns hold whole numbers of values, ≥ 0
    q, c = len(matrix.names), len(matrix.contenders)
    return {name: valued[matrix.source[(q + i) * c : (q + i + 1) * c]] for i, name in enumerate(matrix.names)}


def _aggregate_recomputers(
    df: pd.DataFrame, aggregates: Sequence[AggregateMetric], matrix: CaseMatrix, average: str
) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    """For each aggregate metric, what computes its (resamples, contenders) values from case multiplicities.

    An aggregate metric is no mean of per-case values, so it is recomputed on each resample from the
    resampled results (macro-F1 from the resampled per-label counts); without labels it is null throughout.
    """
    from evalcore.analysis.scores.classification import fold_labels, frame_labels, resampled_grouped_macro_f1

    if not aggregates:
        return {}
    contender_codes = _sorted_codes(df["contender"])[0]
    case_codes = case_positions(df)
    groups = (
        [np.arange(len(matrix.case_dataset))]
        if average == "micro"
        else [np.flatnonzero(matrix.case_dataset == d) for d in np.unique(matrix.case_dataset)]
    )
    n = len(matrix.contenders)
    found: dict[str, Callable[[np.ndarray], np.ndarray]] = {}
    for metric in aggregates:
        labels = frame_labels(df, metric)
        if labels is None:
            found[metric.name] = lambda counts: np.full((len(counts), n), np.nan)
        else:
            folded = [fold_labels(labels, case_codes, contender_codes, n, cases) for cases in groups]
            found[metric.name] = partial(resampled_grouped_macro_f1, folded, n)
    return found


def binary_intervals(matrix: CaseMatrix) -> dict[str, np.ndarray]:
    """Intervals of ``score`` and each metric for the contenders whose per-case values are all 0 or 1: a
    proportion's (:func:`~evalcore.analysis.stats.intervals.proportion_interval`), not the bootstrap's.

    A case's value is the mean of its samples, so a case whose samples disagree is neither 0 nor 1 and
    its contender keeps the bootstrap interval. The unit is the case, as the bootstrap's is.

    Returns:
        name → (2, contenders) low and high bounds, NaN where the interval is the bootstrap's.
    """
    out = {}
    q_all, c = len(matrix.names), len(matrix.contenders)
    for q, name in enumerate(matrix.names[:-2]):  # every name but cost and time
        sums = matrix.distinct[:, matrix.source[q * c : (q + 1) * c]]
        counts = matrix.distinct[:, matrix.source[(q_all + q) * c : (q_all + q + 1) * c]]
        known = counts > 0
        per_case = ratio(sums, counts)
        binary = ((per_case == 0) | (per_case == 1) | ~known).all(axis=0)
        n = known.sum(axis=0).astype(float)
        hits = (per_case == 1).sum(axis=0).astype(float)
        low, high = proportion_interval(hits, n)
        out[name] = np.where(binary & (n > 0), np.stack([low, high]), np.nan)
    return out


def intervals(
    resampled: Resampled,
    metric_set: MetricSet,
    weights: Mapping[str, float],
    out_of_race: Collection[str] = (),
) -> pd.DataFrame:
    """:func:`bootstrap`'s table from resampled tables and validated weights.

    Args:
        out_of_race: contenders an adaptive run's race stopped: they rank below the others
            (:func:`evalcore.analysis.ranking.leaderboard.rank`), so they are never first in a resample (P(best) 0).
    """
    import pandas as pd

    names = ["score", *(m.name for m in metric_set.metrics), "wscore"]
    bounds = [f"{n}_{e}" for n in names for e in ("lo", "hi")]
    if not len(resampled.contenders):
        return pd.DataFrame(columns=["contender", *bounds, "p_best"])
    # Resamples drawn without an aggregate metric (none in the frame) leave it null, not missing.
    tables = {m.name: np.full((0, len(resampled.contenders)), np.nan) for m in metric_set.metrics} | resampled.tables
    tables["wscore"] = wscores(tables, weights)
    columns: dict[str, np.ndarray] = {"contender": resampled.contenders}
    for name in names:
        cases = resampled.cases.get(name, resampled.cases.get("score"))
        low, high = percentile_interval(tables[name], LEVEL if cases is None else expanded_level(cases))
        exact = resampled.binomial.get(name)
        if exact is not None:
            low, high = np.where(np.isnan(exact[0]), low, exact[0]), np.where(np.isnan(exact[1]), high, exact[1])
        if name != "wscore" and cases is not None:
            # Score and metrics lie in [0, 1]: an interval of one point (every value the same, every
            # resample unchanged) takes the boundary rule instead.
            low, high = widen_points(low, high, low, cases)
        columns[f"{name}_lo"], columns[f"{name}_hi"] = low, high
    stopped = np.isin(np.asarray(resampled.contenders, dtype=object), list(out_of_race))
    weighted = bool(weights)
    p_best = first_shares(tables["wscore"], np.where(stopped, np.nan, tables["score"]), weighted)
    if weighted and np.isnan(tables["wscore"]).all():
        p_best = np.full(len(resampled.contenders), np.nan)  # no row can be best under these weights
    # Built at once: a run with samples has dozens of repeat metrics, and a column at a time fragments the frame.
    return pd.DataFrame({**columns, "p_best": p_best})


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
        weights: as for :func:`evalcore.analysis.ranking.leaderboard.rank`; none gives NaN wscore intervals.
        average: ``"micro"`` or ``"macro"``, as the table was aggregated.
        B: number of resamples.
        seed: seed of ``np.random.default_rng``.

    Returns:
        ``contender, score_lo, score_hi, <metric>_lo, <metric>_hi..., wscore_lo, wscore_hi,
        p_best``; ``p_best`` is the share of resamples in which the contender ranks first (by
        wscore with weights, else by score; k rows tied for first share a resample, 1/k each).
        The interval of score or a metric whose per-case values are all 0 or 1 (micro average) is a
        proportion's (:func:`~evalcore.analysis.stats.intervals.proportion_interval`); every other interval is the
        bootstrap percentile interval read at Hesterberg's expanded level for the contender's number of
        cases (:func:`~evalcore.analysis.stats.intervals.expanded_level`), which keeps its coverage on 30 cases.
        Where that would be one point (every value the same, macro-F1 of a perfect classifier) the interval
        of score, a metric or macro-F1 is the boundary rule's
        (:func:`~evalcore.analysis.stats.intervals.constant_interval`).

    Raises:
        WeightsError: a weight cannot be used.
    """
    metric_set = MetricSet.of(metrics)
    weights = validate_weights(weights, metric_set)
    return intervals(resample(df, metric_set, average=average, B=B, seed=seed), metric_set, weights)
