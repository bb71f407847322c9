"""evalcore: which model, prompt and settings should we ship?

Suites of cases on disk, lineups of models, concurrent runs, a SQLite history, run files, and
leaderboards with weighted scores and confidence intervals.

The public names below load on first use, so ``import evalcore`` stays cheap: pandas comes in
with the leaderboard, litellm only when a real model is called.
"""

from __future__ import annotations

import importlib
from typing import Any

from evalcore.core.version import __version__

_EXPORTS = {
    "load_suite": "evalcore.suite.loader",
    "Suite": "evalcore.suite.loader",
    "make_plan": "evalcore.execution.plan",
    "RunOptions": "evalcore.execution.plan",
    "Plan": "evalcore.execution.plan",
    "run_suite": "evalcore.execution.runner",
    "execute_plan": "evalcore.execution.runner",
    "resume_plan": "evalcore.execution.runner",
    "start_run": "evalcore.execution.runner",
    "Progress": "evalcore.execution.runner",
    "Store": "evalcore.storage.store",
    "read_run_file": "evalcore.runfile.read",
    "write_run_file": "evalcore.runfile.write",
    "results_frame": "evalcore.storage.frames",
    "aggregate": "evalcore.analysis.leaderboard",
    "rank": "evalcore.analysis.leaderboard",
    "parse_weights": "evalcore.analysis.weights",
    "weight_shares": "evalcore.analysis.weights",
    "bootstrap": "evalcore.analysis.resampling",
    "pairwise": "evalcore.analysis.significance",
    "weight_stability": "evalcore.analysis.stability",
    "pareto_front": "evalcore.analysis.pareto",
    "register_provider": "evalcore.models.registry",
    "Case": "evalcore.core.records",
    "Contender": "evalcore.core.records",
    "Metric": "evalcore.core.records",
    "Result": "evalcore.core.records",
    "Run": "evalcore.core.records",
    "EvalcoreError": "evalcore.core.errors",
    "ConfigError": "evalcore.core.errors",
    "RunFileError": "evalcore.core.errors",
    "StoreError": "evalcore.core.errors",
    "WeightsError": "evalcore.core.errors",
    "CallFailed": "evalcore.core.errors",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'evalcore' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value
