"""A stored run as trackers see it: the end event of a run just finished, or of one sent again later
(``evalcore export RUN --to mlflow``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from evalcore.storage.store import Store
from evalcore.trackers._tracker import RunEnded, RunStarted, Tracker

if TYPE_CHECKING:
    import pandas as pd


def ended_run(store: Store, run_id: str) -> RunEnded:
    """The end event of a stored run. Its leaderboard and run file are read when asked for, through a connection
    of their own (a tracker asks from its own thread)."""
    head = store.load_run(run_id, results=False)

    def leaderboard() -> pd.DataFrame:
        from evalcore.analysis.tables.runs import rank_run
        from evalcore.storage.history import StoredRun

        with _own(store) as mine:
            return rank_run(StoredRun(mine, run_id), head.info.weights)

    def write_run_file(path: str | os.PathLike[str]) -> int:
        from evalcore.runfile.write import export_run

        with _own(store) as mine:
            return export_run(mine, run_id, path)

    return RunEnded(head.info, head.contenders, head.metrics, leaderboard, write_run_file)


@contextmanager
def _own(store: Store) -> Iterator[Store]:
    """A connection of this thread's own to ``store`` (the same store when it lives in memory), opened at its
    location: ``store.path`` of a PostgreSQL store is the URL as messages show it, its password masked."""
    if str(store.path) == ":memory:":
        yield store
        return
    mine = Store(store.location)
    try:
        yield mine
    finally:
        mine.close()


def send_stored_run(store: Store, run_id: str, tracker: Tracker) -> list[str]:
    """Send a stored run to a tracker, as if it ran now (``evalcore export RUN --to NAME``), on this thread.

    Returns:
        What could not be sent, one line (``mlflow: 3 runs not sent: connection refused``); empty when all was.
    """
    head, parts = store.load_run_in_parts(run_id)
    try:
        tracker.run_started(RunStarted(head.info, head.contenders, head.metrics))
        for part in parts:
            for result in part:
                tracker.result_stored(result)
        tracker.run_ended(ended_run(store, run_id))
    except Exception as exc:  # noqa: BLE001 - said to the user as one line, like a run's trackers
        return [f"{tracker.name}: not sent: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"]
    finally:
        close = getattr(parts, "close", None)
        if close is not None:
            close()
    unsent = tracker.unsent()
    return [f"{tracker.name}: {unsent}"] if unsent else []
