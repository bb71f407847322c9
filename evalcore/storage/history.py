"""The run history: a run in it, by id (:class:`StoredRun`), and changes to a stored run's settings.

Whatever reads a run takes it whichever way it comes, ``Run | StoredRun``: a run file's run has its results
in hand; a stored run's header and results are read from the store only when needed (:func:`header_of`).
The run list, statuses and who stopped a run are the runs table's (:mod:`evalcore.storage.runs`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from evalcore.core.records import Run
from evalcore.storage.rows import to_json

if TYPE_CHECKING:
    from evalcore.storage.connection import StoreConnection
    from evalcore.storage.frames import ResultColumns
    from evalcore.storage.store import Store


@dataclass
class StoredRun:
    """A run in a store, by id."""

    store: Store
    id: str

    @cached_property
    def header(self) -> Run:
        """The run without its cases and results: its metrics, contenders and own weights.

        Raises:
            StoreError: the run is unknown.
        """
        return self.store.load_run(self.id, results=False)


def header_of(run: Run | StoredRun) -> Run:
    """The run's header: what its leaderboard needs besides the results (metrics, contenders, weights)."""
    return run.header if isinstance(run, StoredRun) else run


def columns_of(run: Run | StoredRun) -> ResultColumns:
    """A run's results as columns (:mod:`evalcore.storage.frames`), read from the store for a stored run."""
    from evalcore.storage.frames import read_columns, run_columns  # numpy, loaded only when columns are read

    return read_columns(run.store, run.id) if isinstance(run, StoredRun) else run_columns(run)


def update_settings(store: StoreConnection, run_id: str, change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Replace a stored run's settings with ``change(settings)``, in one transaction; nothing for an unknown run."""
    with store.transaction() as conn:
        found = conn.execute("SELECT settings FROM runs WHERE id = ?", (run_id,)).fetchone()
        if found is not None:
            conn.execute("UPDATE runs SET settings = ? WHERE id = ?", (to_json(change(json.loads(found[0]))), run_id))


def case_and_sample_counts(store: StoreConnection, run_id: str) -> tuple[int, int]:
    """How many cases a stored run names, and how many samples its results number (highest sample + 1; 0 with
    no result)."""
    with store.transaction("DEFERRED") as conn:
        (cases,) = conn.execute("SELECT COUNT(*) FROM cases WHERE run_id = ?", (run_id,)).fetchone()
        (top,) = conn.execute("SELECT MAX(sample) FROM results WHERE run_id = ?", (run_id,)).fetchone()
    return int(cases), 0 if top is None else int(top) + 1
