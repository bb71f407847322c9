"""A run in a store, by id, and a run's header whichever way it comes: without pandas, for the commands
that never build a results frame."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from evalcore.core.records import Run

if TYPE_CHECKING:
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
