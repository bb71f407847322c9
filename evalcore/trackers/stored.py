"""A stored run as trackers see it: the end event of a run just finished, or of one sent again later
(``evalcore export RUN --to mlflow``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import pandas as pd

from evalcore.storage.store import Store
from evalcore.trackers._tracker import RunEnded


def ended_run(store: Store, run_id: str) -> RunEnded:
    """The end event of a stored run. Its leaderboard and run file are read when asked for, through a connection
    of their own (a tracker asks from its own thread)."""
    head = store.load_run(run_id, results=False)

    def leaderboard() -> pd.DataFrame:
        from evalcore.analysis.runs import rank_run
        from evalcore.analysis.stored import StoredRun

        with _own(store) as mine:
            return rank_run(StoredRun(mine, run_id), head.info.weights)

    def write_run_file(path: str | os.PathLike[str]) -> int:
        from evalcore.runfile.write import export_run

        with _own(store) as mine:
            return export_run(mine, run_id, path)

    return RunEnded(head.info, head.contenders, head.metrics, leaderboard, write_run_file)


@contextmanager
def _own(store: Store) -> Iterator[Store]:
    """A connection of this thread's own to ``store``'s file (the same store when it lives in memory)."""
    if str(store.path) == ":memory:":
        yield store
        return
    mine = Store(store.path)
    try:
        yield mine
    finally:
        mine.close()
