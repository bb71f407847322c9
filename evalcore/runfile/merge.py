"""Merging runs over the same cases into one run, so their contenders share one leaderboard.

A promptfoo run of one model and an Inspect run of another can be ranked together when they answered the
same questions: :func:`merge_runs` keeps the cases every run has (matched by dataset and id, or by id
alone when the runs name their datasets differently), takes the contenders of all, and lists the cases
that were left out. A contender id that two runs share is told apart by the run it came from.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from evalcore.core import records
from evalcore.core.errors import EvalcoreError
from evalcore.core.metric_set import MetricSet
from evalcore.core.version import __version__
from evalcore.runfile.importers import _common as common
from evalcore.runfile.importers.load import source_label

#: The order of run statuses from best to worst: the merged run takes the worst.
_STATUS_ORDER: tuple[records.RunStatus, ...] = ("completed", "interrupted", "running", "failed")


@dataclass
class Merged:
    """A merged run and what it left out."""

    run: records.Run
    """The merged run."""
    unmatched: list[tuple[str, str, str]] = field(default_factory=list)
    """``(run id, dataset, case id)`` of each case that some run lacks, left out of the merged run."""
    renamed: dict[tuple[str, str], str] = field(default_factory=dict)
    """``(run id, contender id)`` → the id it has in the merged run, for each contender renamed."""


def merge_runs(runs: Sequence[records.Run], *, by_id: bool = False, run_id: str | None = None) -> Merged:
    """Merge runs into one: their common cases, all their contenders, the first run's metrics first.

    Args:
        runs: two or more runs, with their cases and results.
        by_id: match cases by id alone (the first run's dataset names are kept), for runs whose tools named
            the dataset differently.
        run_id: the merged run's id; by default one made from the runs' ids, so merging the same runs
            again gives the same id.

    Returns:
        The merged run, the cases left out and the contenders renamed.

    Raises:
        EvalcoreError: fewer than two runs, a run given twice, or no case common to all of them.
    """
    if len(runs) < 2:
        raise EvalcoreError("merge needs at least two runs")
    ids = [r.info.id for r in runs]
    if len(set(ids)) < len(ids):
        raise EvalcoreError(f"merge: a run is given twice ({', '.join(ids)})")
    matched = set.intersection(*({_key(c, by_id) for c in r.cases} for r in runs))
    if not matched:
        how = "id" if by_id else "dataset and id"
        hint = "" if by_id else "; if the tools named the dataset differently, match by id alone (--by-id)"
        raise EvalcoreError(f"merge: the runs share no case (matched by {how}){hint}")
    first = runs[0]
    cases = [c for c in first.cases if _key(c, by_id) in matched]
    where = {_key(c, by_id): c for c in cases}
    unmatched = [(r.info.id, c.dataset, c.id) for r in runs for c in r.cases if _key(c, by_id) not in matched]
    metrics = _metrics(runs)
    primary = next(m.name for m in metrics if m.primary)
    contenders: list[records.Contender] = []
    renamed: dict[tuple[str, str], str] = {}
    taken: set[str] = set()
    results: list[records.Result] = []
    verdicts: list[records.PairVerdict] = []
    ratings: list[records.Rating] = []
    for run in runs:
        names = {}
        for c in run.contenders:
            new = c.id if c.id not in taken else f"{c.id} · {source_label(run) or 'run'} {run.info.id[:12]}"
            new = common.unique(new, taken)
            if new != c.id:
                renamed[(run.info.id, c.id)] = new
            names[c.id] = new
            contenders.append(records.Contender(new, c.model, dict(c.settings)))
        for r in run.results:
            case = where.get(_key_of(r.dataset, r.case, by_id))
            if case is not None:
                results.append(_moved(r, names[r.contender], case, primary))
        # A run's pairwise verdicts and people's ratings are of its own contenders: they keep their meaning under
        # new names.
        for v in run.pairwise:
            case = where.get(_key_of(v.dataset, v.case, by_id))
            if case is not None:
                verdicts.append(dataclasses.replace(v, dataset=case.dataset, case=case.id, a=names[v.a], b=names[v.b]))
        for x in run.ratings:
            case = where.get(_key_of(x.dataset, x.case, by_id))
            if case is not None:
                b = names[x.b] if x.b is not None else None
                ratings.append(dataclasses.replace(x, dataset=case.dataset, case=case.id, a=names[x.a], b=b))
    info = _info(runs, cases, metrics, by_id, run_id, unmatched)
    refused = [x for r in runs for x in r.refused]
    merged = records.Run(info, metrics, contenders, cases, results, refused, pairwise=verdicts, ratings=ratings)
    common.sort_results(merged)
    info.provenance = _provenance(runs, merged)
    return Merged(merged, unmatched, renamed)


def _key(case: records.Case, by_id: bool) -> tuple[str, ...]:
    return _key_of(case.dataset, case.id, by_id)


def _key_of(dataset: str, case_id: str, by_id: bool) -> tuple[str, ...]:
    return (case_id,) if by_id else (dataset, case_id)


def _metrics(runs: Sequence[records.Run]) -> list[records.Metric]:
    """Every run's metrics, each name once (its first definition); the first run's primary stays primary."""
    seen: dict[str, records.Metric] = {}
    for i, run in enumerate(runs):
        for m in run.metrics:
            if m.name not in seen:
                seen[m.name] = records.Metric(m.name, m.description, m.higher_is_better, m.primary and i == 0)
    return list(seen.values())


def _moved(r: records.Result, contender: str, case: records.Case, primary: str) -> records.Result:
    """A result under its merged contender and case; its score is the merged primary metric's value when it
    has one, else its own run's primary value."""
    metrics = dict(r.metrics)
    score = r.score
    if r.status == "scored" and primary in metrics:
        if metrics[primary] is None:
            del metrics[primary]  # absent and null both mean "does not apply"; a scored result keeps a score
        else:
            score = metrics[primary]
    return records.Result(
        contender=contender,
        dataset=case.dataset,
        case=case.id,
        sample=r.sample,
        status=r.status,
        score=score,
        metrics=metrics,
        output=r.output,
        raw=r.raw,
        error=r.error,
        diagnostics=r.diagnostics,
        usage=records.Usage(r.usage.input_tokens, r.usage.output_tokens, r.usage.cost_usd),
        latency_s=r.latency_s,
        attempts=r.attempts,
        started_at=r.started_at,
    )


def _info(
    runs: Sequence[records.Run],
    cases: list[records.Case],
    metrics: list[records.Metric],
    by_id: bool,
    run_id: str | None,
    unmatched: list[tuple[str, str, str]],
) -> records.RunInfo:
    ids = [r.info.id for r in runs]
    status = max((r.info.status for r in runs), key=_STATUS_ORDER.index)
    finished = [r.info.finished_at for r in runs]
    allowed = set(MetricSet.of(metrics).weightable)
    suites = list(dict.fromkeys(r.info.suite for r in runs))
    left_out: dict[str, int] = {}
    for rid, _, _ in unmatched:
        left_out[rid] = left_out.get(rid, 0) + 1
    return records.RunInfo(
        id=run_id or f"merge-{common.digest_of([ids, by_id])[:16]}",
        suite=" + ".join(suites),
        created_at=min(r.info.created_at for r in runs),
        finished_at=max(f for f in finished if f) if status in ("completed", "failed") and all(finished) else None,
        status=status,
        weights={k: v for k, v in runs[0].info.weights.items() if k in allowed},
        settings={"merge": {"runs": ids, "by_id": by_id, "cases": len(cases), "left_out": left_out}},
    )


def _provenance(runs: Sequence[records.Run], merged: records.Run) -> dict[str, Any]:
    stamp = common.Stamp("evalcore", __version__, "merge", "", "", None, common.now())
    provenance = common.provenance(stamp, merged, None, {})
    provenance.pop("source")
    provenance["merged_from"] = [
        {"id": r.info.id, "suite": r.info.suite, "tool": r.info.provenance.get("tool"), "status": r.info.status}
        for r in runs
    ]
    return provenance
