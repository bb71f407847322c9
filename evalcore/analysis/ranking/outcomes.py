"""Per-case outcomes against a case's ``minimum_scores``, and each contender's ``pass_rate``.

A case that declares ``minimum_scores: {metric: floor}`` gets, per contender, one outcome:

- ``passed``: every named metric's mean over the case's scored samples is at least its floor;
- ``failed``: a named metric's mean is below its floor;
- ``error``: no sample was scored, and at least one failed (its call, its parsing);
- ``not_evaluated``: scored, but a named metric has no value (its scorer computed none) and none fell
  below its floor: never counted as passed.

``pass_rate`` = passed / (passed + failed + error): an error is a case that did not pass, a case not
evaluated does not count. It is null for a contender with no such case. A case without ``minimum_scores``
has no outcome. It is a leaderboard column beside the ranking, never part of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from evalcore.analysis.scores.results import Filters
from evalcore.core.records import Run
from evalcore.storage.frames import ResultColumns
from evalcore.storage.history import StoredRun, columns_of
from evalcore.storage.lookup import cases_with_metadata_key
from evalcore.suite.cases import MINIMUM_SCORES

PASSED, FAILED, ERROR, NOT_EVALUATED = "passed", "failed", "error", "not_evaluated"
OUTCOMES = (PASSED, FAILED, ERROR, NOT_EVALUATED)
#: A mean this far below its floor is float noise, not a miss.
TOLERANCE = 1e-9


@dataclass(frozen=True)
class CaseOutcome:
    """One contender's outcome on one case with minimum scores."""

    contender: str
    dataset: str
    case: str
    outcome: str


def minimum_scores_of(run: Run | StoredRun, filters: Filters | None = None) -> dict[tuple[str, str], dict[str, float]]:
    """The minimum scores of each case of a run that declares them (and passes the dataset, variant and metadata
    filters), by (dataset, case id)."""
    if isinstance(run, StoredRun):
        # Only the cases that declare them are read: a big run's inputs stay in the store.
        cases = cases_with_metadata_key(run.store, run.id, MINIMUM_SCORES)
    else:
        cases = [(c.dataset, c.id, c.variant, c.metadata) for c in run.cases if MINIMUM_SCORES in c.metadata]
    return {
        (dataset, case): metadata[MINIMUM_SCORES]
        for dataset, case, variant, metadata in cases
        if filters is None or _kept(dataset, case, variant, metadata, filters)
    }


def _kept(dataset: str, case: str, variant: str, metadata: Mapping[str, Any], filters: Filters) -> bool:
    if (dataset, case) in filters.exclude_cases:
        return False
    if filters.datasets and dataset not in filters.datasets:
        return False
    if filters.variants and variant not in filters.variants:
        return False
    return all(str(metadata.get(key)) in map(str, values) for key, values in filters.metadata.items())


@dataclass(frozen=True)
class PassRates:
    """Each contender's ``pass_rate``, overall (keyed ``(contender,)``) and per dataset (``(contender, dataset)``):
    every surface reads one of these, so the CLI, the app and the report show the same number."""

    overall: dict[tuple[str, ...], float]
    by_dataset: dict[tuple[str, ...], float]


def pass_rates_of(run: Run | StoredRun, filters: Filters | None = None) -> PassRates | None:
    """The run's pass rates under ``filters``, or None when no case it keeps declares minimum scores."""
    floors = minimum_scores_of(run, filters)
    if not floors:
        return None
    outcomes = case_outcomes(run, floors)
    return PassRates(pass_rates(outcomes), pass_rates(outcomes, by_dataset=True))


def with_pass_rate(
    table: pd.DataFrame, run: Run | StoredRun, filters: Filters | None = None, by_dataset: bool = False
) -> pd.DataFrame:
    """A ranked leaderboard with a ``pass_rate`` column (null where a row has no evaluated case) when a case of
    the run declares minimum scores; else the table as it is. The rows' order and ranks do not change."""
    return add_pass_rate(table, pass_rates_of(run, filters), by_dataset)


def add_pass_rate(table: pd.DataFrame, rates: PassRates | None, by_dataset: bool = False) -> pd.DataFrame:
    """The table with its rows' ``pass_rate`` from ``rates`` (:func:`pass_rates_of`); as it is when None."""
    if rates is None:
        return table
    keys, found = (["contender", "dataset"], rates.by_dataset) if by_dataset else (["contender"], rates.overall)
    rows = table[keys].itertuples(index=False, name=None)
    return table.assign(pass_rate=[found.get(tuple(row), float("nan")) for row in rows])


def case_outcomes(run: Run | StoredRun, floors: Mapping[tuple[str, str], Mapping[str, float]]) -> list[CaseOutcome]:
    """Every contender's outcome on every case of ``floors`` it has a result for (see the module docstring)."""
    if not floors:
        return []
    columns = columns_of(run)
    position = {key: i for i, key in enumerate(columns.cases)}
    wanted = np.asarray([position[k] for k in floors if k in position], dtype=np.int64)
    rows_of: dict[tuple[int, int], list[int]] = {}
    for row in np.flatnonzero(np.isin(columns.case, wanted)).tolist():
        rows_of.setdefault((int(columns.contender[row]), int(columns.case[row])), []).append(row)
    found = []
    for (ci, at), rows in sorted(rows_of.items()):
        key = columns.cases[at]
        outcome = _outcome(columns, np.asarray(rows, dtype=np.int64), floors[key])
        found.append(CaseOutcome(columns.contenders[ci], *key, outcome))
    return found


def _outcome(columns: ResultColumns, rows: np.ndarray, floors: Mapping[str, float]) -> str:
    """The outcome of one contender's samples (``rows``) of one case."""
    scored = rows[~columns.is_error[rows]]
    if not len(scored):
        return ERROR
    missing = False
    for name, floor in floors.items():
        values = columns.numbers.get("score" if name == "score" else f"m_{name}")
        known = values[scored] if values is not None else np.array([])
        known = known[~np.isnan(known)]
        if not len(known):
            missing = True
        elif known.mean() < floor - TOLERANCE:
            return FAILED
    return NOT_EVALUATED if missing else PASSED


def pass_rates(outcomes: Sequence[CaseOutcome], by_dataset: bool = False) -> dict[tuple[str, ...], float]:
    """``pass_rate`` per contender (per (contender, dataset) with ``by_dataset``); a group whose cases were all
    not evaluated is NaN."""
    counts: dict[tuple[str, ...], list[int]] = {}
    for o in outcomes:
        group = (o.contender, o.dataset) if by_dataset else (o.contender,)
        tally = counts.setdefault(group, [0, 0])
        tally[0] += o.outcome == PASSED
        tally[1] += o.outcome != NOT_EVALUATED
    return {group: passed / evaluated if evaluated else float("nan") for group, (passed, evaluated) in counts.items()}
