"""Ranking by the judge's score corrected by people, when a suite asks for it (``weighted_score.rank_by:
corrected``, recorded in the run's ``settings`` as ``rank_by``).

The leaderboard then ranks by each contender's judged metric as :func:`~evalcore.analysis.people.human.corrected_scores`
estimates it (prediction-powered, from people's ratings of randomly drawn replies) in place of the judge's own
mean. Only when every scored contender has rated replies: a ranking in which some contenders are corrected and
others not would compare two different scales. The overall table reads every rating; each per-dataset table
reads the ratings of its dataset only, by the same rule (:func:`with_corrected_by_dataset`), and where they do
not cover every contender of the dataset, its ``ranked_by`` column says the table kept the judge's own score.

The intervals stay the bootstrap's, so P(best), the weighted score's interval and the metric's agree: each
resample's value of the metric is moved by the correction, plus a normal draw with the variance the people's
ratings add (the corrected interval's variance minus the judge's own), so the metric's interval is as wide as
the prediction-powered one and the weighted score carries the judge's measured error. Each moved resample is
clipped to [0, 1], where metric values lie, so no interval shown reaches outside it.

Pure functions: records and tables in, tables out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from evalcore.analysis.people.human import corrected_scores, judged_metric
from evalcore.analysis.people.ppi import CorrectedMean
from evalcore.analysis.ranking.leaderboard import RANKED_BY, Prepared, PreparedView
from evalcore.analysis.stats.resampling import Resampled
from evalcore.core.records import CORRECTED, RANK_BY, Rating, Run

if TYPE_CHECKING:
    from evalcore.core.metric_set import MetricSet

__all__ = [
    "CORRECTED",
    "RANK_BY",
    "RankBasis",
    "asks_corrected",
    "rank_basis",
    "with_corrected",
    "with_corrected_by_dataset",
    "with_corrected_view",
]

#: What a per-dataset table's ``ranked_by`` column says of a row: ranked by the corrected score, or the judge's own.
BY_PEOPLE, BY_JUDGE = "corrected by people", "judge's own"


@dataclass
class RankBasis:
    """What a leaderboard that was asked to rank by the corrected score ranks by, and why.

    Attributes:
        metric: the judged metric (None: the run has none).
        applied: the corrected values replace the judge's (every scored contender has rated replies).
        corrected: per contender, the corrected mean (:class:`~evalcore.analysis.people.ppi.CorrectedMean`).
        note: one sentence for the page: which score the leaderboard ranked by.
        by_dataset: per dataset, what its table ranks by, from the ratings of that dataset alone.
    """

    metric: str | None
    applied: bool
    note: str
    corrected: dict[str, CorrectedMean] = field(default_factory=dict)
    by_dataset: dict[str, RankBasis] = field(default_factory=dict)


def asks_corrected(run: Run) -> bool:
    """Whether the run's suite asked to rank by the judge's score corrected by people."""
    return run.info.settings.get(RANK_BY) == CORRECTED


def rank_basis(run: Run, ratings: Sequence[Rating]) -> RankBasis:
    """What the leaderboard of ``run`` (with its results) ranks by, given people's ``ratings`` of it: overall, and
    per dataset from the ratings of each dataset (:attr:`RankBasis.by_dataset`)."""
    basis = _basis(run, ratings)
    if basis.metric is not None:
        for dataset in dict.fromkeys(r.dataset for r in run.results):
            part = dataclasses.replace(run, results=[r for r in run.results if r.dataset == dataset])
            basis.by_dataset[dataset] = _basis(part, [r for r in ratings if r.dataset == dataset])
    return basis


def _basis(run: Run, ratings: Sequence[Rating]) -> RankBasis:
    metric = judged_metric(run)
    asked = "the suite asks to rank by the judge's score corrected by people (weighted_score.rank_by)"
    if metric is None:
        return RankBasis(None, False, f"Ranked as judged: {asked}, but this run has no judged metric.")
    own = f"ranked by the judge's own {metric}"
    singles = [r for r in ratings if r.b is None]
    corrected = corrected_scores(run, singles, metric) if singles else {}
    scored = list(dict.fromkeys(r.contender for r in run.results if r.status == "scored"))
    missing = [c for c in scored if c not in corrected]
    if not corrected:
        note = f"{asked[0].upper()}{asked[1:]}, but no one has rated single replies of this run yet: {own}."
        return RankBasis(metric, False, note)
    if missing:
        note = f"{asked[0].upper()}{asked[1:]}, but {', '.join(missing)} has no randomly drawn rated reply: {own}."
        return RankBasis(metric, False, note, corrected)
    rated = sum(m.rated for m in corrected.values())
    note = (
        f"Ranked by {metric} corrected by people ({rated} rated replies, prediction-powered), as the suite asks "
        "(weighted_score.rank_by); its interval carries the judge's measured error. Per dataset: by the ratings "
        "of that dataset, where they cover every contender (the ranked by column says)."
    )
    return RankBasis(metric, True, note, corrected)


def with_corrected(prepared: Prepared, basis: RankBasis, metric_set: MetricSet, seed: int = 0) -> Prepared:
    """``prepared`` (an overall table) with the judged metric's values replaced by the corrected ones, and its
    resamples moved to match (see the module docstring); ``prepared`` itself is left as it was."""
    if not basis.applied or basis.metric is None:
        return prepared
    names = [basis.metric] + (["score"] if metric_set.primary == basis.metric else [])
    table = prepared.table.copy()
    known = table["contender"].isin(list(basis.corrected)).to_numpy()
    judged = dict(zip(table["contender"], table[basis.metric], strict=True))
    shift = {c: m.value - float(judged[c]) for c, m in basis.corrected.items() if c in judged}
    for name in names:
        table.loc[known, name] = [basis.corrected[c].value for c in table.loc[known, "contender"]]
    resampled = [(where, _moved(r, names, shift, basis.corrected, seed)) for where, r in prepared.resampled]
    return Prepared(table, resampled)


def _moved(
    resampled: Resampled, names: list[str], shift: dict[str, float], corrected: dict[str, CorrectedMean], seed: int
) -> Resampled:
    rng = np.random.default_rng(seed)
    tables, binomial = dict(resampled.tables), dict(resampled.binomial)
    first = tables[names[0]]
    noise = np.zeros_like(first)
    for j, contender in enumerate(resampled.contenders):
        m = corrected.get(str(contender))
        if m is None or str(contender) not in shift:
            continue
        # The standard errors, not the shown ends: those are clipped to [0, 1], which would shrink them.
        extra = float(np.sqrt(max(m.se**2 - m.judge_se**2, 0.0)))
        noise[:, j] = shift[str(contender)] + rng.normal(0.0, extra, len(first))
    # Where the corrected interval is the boundary rule's (no spread among the rated items: se 0), no noise
    # reproduces it; the table shows it as it is, over the rated items, not the bootstrap's over every case.
    ruled = np.full((2, len(resampled.contenders)), np.nan)
    for j, contender in enumerate(resampled.contenders):
        m = corrected.get(str(contender))
        if m is not None and str(contender) in shift and m.se == 0 and m.rated > 0:
            ruled[:, j] = m.low, m.high
    for name in names:
        # Metric values lie in [0, 1]; clipping each resample clips the interval read from them, as a
        # percentile of clipped values is the clipped percentile.
        tables[name] = np.clip(tables[name] + noise, 0.0, 1.0)
        # The corrected values are not shares: their interval is the bootstrap's, or the boundary rule's.
        binomial[name] = ruled.copy()
    return dataclasses.replace(resampled, tables=tables, binomial=binomial)


def with_corrected_by_dataset(prepared: Prepared, basis: RankBasis, metric_set: MetricSet, seed: int = 0) -> Prepared:
    """``prepared`` (a per-dataset table) with each dataset's judged metric corrected as :func:`with_corrected`
    corrects the overall one, from the ratings of that dataset (:attr:`RankBasis.by_dataset`), and a
    ``ranked_by`` column saying for each row whether it ranked by the corrected score or, where that
    dataset's ratings do not cover every scored contender of it, by the judge's own."""
    if basis.metric is None:
        return prepared
    table = prepared.table.copy()
    table[RANKED_BY] = BY_JUDGE
    resampled = dict(prepared.resampled)
    for dataset, rows in table.groupby("dataset", sort=False).groups.items():
        part = basis.by_dataset.get(str(dataset))
        if part is None or not part.applied:
            continue
        own = [(dataset, resampled[dataset])] if dataset in resampled else []
        fixed = with_corrected(Prepared(table.loc[rows], own), part, metric_set, seed)
        table.loc[rows, fixed.table.columns] = fixed.table
        table.loc[rows, RANKED_BY] = BY_PEOPLE
        resampled.update(fixed.resampled)
    return Prepared(table, [(name, resampled[name]) for name, _ in prepared.resampled])


def with_corrected_view(prepared: PreparedView, basis: RankBasis | None, metric_set: MetricSet) -> PreparedView:
    """``prepared`` (a leaderboard's overall and per-dataset tables) ranked by what ``basis`` says: the overall
    table by :func:`with_corrected`, the per-dataset one by :func:`with_corrected_by_dataset`. ``basis`` None
    (the suite did not ask): ``prepared`` as it is. The app's leaderboard and the report both rank through here."""
    if basis is None:
        return prepared
    return dataclasses.replace(
        prepared,
        overall=with_corrected(prepared.overall, basis, metric_set),
        by_dataset=with_corrected_by_dataset(prepared.by_dataset, basis, metric_set),
    )
