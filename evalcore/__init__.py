"""evalcore: which model, prompt and settings should we ship?

Suites of cases on disk, lineups of models, concurrent runs, a SQLite history, run files, and
leaderboards with weighted scores and confidence intervals.

The public names below load on first use, so ``import evalcore`` (and so every ``evalcore`` command)
stays cheap: pandas comes in with the leaderboard, litellm only when a real model is called. The
``TYPE_CHECKING`` imports say the same to mypy and editors, which then see each name's real type.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalcore._util.lazy import lazy_exports
from evalcore.core.version import __version__

if TYPE_CHECKING:
    from evalcore.analysis.ranking.leaderboard import aggregate, rank
    from evalcore.analysis.ranking.pareto import pareto_front
    from evalcore.analysis.ranking.stability import weight_stability
    from evalcore.analysis.scores.weights import parse_weights, weight_shares
    from evalcore.analysis.stats.resampling import bootstrap
    from evalcore.analysis.stats.significance import pairwise_significance
    from evalcore.core.errors import CallFailed, ConfigError, EvalcoreError, RunFileError, StoreError, WeightsError
    from evalcore.core.records import Case, Contender, Metric, Result, Run
    from evalcore.execution.plan import Plan, RunOptions, make_plan
    from evalcore.execution.runner import Progress, execute_plan, resume_plan, run_suite, start_run
    from evalcore.models.registry import register_provider
    from evalcore.runfile.read import read_run_file
    from evalcore.runfile.write import write_run_file
    from evalcore.storage.frames import results_frame
    from evalcore.storage.store import Store
    from evalcore.suite.loader import Suite, load_suite

_EXPORTS = {
    "load_suite": "suite.loader",
    "Suite": "suite.loader",
    "make_plan": "execution.plan",
    "RunOptions": "execution.plan",
    "Plan": "execution.plan",
    "run_suite": "execution.runner",
    "execute_plan": "execution.runner",
    "resume_plan": "execution.runner",
    "start_run": "execution.runner",
    "Progress": "execution.runner",
    "Store": "storage.store",
    "read_run_file": "runfile.read",
    "write_run_file": "runfile.write",
    "results_frame": "storage.frames",
    "aggregate": "analysis.ranking.leaderboard",
    "rank": "analysis.ranking.leaderboard",
    "parse_weights": "analysis.scores.weights",
    "weight_shares": "analysis.scores.weights",
    "bootstrap": "analysis.stats.resampling",
    "pairwise_significance": "analysis.stats.significance",
    "weight_stability": "analysis.ranking.stability",
    "pareto_front": "analysis.ranking.pareto",
    "register_provider": "models.registry",
    "Case": "core.records",
    "Contender": "core.records",
    "Metric": "core.records",
    "Result": "core.records",
    "Run": "core.records",
    "EvalcoreError": "core.errors",
    "ConfigError": "core.errors",
    "RunFileError": "core.errors",
    "StoreError": "core.errors",
    "WeightsError": "core.errors",
    "CallFailed": "core.errors",
}

__all__ = [
    "CallFailed",
    "Case",
    "ConfigError",
    "Contender",
    "EvalcoreError",
    "Metric",
    "Plan",
    "Progress",
    "Result",
    "Run",
    "RunFileError",
    "RunOptions",
    "Store",
    "StoreError",
    "Suite",
    "WeightsError",
    "aggregate",
    "bootstrap",
    "execute_plan",
    "load_suite",
    "make_plan",
    "pairwise_significance",
    "pareto_front",
    "parse_weights",
    "rank",
    "read_run_file",
    "register_provider",
    "results_frame",
    "resume_plan",
    "run_suite",
    "start_run",
    "weight_shares",
    "weight_stability",
    "write_run_file",
    "__version__",
]

if not TYPE_CHECKING:  # hidden from mypy, which would otherwise type every unknown name as Any
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
