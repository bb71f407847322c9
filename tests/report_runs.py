"""Runs that test a report's ranking at its edges: missing values, zero costs, a contender whose every
call failed, and an adaptive run's stopped contenders. Shared by the report's unit, CLI and browser tests."""

from __future__ import annotations

from evalcore.analysis.stats.racing import CASES_RAN_OUT, METHOD, SETTING
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


#: The contenders :func:`adaptive_run`'s race stopped, by place in its lineup, and after how many of its 60 cases.
ADAPTIVE_STOPS = {2: 40, 3: 20}


def adaptive_run(run_id: str = "run-adaptive") -> records.Run:
    """An adaptive run: four contenders over 60 cases, the race stopped contender 2 after 40 cases and
    contender 3 after 20, both behind contender 0, and recorded it in the run's settings as a race does.

    Contender 3 answered every one of its 20 cases right: by the spec's ranking alone it would be first.
    """
    run = make_run(4, 60, with_errors=False, run_id=run_id)
    ids = [c.id for c in run.contenders]
    answered = {ids[i]: n for i, n in ADAPTIVE_STOPS.items()}
    run.results = [r for r in run.results if int(r.case.rsplit("/", 1)[1]) < answered.get(r.contender, 60)]
    for r in run.results:
        if r.contender == ids[3]:
            r.score = 1.0
            r.metrics = {**r.metrics, "field_accuracy": 1.0, "exact_match": 1.0}
    stops = [
        {"contender": ids[i], "after_cases": n, "of_cases": 60, "answered": n, "behind": ids[0], "by_at_least": 4.5}
        for i, n in ADAPTIVE_STOPS.items()
    ]
    race = {"confidence": 0.95, "margin": 0.0, "seed": 1, "round": 20, "method": METHOD, "stops": stops}
    run.info.settings = {**run.info.settings, SETTING: {**race, "ended": CASES_RAN_OUT, "ended_after_cases": 60}}
    return run
