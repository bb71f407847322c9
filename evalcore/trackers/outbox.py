"""The ``outbox`` tracker: a run as flat JSON Lines, for a column store (DuckDB, ClickHouse, BigQuery …).

One row per result as it is stored, then one per contender with its leaderboard figures when the run ends.
Every row is flat (no nested objects), so each key loads as a column; ``docs/trackers.md`` lists them.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import IO, Any, ClassVar

from evalcore.core.records import Contender, Result
from evalcore.core.runids import run_file_stem
from evalcore.trackers._tracker import RunEnded, RunStarted, Tracker

#: Where rows go when no ``path`` is given (``trackers: [{name: outbox, options: {path: …}}]``).
PATH_ENV = "EVALCORE_OUTBOX"
DEFAULT_PATH = "evalcore-outbox"


class OutboxTracker(Tracker):
    """Rows of a run in JSON Lines.

    Args:
        path: a ``.jsonl`` file, to which every run appends; or a folder, with a file per run
            (``<run id>.jsonl``; a run id that is not a plain name gets a hashed one, never a path).
            Default ``$EVALCORE_OUTBOX``, else ``./evalcore-outbox/``.
    """

    name: ClassVar[str] = "outbox"

    def __init__(self, path: str | None = None):
        self.path = Path(path or os.environ.get(PATH_ENV) or DEFAULT_PATH).expanduser()
        self.file: IO[str] | None = None
        self.run_id, self.suite = "", ""
        self.contenders: dict[str, Contender] = {}

    def run_started(self, run: RunStarted) -> None:
        """Open the file (a folder gets one per run)."""
        self.run_id, self.suite = run.info.id, run.info.suite
        self.contenders = {c.id: c for c in run.contenders}
        target = self.path if self.path.suffix == ".jsonl" else self.path / f"{run_file_stem(run.info.id)}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        self.file = target.open("a", encoding="utf-8")

    def result_stored(self, result: Result) -> None:
        """Write the result's row."""
        self._write(result_row(self.run_id, self.suite, self.contenders.get(result.contender), result))

    def run_ended(self, run: RunEnded) -> None:
        """Write a row per contender with its leaderboard figures, and close the file."""
        try:
            table = run.leaderboard()
            for record in table.to_dict("records"):
                self._write(aggregate_row(run.info.id, run.info.suite, run.info.status, record))
        finally:
            if self.file is not None:
                self.file.close()

    def _write(self, row: dict[str, Any]) -> None:
        if self.file is None:
            raise RuntimeError(f"{self.path}: the outbox was not opened (the start of the run was not written)")
        self.file.write(json.dumps(row, ensure_ascii=False, allow_nan=False, default=str) + "\n")


def result_row(run_id: str, suite: str, contender: Contender | None, result: Result) -> dict[str, Any]:
    """A result as one flat row: ``kind: result``, then its keys; each metric as ``metric_<name>``."""
    row: dict[str, Any] = {
        "kind": "result",
        "run_id": run_id,
        "suite": suite,
        "contender": result.contender,
        "model": contender.model if contender is not None else None,
        "settings": json.dumps(contender.settings, sort_keys=True) if contender is not None else None,
        "dataset": result.dataset,
        "case": result.case,
        "sample": result.sample,
        "status": result.status,
        "score": result.score,
        "error_kind": result.error.kind if result.error else None,
        "error_message": result.error.message if result.error else None,
        "input_tokens": result.usage.input_tokens,
        "output_tokens": result.usage.output_tokens,
        "cost_usd": result.usage.cost_usd,
        "latency_s": result.latency_s,
        "attempts": result.attempts,
        "started_at": result.started_at,
    }
    row.update({f"metric_{name}": value for name, value in result.metrics.items()})
    return row


def aggregate_row(run_id: str, suite: str, status: str, record: dict[str, Any]) -> dict[str, Any]:
    """A contender's leaderboard row as one flat row: ``kind: aggregate``, then the table's columns as they are
    named on the leaderboard (``score``, ``score_lo``, ``score_hi``, ``wscore``, ``rank``, ``cost`` …)."""
    row: dict[str, Any] = {"kind": "aggregate", "run_id": run_id, "suite": suite, "run_status": status}
    row.update({str(k): _plain(v) for k, v in record.items()})
    return row


def _plain(value: Any) -> Any:
    """A table cell as JSON has it: numpy numbers as numbers, NaN and pandas' NA as null."""
    if value is None or isinstance(value, str | bool):
        return value
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, int | float | str | bool):
        return value
    try:
        import pandas as pd

        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    return str(value)
