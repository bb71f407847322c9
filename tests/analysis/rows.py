"""Results frames and aggregated tables built by hand, for the resampling, significance, stability and
Pareto tests."""

from __future__ import annotations

import math

import pandas as pd

from evalcore.core.records import Metric

METRICS = [
    Metric("field_accuracy", "Share of fields right.", higher_is_better=True, primary=True),
    Metric("hallucinated_rate", "Share of fields invented.", higher_is_better=False),
]
NAN = float("nan")


def result(contender, case, score=1.0, *, dataset="d", error=False, cost=0.001, sample=0, hallucinated=0.0):
    """One row of a results frame; an error gets null score and metrics."""
    return {
        "contender": contender,
        "dataset": dataset,
        "case": case,
        "variant": "plain",
        "sample": sample,
        "status": "error" if error else "scored",
        "error_kind": "timeout" if error else None,
        "score": NAN if error else score,
        "m_field_accuracy": NAN if error else score,
        "m_hallucinated_rate": NAN if error else hallucinated,
        "cost_usd": cost,
        "latency_s": 1.0,
        "input_tokens": 10.0,
        "output_tokens": 5.0,
    }


def frame(scores: dict[str, list[float]], **kwargs) -> pd.DataFrame:
    """One result per contender and case; NaN in the list means an error."""
    return pd.DataFrame(
        [
            result(c, f"{i:03d}", s, error=math.isnan(s), **kwargs)
            for c, values in scores.items()
            for i, s in enumerate(values)
        ]
    )


def table(*rows) -> pd.DataFrame:
    """An overall table, one row per dict, each overriding plain defaults."""
    defaults = {
        "cases": 1,
        "scored": 1,
        "errors": 0,
        "score": 0.5,
        "field_accuracy": 0.5,
        "hallucinated_rate": 0.0,
        "cost": 0.01,
        "time": 1.0,
    }
    return pd.DataFrame([{**defaults, **row} for row in rows])
