"""Runs that test a report's ranking at its edges: missing values, zero costs and a contender whose every
call failed. Shared by the report's unit, CLI and browser tests."""

from __future__ import annotations

from evalcore.core import records
from tests.factories import failed, make_run

#: Weights the edge run carries: every kind of name, both signs, the errors penalty on.
EDGE_WEIGHTS = {"score": 0.5, "hallucinated_rate": -0.2, "restraint": 0.1, "errors": -0.1, "cost": -0.3, "time": 0.2}


def edge_run(run_id: str = "run-edges") -> records.Run:
    """Six contenders on 12 cases across three datasets.

    Contender 0 costs nothing (every cost 0); contender 1 has no cost and no latency at all (null); contender
    2 never has a ``hallucinated_rate`` (null); contender 3 has one failed call (the errors penalty);
    contender 5 failed every call (no rank, no score).
    """
    run = make_run(6, 12, with_errors=False, run_id=run_id)
    ids = [c.id for c in run.contenders]
    for r in run.results:
        who = ids.index(r.contender)
        if who == 0:
            r.usage = records.Usage(r.usage.input_tokens, r.usage.output_tokens, 0.0)
        elif who == 1:
            r.usage = records.Usage(r.usage.input_tokens, r.usage.output_tokens, None)
            r.latency_s = None
        elif who == 2:
            r.metrics = {**r.metrics, "hallucinated_rate": None}
        elif who == 5:
            failed(r)
    first_of_3 = next(r for r in run.results if r.contender == ids[3])
    failed(first_of_3)
    run.info.weights = dict(EDGE_WEIGHTS)
    return run
