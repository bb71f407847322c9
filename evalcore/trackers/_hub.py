"""Trackers off the runner's hot path: one thread and one bounded queue per tracker (:class:`TrackerHub`)."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from evalcore.core.records import Result
from evalcore.trackers._tracker import RunEnded, RunStarted, Tracker, Unsent

log = logging.getLogger(__name__)

#: Events a tracker may fall behind by; past that, results are counted as not sent instead of waiting.
QUEUE_SIZE = 10_000
#: Seconds the end of a run waits for its trackers to send what they hold; what is left is reported unsent.
FINISH_WAIT_S = 30.0

_END = object()


@dataclass
class _Lane:
    """One tracker, its queue and its thread."""

    tracker: Tracker
    events: queue.Queue
    thread: threading.Thread
    dropped: Unsent
    failed: Unsent


class TrackerHub:
    """Hands a run's events to its trackers without ever making the run wait on one.

    :meth:`put` is called by the runner's event loop for every result: it only appends to each tracker's
    bounded queue (a full queue counts the result as not sent rather than blocking). Each tracker's thread
    calls its methods in order. :meth:`finish` waits, at most ``wait_s``, for every tracker to be done and
    returns one line per tracker that could not send everything.
    """

    def __init__(self, trackers: Sequence[Tracker], *, queue_size: int = QUEUE_SIZE):
        self.lanes = [
            _Lane(t, queue.Queue(queue_size), threading.Thread(), Unsent("results"), Unsent("events")) for t in trackers
        ]
        for lane in self.lanes:
            lane.thread = threading.Thread(
                target=self._drain, args=(lane,), name=f"evalcore-tracker-{lane.tracker.name}", daemon=True
            )
        self._finished = False

    def start(self, run: RunStarted) -> None:
        """Start every tracker's thread with the run's first event."""
        for lane in self.lanes:
            lane.events.put_nowait(run)
            lane.thread.start()

    def put(self, result: Result) -> None:
        """Hand a stored result to every tracker (from the runner's thread; never blocks)."""
        for lane in self.lanes:
            try:
                lane.events.put_nowait(result)
            except queue.Full:
                lane.dropped.add(1, "the tracker fell too far behind (its backend is slow or hanging)")

    def finish(self, ended: Callable[[], RunEnded], wait_s: float | None = None) -> list[str]:
        """Tell every tracker the run ended and wait for them, at most ``wait_s`` seconds in all.

        Args:
            ended: makes the end event (called once, on the caller's thread).
            wait_s: default :data:`FINISH_WAIT_S`.

        Returns:
            One line per tracker that could not send everything: ``otel: 12 spans not sent: connection refused``.
        """
        if self._finished or not self.lanes:
            return []
        self._finished = True
        end = ended()
        deadline = time.monotonic() + (FINISH_WAIT_S if wait_s is None else wait_s)
        for lane in self.lanes:
            try:  # a full queue makes room as its tracker works, for as long as the end may wait
                lane.events.put(end, timeout=max(0.0, deadline - time.monotonic()))
            except queue.Full:
                pass  # the tracker is still busy at the deadline: reported below
        for lane in self.lanes:
            lane.thread.join(max(0.0, deadline - time.monotonic()))
        return [line for lane in self.lanes if (line := self._report(lane)) is not None]

    def _drain(self, lane: _Lane) -> None:
        tracker = lane.tracker
        while True:
            event: Any = lane.events.get()
            try:
                if isinstance(event, Result):
                    tracker.result_stored(event)
                elif isinstance(event, RunStarted):
                    tracker.run_started(event)
                elif isinstance(event, RunEnded):
                    tracker.run_ended(event)
                    return
            except Exception as exc:  # noqa: BLE001 - a tracker never fails a run: counted and reported
                log.warning("tracker %s failed on %s: %s", tracker.name, type(event).__name__, exc)
                if isinstance(event, Result):
                    lane.dropped.add(1, _reason(exc))
                else:
                    lane.failed.add(1, f"{_event_name(event)}: {_reason(exc)}")
                if isinstance(event, RunEnded):
                    return

    def _report(self, lane: _Lane) -> str | None:
        """The lane's line: what its tracker says it could not send, and what never reached it."""
        if lane.thread.is_alive():
            left = lane.events.qsize()
            lane.dropped.add(left, "the backend did not answer before the run ended")
            lane.failed.add(1, "timed out while sending the end of the run")
        parts = [p for p in (_safe_unsent(lane.tracker), lane.dropped.line(), lane.failed.line()) if p]
        return f"{lane.tracker.name}: {'; '.join(parts)}" if parts else None


def _safe_unsent(tracker: Tracker) -> str | None:
    try:
        return tracker.unsent()
    except Exception as exc:  # noqa: BLE001 - a report never fails a run
        return f"cannot say what was not sent: {_reason(exc)}"


def _event_name(event: Any) -> str:
    return {"RunStarted": "the start of the run", "RunEnded": "the end of the run"}.get(type(event).__name__, "event")


def _reason(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
