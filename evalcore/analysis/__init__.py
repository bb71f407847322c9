"""From results to decisions: aggregation, weighted scores, ranking, intervals, charts and text tables.

- :mod:`~evalcore.analysis.formats`: how one number reads (%, USD, seconds).
- :mod:`~evalcore.analysis.intervals`: interval arithmetic: percentile and BCa intervals, the expanded level,
  the closed-form interval of a proportion.
- :mod:`~evalcore.analysis.rules`: the leaderboard's numbers (errors penalty, best-value points, log scale, ties),
  named once for Python, the CLI and the report's JavaScript.
- :mod:`~evalcore.analysis.weights`: the weighted score: weights parsed, checked and their real shares, and the
  spec's wscore and ranking order on arrays.
- :mod:`~evalcore.analysis.resampling`: the bootstrap: cases drawn with replacement, intervals and P(best).
- :mod:`~evalcore.analysis.paired`: paired differences, their intervals and p-values, on plain arrays;
  :mod:`~evalcore.analysis.racing`: anytime-valid tests of paired differences for adaptive runs.
- :mod:`~evalcore.analysis.results`: which results count (:class:`Filters`) and what each one brings.
- :mod:`~evalcore.analysis.stability`: how often each contender ranks first when the weights wobble.
- :mod:`~evalcore.analysis.leaderboard`: aggregate, weight, rank (``docs/run-file.md``, "Leaderboard semantics").
- :mod:`~evalcore.analysis.significance`: every pair of a run's contenders compared, by
  :mod:`~evalcore.analysis.paired`'s tests.
- :mod:`~evalcore.analysis.compare`: a candidate run against a base run; :mod:`~evalcore.analysis.gate`: its verdict.
- :mod:`~evalcore.analysis.pareto`: the Pareto front of score against cost or time.
- :mod:`~evalcore.analysis.banner`: the banner's sentences (winner, how sure, why, best value), written once.
- :mod:`~evalcore.analysis.text`: tables as text, JSON, CSV, Markdown; :mod:`~evalcore.analysis.charts`: Plotly figures.
- :mod:`~evalcore.analysis.view`: the leaderboard as display-ready tables, with filters.
- :mod:`~evalcore.analysis.summaries`: a run's saved leaderboard summary, so a big run ranks without its results.
- :mod:`~evalcore.analysis.runs`: a run's leaderboard, whether the run comes from a file or a store
  (:class:`~evalcore.storage.history.StoredRun`): the one way through.
- :mod:`~evalcore.analysis.labels`: human labels and judge verdicts side by side, from a file or a run;
  :mod:`~evalcore.analysis.agreement`: how well they agree (accuracy, kappa, correlations, intervals).
- :mod:`~evalcore.analysis.judging`: what an LLM judge cost per contender, apart from the contenders' cost.
- :mod:`~evalcore.analysis.win_rates`: a pairwise judge's verdicts as win rates with intervals and a
  Bradley–Terry ranking (not :func:`~evalcore.analysis.significance.pairwise_significance`, which compares scores).

Listed from the bottom up. Pure functions over frames, no IO but the store's
summaries and results. May import :mod:`evalcore.runfile`, :mod:`evalcore.storage`, :mod:`evalcore.core`
and :mod:`evalcore._util`; never a model.
"""

from typing import TYPE_CHECKING

from evalcore._util.lazy import lazy_exports

if TYPE_CHECKING:
    from evalcore.analysis.leaderboard import aggregate, leaderboard, rank
    from evalcore.analysis.pareto import pareto_front
    from evalcore.analysis.resampling import bootstrap
    from evalcore.analysis.results import Filters, select_results
    from evalcore.analysis.runs import StoredRun, rank_run
    from evalcore.analysis.significance import pairwise_significance
    from evalcore.analysis.stability import weight_stability
    from evalcore.analysis.view import leaderboard_view
    from evalcore.analysis.weights import parse_weights, validate_weights, weight_shares


_EXPORTS = {
    "aggregate": "leaderboard",
    "rank": "leaderboard",
    "leaderboard": "leaderboard",
    "parse_weights": "weights",
    "validate_weights": "weights",
    "weight_shares": "weights",
    "Filters": "results",
    "select_results": "results",
    "bootstrap": "resampling",
    "pairwise_significance": "significance",
    "weight_stability": "stability",
    "pareto_front": "pareto",
    "leaderboard_view": "view",
    "StoredRun": "runs",
    "rank_run": "runs",
}
__all__ = [
    "Filters",
    "StoredRun",
    "aggregate",
    "bootstrap",
    "leaderboard",
    "leaderboard_view",
    "pairwise_significance",
    "pareto_front",
    "parse_weights",
    "rank",
    "rank_run",
    "select_results",
    "validate_weights",
    "weight_shares",
    "weight_stability",
]
if not TYPE_CHECKING:  # hidden from mypy, which would otherwise type every unknown name as Any
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
