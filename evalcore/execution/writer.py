"""The one thread that stores a run's results as they come, in batches (see :class:`ResultWriter`)."""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Sequence

from evalcore.core.records import Result
from evalcore.storage.store import FULL_BATCH, Store

log = logging.getLogger(__name__)

FLUSH_EVERY_S = 0.5
#: Results per stored batch: a full batch is one INSERT statement (see :meth:`Store.add_rows`).
FLUSH_BATCH = FULL_BATCH
#: Results the writer may fall behind by before the event loop waits for it (only instant fakes get here).
MAX_PENDING = 4 * FLUSH_BATCH


class ResultWriter(threading.Thread):
    """The one thread that writes results to the store, in batches.

    The event loop hands each result over with :meth:`put`, which makes its row for the store there
    and appends it to a deque (no lock); the writer wakes when a batch is full or ``FLUSH_EVERY_S``
    has passed. So the writer holds the GIL only to bind a batch's values, and SQLite inserts a full
    batch (one statement) without the GIL while the event loop runs on. Waking the writer for every
    result would make the two threads trade the GIL once per result; making the rows in the writer,
    or storing a batch in several statements, would make the event loop wait for the GIL once per
    statement.
    """

    def __init__(self, store: Store, run_id: str, add: Callable[[Sequence[tuple]], object] | None = None):
        """
        Args:
            store: the store.
            run_id: the run.
            add: what stores a batch of rows; default :meth:`Store.add_rows` (a worker of a shared run stores
                only the rows whose slots it still holds, :meth:`~evalcore.storage.claims.Claims.store_rows`).
        """
        super().__init__(name=f"evalcore-writer-{run_id[:8]}", daemon=True)
        self.store, self.run_id = store, run_id
        self.add = add or store.add_rows
        self.row = store.result_rows(run_id)
        self.pending: deque[tuple] = deque()
        self.wake = threading.Event()
        self.taken = threading.Event()
        self.closing = False
        self.error: BaseException | None = None

    def put(self, result: Result) -> None:
        """Hand a result over (from the event loop's thread).

        Raises:
            StoreError: the result cannot be stored (a value the store cannot hold).
        """
        pending = self.pending
        pending.append(self.row(result))
        if len(pending) >= FLUSH_BATCH:
            if not self.wake.is_set():  # set() takes a lock, on every result until the writer wakes
                self.wake.set()
            # Backpressure: a writer far behind would otherwise hold every result in memory.
            while len(pending) >= MAX_PENDING and self.is_alive():
                self.taken.wait(0.05)
                self.taken.clear()

    def run(self) -> None:
        while True:
            woken = self.wake.wait(FLUSH_EVERY_S)
            self.wake.clear()
            closing = self.closing  # read after clear(): a close() from now on wakes the next wait
            while len(self.pending) >= FLUSH_BATCH:
                self._flush(self._take(FLUSH_BATCH))
            if closing or not woken:  # the interval passed, or the end: the rest goes too
                self._flush(self._take(len(self.pending)))
            if closing:
                return

    def _take(self, n: int) -> list[tuple]:
        pending = self.pending
        batch = [pending.popleft() for _ in range(n)]
        self.taken.set()
        return batch

    def _flush(self, batch: list[tuple]) -> None:
        if not batch:
            return
        try:
            self.add(batch)
        except BaseException as exc:  # noqa: BLE001 - reported to the runner, which fails the run
            log.exception("storing %d results failed", len(batch))
            self.error = exc

    def close(self) -> None:
        """Store what is pending and stop; call it from the thread that puts, after the last put."""
        self.closing = True
        self.wake.set()
        self.join()
