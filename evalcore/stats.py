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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalcore.errors import EvalcoreError
from evalcore.leaderboard import (
    errors_penalty,
    goodness_matrix,
    rank_order,
    result_values,
    validate_weights,
    wscores,
)
from evalcore.records import Metric

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
        sums: (cases, names, contenders) sums of the non-null values.
        counts: (cases, names, contenders) numbers of non-null values.
        errors: (cases, contenders) numbers of error results.
    """

    contenders: np.ndarray
    case_dataset: np.ndarray
    names: list[str]
    sums: np.ndarray
    counts: np.ndarray
    errors: np.ndarray


def case_matrix(df: pd.DataFrame, metrics: Sequence[Metric]) -> CaseMatrix:
    """Fold a results frame into per-case sums and counts (see :class:`CaseMatrix`)."""
    contender_codes, contenders = pd.factorize(df["contender"].astype(str), sort=True)
    case_codes = df.groupby(["dataset", "case"], observed=True, sort=True).ngroup().to_numpy()
    dataset_codes = pd.factorize(df["dataset"].astype(str), sort=True)[0]
    n_cases, n_contenders = int(case_codes.max(initial=-1)) + 1, len(contenders)
    case_dataset = np.zeros(n_cases, dtype=np.int64)
    case_dataset[case_codes] = dataset_codes
    flat, size = case_codes * n_contenders + contender_codes, n_cases * n_contenders
    values = result_values(df, metrics)
    names = ["score", *(m.name for m in metrics), "cost", "time"]

    def fold(weights: np.ndarray) -> np.ndarray:
        return np.bincount(flat, weights=weights, minlength=size).reshape(n_cases, n_contenders)

    known = {name: ~np.isnan(values[name]) for name in names}
    sums = np.stack([fold(np.where(known[n], values[n], 0.0)) for n in names], axis=1)
    counts = np.stack([fold(known[n].astype(float)) for n in names], axis=1)
    return CaseMatrix(np.asarray(contenders, dtype=object), case_dataset, names, sums, counts,
                      fold(values["errors"]))


def resample_counts(strata: np.ndarray, B: int, rng: np.random.Generator) -> np.ndarray:  # noqa: N803
    """How many times each case is drawn in each of B resamples, shape (B, cases).

    Args:
        strata: for each case, its stratum; cases are drawn with replacement within their
            stratum, as many as it has. All zeros: a plain bootstrap over all cases.
        B: number of resamples.
        rng: the generator to draw from.
    """
    n_cases = len(strata)
    draws = [members[rng.integers(0, len(members), size=(B, len(members)))]
             for members in (np.flatnonzero(strata == d) for d in np.unique(strata))]
    drawn = np.concatenate(draws, axis=1) if draws else np.zeros((B, 0), dtype=np.int64)
    flat = (np.arange(B)[:, None] * n_cases + drawn).ravel()
    return np.bincount(flat, minlength=B * n_cases).reshape(B, n_cases).astype(float)


def _ratio(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    return np.divide(sums, counts, out=np.full_like(sums, np.nan), where=counts > 0)


def resampled_tables(matrix: CaseMatrix, counts: np.ndarray, average: str = "micro") -> dict[str, np.ndarray]:
    """Leaderboard values of every resample: name → (B, contenders), plus ``errors``.

    Micro: sums over the drawn cases divided by counts, the identity resample giving back the
    table exactly. Macro: the same per dataset, then the mean over the datasets that have a value.
    """
    groups = [slice(None)] if average == "micro" else [
        np.flatnonzero(matrix.case_dataset == d) for d in np.unique(matrix.case_dataset)]
    means, errors = [], 0.0
    for cases in groups:
        weights = counts[:, cases]
        sums = np.einsum("bk,kqc->bqc", weights, matrix.sums[cases], optimize=True)
        known = np.einsum("bk,kqc->bqc", weights, matrix.counts[cases], optimize=True)
        means.append(_ratio(sums, known))
        errors = errors + weights @ matrix.errors[cases]
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
        weights: as for :func:`evalcore.leaderboard.rank`; none gives NaN wscore intervals.
        average: ``"micro"`` or ``"macro"``, as the table was aggregated.
        B: number of resamples.
        seed: seed of ``np.random.default_rng``.

    Returns:
        ``contender, score_lo, score_hi, <metric>_lo, <metric>_hi..., wscore_lo, wscore_hi,
        p_best``; ``p_best`` is the share of resamples in which the contender ranks first (by
        wscore with weights, else by score; ties as in the ranking).
    """
    weights = validate_weights(weights, metrics)
    if df.empty:
        bounds = [f"{n}_{e}" for n in ["score", *(m.name for m in metrics), "wscore"] for e in ("lo", "hi")]
        return pd.DataFrame(columns=["contender", *bounds, "p_best"])
    matrix = case_matrix(df, metrics)
    strata = matrix.case_dataset if average == "macro" else np.zeros_like(matrix.case_dataset)
    counts = resample_counts(strata, B, np.random.default_rng(seed))
    tables = resampled_tables(matrix, counts, average)
    tables["wscore"] = wscores(tables, weights)
    out = pd.DataFrame({"contender": matrix.contenders})
    for name in ["score", *(m.name for m in metrics), "wscore"]:
        out[f"{name}_lo"], out[f"{name}_hi"] = percentile_interval(tables[name])
    id_rank = np.arange(len(matrix.contenders))  # contenders are sorted by id already
    first = rank_order(tables["wscore"], tables["score"], tables["cost"], id_rank)[:, 0]
    out["p_best"] = np.bincount(first, minlength=len(out)) / B if len(out) else []
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
        table: an overall table (one row per contender), as from :func:`evalcore.leaderboard.aggregate`.
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
