"""The records a run file's validated entries hold: a model of :mod:`evalcore.runfile.models`, or its struct
(:mod:`evalcore.runfile._structs`), made into the engine's :mod:`evalcore.core.records`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from evalcore.core import records
from evalcore.runfile.models import ContenderEntry, MetricEntry, RefusalEntry, RunEntry


def run_of(
    run: RunEntry,
    metrics: Iterable[MetricEntry],
    contenders: Iterable[ContenderEntry],
    cases: list[records.Case],
    results: list[records.Result],
    refused: Iterable[RefusalEntry],
    pairwise: list[records.PairVerdict],
    ratings: list[records.Rating],
) -> records.Run:
    """The run that a file's validated entries hold (its cases, results, verdicts and ratings already records)."""
    info = records.RunInfo(
        id=run.id,
        suite=run.suite,
        created_at=run.created_at,
        finished_at=run.finished_at,
        status=run.status,
        weights=dict(run.weights),
        settings=run.settings,
        provenance=run.provenance.model_dump(),
    )
    return records.Run(
        info=info,
        metrics=[records.Metric(m.name, m.description, m.higher_is_better, m.primary) for m in metrics],
        contenders=[records.Contender(c.id, c.model, c.settings) for c in contenders],
        cases=cases,
        results=results,
        refused=[records.Refusal(x.model, x.settings, x.reason) for x in refused],
        pairwise=pairwise,
        ratings=ratings,
    )


def case_of(x: Any) -> records.Case:
    """The record of a validated case entry (a :class:`CaseEntry` or its struct)."""
    return records.Case(x.dataset, x.id, x.variant, x.input, x.expected, x.metadata)


def result_of(x: Any, contender: str, dataset: str, case: str) -> records.Result:
    """The record of a validated result entry (a :class:`ResultEntry` or its struct), naming its contender and
    case with the strings given: a reader passes one shared copy of each per run."""
    error, usage = x.error, x.usage
    return records.Result(
        contender,
        dataset,
        case,
        x.sample,
        x.status,
        x.score,
        metrics=x.metrics,
        output=x.output,
        raw=x.raw,
        error=None if error is None else records.ErrorInfo(error.kind, error.message),
        diagnostics=x.diagnostics,
        usage=records.Usage(usage.input_tokens, usage.output_tokens, usage.cost_usd),
        latency_s=x.latency_s,
        attempts=x.attempts,
        started_at=x.started_at,
        trace=getattr(x, "trace", None),
    )
