"""A run's leaderboard, whichever way the run comes: the one way from a run, filters and weights to tables.

A run comes read from a file (a :class:`~evalcore.core.records.Run` with its results in hand) or in a
store (a :class:`~evalcore.storage.history.StoredRun`: its results, or its saved summary, are read only
when needed). For the whole run (no filter, the micro average) a stored run's leaderboard comes from its
summary (:mod:`evalcore.analysis.tables.summaries`) while that holds, so no result is read; anything else is
computed from the results. The CLI and the app both go through here, so the two ways cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import pandas as pd

from evalcore.analysis.ranking.leaderboard import Prepared, finish, prepare
from evalcore.analysis.ranking.outcomes import with_pass_rate
from evalcore.analysis.scores.results import Filters, select_results
from evalcore.analysis.scores.rules import BEST_VALUE_POINTS
from evalcore.analysis.scores.weights import validate_weights
from evalcore.analysis.stats.racing import stop_texts
from evalcore.analysis.stats.significance import pairwise_significance
from evalcore.analysis.tables.summaries import read_summary, save_summary, summarize
from evalcore.core.metric_set import MetricSet
from evalcore.core.records import CORRECTED, RANK_BY, Run
from evalcore.storage.history import StoredRun, header_of

if TYPE_CHECKING:
    from evalcore.analysis.people.corrected import RankBasis


def frame_of(run: Run | StoredRun, metric_set: MetricSet | None = None) -> pd.DataFrame:
    """The run's results frame (:func:`evalcore.storage.frames.results_frame`), read from the store for a stored run;
    ``metric_set``: the run's :func:`metric_set_of`, when the caller holds it."""
    if isinstance(run, StoredRun):
        return run.store.load_results_frame(run.id)
    from evalcore.storage.frames import results_frame

    return results_frame(run, metric_set)


def metric_set_of(run: Run | StoredRun) -> MetricSet:
    """The run's metric set (:class:`~evalcore.core.metric_set.MetricSet`), built from its declared metrics: what
    every step of its leaderboard reads about them, derived once where the run is opened; with its repeat metrics
    (``pass@k``, ``pass^k``, ``consistency``) when it took several samples of a case."""
    return MetricSet.of(header_of(run).metrics, samples_of(run))


def samples_of(run: Run | StoredRun) -> int:
    """How many samples of a case the run took: the samples its settings asked for (``evalcore run`` records them),
    else its results' highest sample + 1 (a stored run's from the store); 1 when neither says."""
    asked = header_of(run).info.settings.get("samples")
    if isinstance(asked, int) and not isinstance(asked, bool) and asked >= 1:
        return asked
    if isinstance(run, StoredRun):
        from evalcore.storage.history import case_and_sample_counts

        return max(1, case_and_sample_counts(run.store, run.id)[1])
    return 1 + max((r.sample for r in run.results), default=0)


def run_stops(run: Run | StoredRun) -> dict[str, str]:
    """The contenders an adaptive run's race stopped, id → stop text: what every surface passes to
    :func:`evalcore.analysis.ranking.leaderboard.finish`; empty for a run that is not adaptive."""
    return stop_texts(header_of(run).info.settings)


def prepare_run(
    run: Run | StoredRun,
    metric_set: MetricSet,
    filters: Filters | None = None,
    *,
    by_dataset: bool = False,
    average: str = "micro",
    ci: bool = True,
    save: bool = False,
    wait: float | None = None,
) -> Prepared:
    """Everything of a run's leaderboard but the weights (see :func:`evalcore.analysis.ranking.leaderboard.prepare`).

    Args:
        run: a run read from a file, or a stored run.
        metric_set: the run's :func:`metric_set_of`.
        filters: which results count; none: the whole run.
        by_dataset: the per-dataset table instead of the overall one.
        average: ``"micro"`` or ``"macro"``.
        ci: with the bootstrap resamples, for intervals and P(best).
        save: when a stored run's whole-run summary is missing, compute it all and save it for the next
            reader (not while the run is running: its results will change).
        wait: seconds to wait for a busy store when saving; the summary is not saved after that.

    Raises:
        EvalcoreError: a metadata filter on a key no case has; StoreError: an unknown stored run.
    """
    whole = (filters is None or not filters.any()) and average == "micro"
    if isinstance(run, StoredRun) and whole:
        summary = read_summary(run.store, run.id)
        if summary is None and save and run.header.info.status != "running":
            frame, changes = run.store.load_results_frame_and_changes(run.id)
            if len(frame):
                summary = summarize(frame, metric_set)
                save_summary(run.store, run.id, changes, summary, wait=wait)
        if summary is not None:
            prepared = summary.prepared.by_dataset if by_dataset else summary.prepared.overall
            return prepared if ci else prepared.without_intervals()
    by = ("contender", "dataset") if by_dataset else ("contender",)
    return prepare(frame_of(run, metric_set), metric_set, filters, by=by, average=average, ci=ci)


def rank_run(
    run: Run | StoredRun,
    weights: Mapping[str, float] | None,
    filters: Filters | None = None,
    *,
    by_dataset: bool = False,
    by_variant: bool = False,
    average: str = "micro",
    ci: bool = True,
    best_value_points: float = BEST_VALUE_POINTS,
    basis: RankBasis | None = None,
    metric_set: MetricSet | None = None,
) -> pd.DataFrame:
    """A run's ranked leaderboard table: overall, per dataset with ``by_dataset``, or per variant (each case
    folder such as ``complete`` or ``vague``, across datasets; a ``variant`` column, micro average) with
    ``by_variant``.

    Args:
        run: a run read from a file, or a stored run.
        weights: name → weight, as a user gives them; checked here, before anything is computed.
        filters, by_dataset, average, ci: as for :func:`prepare_run`.
        best_value_points: how far below the top score a best-value row may be (default two points).
        basis: :func:`rank_basis_of` the run (None: it is worked out here, so every caller ranks alike): the
            overall table ranks by the judge's score corrected by people when it says so, each per-dataset table
            by its dataset's ratings where they cover every contender (a ``ranked_by`` column says which); the
            per-variant table keeps the judge's own.
        metric_set: the run's :func:`metric_set_of`, when the caller has it in hand (None: built here).

    Returns:
        The table of :func:`evalcore.analysis.ranking.leaderboard.leaderboard`, with ``pass_rate`` when a case declares
        minimum scores (:func:`evalcore.analysis.ranking.outcomes.with_pass_rate`).

    Raises:
        WeightsError: a weight cannot be used; EvalcoreError: a metadata filter on a key no case has.
    """
    metric_set = metric_set if metric_set is not None else metric_set_of(run)
    checked = validate_weights(weights, metric_set)
    if by_variant:
        return _rank_by_variant(run, metric_set, checked, filters, ci, best_value_points)
    prepared = prepare_run(run, metric_set, filters, by_dataset=by_dataset, average=average, ci=ci)
    basis = basis or rank_basis_of(run)
    if basis is not None:
        from evalcore.analysis.people.corrected import with_corrected, with_corrected_by_dataset

        prepared = (with_corrected_by_dataset if by_dataset else with_corrected)(prepared, basis, metric_set)
    ranked = finish(prepared, metric_set, checked, best_value_points, run_stops(run))
    return with_pass_rate(ranked, run, filters, by_dataset)


def rank_basis_of(run: Run | StoredRun) -> RankBasis | None:
    """What the run's leaderboard ranks its judged metric by, when its suite asked for the score corrected by
    people (:mod:`evalcore.analysis.people.corrected`); None when it did not. A stored run's results are read whole."""
    if header_of(run).info.settings.get(RANK_BY) != CORRECTED:
        return None
    from evalcore.analysis.people.corrected import rank_basis

    whole = run.store.load_run(run.id) if isinstance(run, StoredRun) else run
    return rank_basis(whole, whole.ratings)


def _rank_by_variant(
    run: Run | StoredRun,
    metric_set: MetricSet,
    weights: Mapping[str, float],
    filters: Filters | None,
    ci: bool,
    points: float,
) -> pd.DataFrame:
    """The leaderboard per variant (a case folder such as ``complete`` or ``vague``) across every dataset: the
    per-dataset table with each result grouped under its case's variant instead, in a ``variant`` column."""
    frame = frame_of(run)
    selected = select_results(frame, filters)
    # Filtered first (a --dataset filter still reads datasets), then each result grouped under its variant.
    regrouped = selected.assign(dataset=selected["variant"].astype(str))
    prepared = prepare(regrouped, metric_set, by=("contender", "dataset"), ci=ci)
    return finish(prepared, metric_set, weights, points).rename(columns={"dataset": "variant"})


def compare_run(run: Run | StoredRun, metric: str = "score", filters: Filters | None = None) -> pd.DataFrame:
    """:func:`evalcore.analysis.stats.significance.pairwise_significance` of a run's selected results.

    Raises:
        EvalcoreError: no such metric, or a metadata filter on a key no case has.
    """
    return pairwise_significance(select_results(frame_of(run), filters), metric=metric)
