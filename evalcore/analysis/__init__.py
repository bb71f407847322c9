"""From results to decisions: aggregation, weighted scores, ranking, intervals, charts and text tables.

Six sub-packages, each importing only those listed before it (``tests/architecture`` keeps it so):

- :mod:`~evalcore.analysis.scores`: what a result counts for: which results count (``results``), how a number
  reads (``formats``), the weighted score (``weights``), the leaderboard's rules (``rules``), classification
  metrics (``classification``).
- :mod:`~evalcore.analysis.stats`: how sure we are: interval arithmetic (``intervals``), the bootstrap
  (``resampling``), paired differences and their tests (``paired``, ``paired_f1``, ``significance``), anytime-valid
  racing of adaptive runs (``racing``).
- :mod:`~evalcore.analysis.ranking`: who ranks where in one run: aggregate, weight, rank (``leaderboard``), how
  the winner hangs on the weights (``stability``), the Pareto front (``pareto``), pass rates (``outcomes``).
- :mod:`~evalcore.analysis.people`: what people and judges say: labels beside verdicts (``labels``), agreement
  (``agreement``, ``reliability``), win rates (``win_rates``), prediction-powered inference (``ppi``), people's
  ratings of a run (``human``), ranking by the judge corrected by people (``corrected``), a judge's cost
  (``judging``).
- :mod:`~evalcore.analysis.tables`: what a person reads of a run: the one way from a run to tables (``runs``),
  saved summaries (``summaries``), the app's view (``view``), text (``text``), charts (``charts``), the banner
  (``banner``), whether a run is whole (``completeness``).
- :mod:`~evalcore.analysis.decisions`: a candidate run against a base (``compare``, ``forest``,
  ``compare_text``) and whether it ships (``gate``, ``guardrails``).

Pure functions over frames, no IO but the store's summaries and results. May import :mod:`evalcore.runfile`,
:mod:`evalcore.storage`, :mod:`evalcore.core` and :mod:`evalcore._util`; never a model.
"""

from typing import TYPE_CHECKING

from evalcore._util.lazy import lazy_exports

if TYPE_CHECKING:
    from evalcore.analysis.ranking.leaderboard import aggregate, leaderboard, rank
    from evalcore.analysis.ranking.pareto import pareto_front
    from evalcore.analysis.ranking.stability import weight_stability
    from evalcore.analysis.scores.results import Filters, select_results
    from evalcore.analysis.scores.weights import parse_weights, validate_weights, weight_shares
    from evalcore.analysis.stats.resampling import bootstrap
    from evalcore.analysis.stats.significance import pairwise_significance
    from evalcore.analysis.tables.runs import StoredRun, rank_run
    from evalcore.analysis.tables.view import leaderboard_view


_EXPORTS = {
    "aggregate": "ranking.leaderboard",
    "rank": "ranking.leaderboard",
    "leaderboard": "ranking.leaderboard",
    "parse_weights": "scores.weights",
    "validate_weights": "scores.weights",
    "weight_shares": "scores.weights",
    "Filters": "scores.results",
    "select_results": "scores.results",
    "bootstrap": "stats.resampling",
    "pairwise_significance": "stats.significance",
    "weight_stability": "ranking.stability",
    "pareto_front": "ranking.pareto",
    "leaderboard_view": "tables.view",
    "StoredRun": "tables.runs",
    "rank_run": "tables.runs",
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
