"""The one thread that stores a run's results as they come, in batches (see :class:`ResultWriter`).

A store that goes away (a lost connection, a server that stopped, a full disk, a read-only file) is waited for:
the writer says so (:attr:`ResultWriter.down`, so the runner starts no call meanwhile), tries again with a
growing pause for at most :func:`store_wait_s` seconds (a lost PostgreSQL connection is opened again on the way:
:class:`~evalcore.storage.postgres.PgConnection`), and stores what it holds once the store is back.
A store that stays away is given up on (:attr:`ResultWriter.lost`): every result from then on is kept in
:attr:`ResultWriter.unsaved`, for the runner to write to a file that ``evalcore run --resume`` stores.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence

from evalcore.core.errors import ConfigError, StoreError, StoreUnavailable
from evalcore.core.records import Result
from evalcore.scoring.client import UNJUDGED_PREFIX
from evalcore.storage.spend import carry_earlier, replaced_spend
from evalcore.storage.store import FULL_BATCH, Store

log = logging.getLogger(__name__)

FLUSH_EVERY_S = 0.5
#: Results per stored batch: a full batch is one INSERT statement (see :meth:`Store.add_rows`).
FLUSH_BATCH = FULL_BATCH
#: Results the writer may fall behind by before the event loop waits for it (only instant fakes get here).
MAX_PENDING = 4 * FLUSH_BATCH
#: Seconds a run waits for a store that went away before giving up on it (``$EVALCORE_STORE_WAIT_S``).
STORE_WAIT_S = 60.0
STORE_WAIT_ENV = "EVALCORE_STORE_WAIT_S"
#: The first and the longest pause between attempts to open a store that went away again.
FIRST_PAUSE_S, LONGEST_PAUSE_S = 0.1, 5.0


def store_wait_s() -> float:
    """``$EVALCORE_STORE_WAIT_S``, else :data:`STORE_WAIT_S`.

    Raises:
        ConfigError: the variable is not a number of seconds ≥ 0.
    """
    text = os.environ.get(STORE_WAIT_ENV)
    if not text:
        return STORE_WAIT_S
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:
        raise ConfigError(f"{STORE_WAIT_ENV}={text!r}: give the seconds to wait for the store, e.g. 60")
    return seconds


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

    def __init__(
        self,
        store: Store,
        run_id: str,
        add: Callable[[Sequence[tuple]], object] | None = None,
        wait_s: float | None = None,
    ):
        """
        Args:
            store: the store.
            run_id: the run.
            add: what stores a batch of rows; default :meth:`Store.add_rows` (a worker of a shared run stores
                only the rows whose slots it still holds, :meth:`~evalcore.storage.claims.Claims.store_rows`).
            wait_s: how long to wait for a store that went away; default :func:`store_wait_s`.
        """
        super().__init__(name=f"evalcore-writer-{run_id[:8]}", daemon=True)
        self.store, self.run_id = store, run_id
        self.add = add or store.add_rows
        self.wait_s = store_wait_s() if wait_s is None else wait_s
        self.row = store.result_rows(run_id)
        #: What the stored results a resume calls again had cost, by key: the result replacing one carries it.
        self.earlier = replaced_spend(store, run_id, (UNJUDGED_PREFIX,))
        self.pending: deque[tuple] = deque()
        self.wake = threading.Event()
        self.taken = threading.Event()
        self.closing = False
        self.error: BaseException | None = None
        #: Set while a write waits for the store to come back: no call should start meanwhile.
        self.down = threading.Event()
        #: Why the store was given up on (it stayed away for ``wait_s``); None while results are stored.
        self.lost: str | None = None
        #: The rows not stored since the store was given up on, in the order they came.
        self.unsaved: list[tuple] = []

    @property
    def stopped(self) -> bool:
        """Whether results can no longer be stored (the store was given up on, or refused a batch): no call
        should start, since its result could not be kept in the store."""
        return self.lost is not None or self.error is not None

    def put(self, result: Result) -> None:
        """Hand a result over (from the event loop's thread).

        Raises:
            StoreError: the result cannot be stored (a value the store cannot hold).
        """
        pending = self.pending
        if self.earlier and result.key in self.earlier:
            carry_earlier(result.diagnostics, self.earlier.pop(result.key))
        pending.append(self.row(result))
        if len(pending) >= FLUSH_BATCH:
            if not self.wake.is_set():  # set() takes a lock, on every result until the writer wakes
                self.wake.set()
            # Backpressure: a writer far behind would otherwise hold every result in memory.
            while len(pending) >= MAX_PENDING and self.is_alive() and not self.down.is_set():
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
        if self.stopped:  # the store was given up on: kept for the file the runner writes
            self.unsaved.extend(batch)
            return
        try:
            self.add(batch)
        except StoreUnavailable as exc:
            self._wait_for_store(batch, exc)
        except StoreError as exc:  # reported to the runner, which fails the run
            log.error("storing %d results failed: %s", len(batch), exc)
            self._refused(batch, exc)
        except BaseException as exc:  # noqa: BLE001 - reported to the runner, which fails the run
            log.exception("storing %d results failed", len(batch))
            self._refused(batch, exc)

    def _refused(self, batch: list[tuple], exc: BaseException) -> None:
        self.error = exc
        self.unsaved.extend(batch)

    def _wait_for_store(self, batch: list[tuple], exc: StoreUnavailable) -> None:
        """Open the store again and store ``batch``, pausing longer each time, for at most ``wait_s`` seconds."""
        self.down.set()
        log.warning("%s; no call starts until it is back (waiting up to %g s)", exc, self.wait_s)
        deadline, pause = time.monotonic() + self.wait_s, FIRST_PAUSE_S
        while (left := deadline - time.monotonic()) > 0:
            time.sleep(min(pause, left))
            pause = min(2 * pause, LONGEST_PAUSE_S)
            try:
                self.add(batch)  # a lost PostgreSQL connection is opened again on the way
            except StoreUnavailable as again:
                exc = again
                continue
            except BaseException as refused:  # noqa: BLE001 - reported to the runner, which fails the run
                log.error("storing %d results failed: %s", len(batch), refused)
                self._refused(batch, refused)
                break
            log.warning("%s: the store is back; results are stored again", self.store.path)
            break
        else:
            self.lost = f"{exc}; it stayed so for {self.wait_s:g} s"
            self.unsaved.extend(batch)
        self.down.clear()

    def close(self) -> None:
        """Store what is pending and stop; call it from the thread that puts, after the last put."""
        self.closing = True
        self.wake.set()
        self.join()
