"""evalcore: which model, prompt and settings should we ship?

Suites of cases on disk, lineups of models, concurrent runs, a SQLite history, run files, and
leaderboards with weighted scores and confidence intervals.

The public names below load on first use, so ``import evalcore`` stays cheap: pandas comes in
with the leaderboard, litellm only when a real model is called.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "load_suite": "evalcore.suite",
    "Suite": "evalcore.suite",
    "make_plan": "evalcore.plan",
    "RunOptions": "evalcore.plan",
    "Plan": "evalcore.plan",
    "run_suite": "evalcore.runner",
    "execute_plan": "evalcore.runner",
    "resume_plan": "evalcore.runner",
    "start_run": "evalcore.runner",
    "Progress": "evalcore.runner",
    "Store": "evalcore.store",
    "read_run_file": "evalcore.runfile",
    "write_run_file": "evalcore.runfile",
    "results_frame": "evalcore.frames",
    "aggregate": "evalcore.leaderboard",
    "rank": "evalcore.leaderboard",
    "parse_weights": "evalcore.leaderboard",
    "weight_shares": "evalcore.leaderboard",
    "bootstrap": "evalcore.stats",
    "pairwise": "evalcore.stats",
    "weight_stability": "evalcore.stats",
    "pareto_front": "evalcore.stats",
    "register_provider": "evalcore.providers",
    "Case": "evalcore.records",
    "Contender": "evalcore.records",
    "Metric": "evalcore.records",
    "Result": "evalcore.records",
    "Run": "evalcore.records",
    "EvalcoreError": "evalcore.errors",
    "ConfigError": "evalcore.errors",
    "RunFileError": "evalcore.errors",
    "StoreError": "evalcore.errors",
    "WeightsError": "evalcore.errors",
    "CallFailed": "evalcore.errors",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'evalcore' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value
