"""From results to decisions: aggregation, weighted scores, ranking, intervals, charts and text tables.

- :mod:`~evalcore.analysis.weights`: parsing and validating weights, and each weight's real share.
- :mod:`~evalcore.analysis.leaderboard`: aggregate, weight, rank (``docs/run-file.md``, "Leaderboard semantics").
- :mod:`~evalcore.analysis.stats`: bootstrap intervals, P(best), pairwise tests, weight stability, Pareto front.
- :mod:`~evalcore.analysis.summaries`: a run's saved leaderboard summary, so a big run ranks without its results.
- :mod:`~evalcore.analysis.view`: the leaderboard as display-ready tables, with filters.
- :mod:`~evalcore.analysis.charts`: Plotly figures; :mod:`~evalcore.analysis.text`: tables as text, JSON, CSV, Markdown.

Pure functions over frames, no IO but the store's summaries. May import :mod:`evalcore.runfile`,
:mod:`evalcore.storage`, :mod:`evalcore.core` and :mod:`evalcore._util`; never a model.
"""

from evalcore._util.lazy import lazy_exports

_EXPORTS = {
    "aggregate": "leaderboard", "rank": "leaderboard", "leaderboard": "leaderboard",
    "parse_weights": "weights", "validate_weights": "weights", "weight_shares": "weights",
    "bootstrap": "stats", "pairwise": "stats", "weight_stability": "stats", "pareto_front": "stats",
    "Filters": "view", "leaderboard_view": "view",
}
__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
