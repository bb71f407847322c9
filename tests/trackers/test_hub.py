"""The hub hands a run's events to trackers off the runner's thread: a failing, slow or hanging tracker is
reported, never waited on past the end's bound."""

from __future__ import annotations

import threading

import pandas as pd

from evalcore.core.records import Contender, Result, RunInfo
from evalcore.trackers import RunEnded, RunStarted, Tracker, TrackerHub

INFO = RunInfo(id="run-1", suite="mini", created_at="2026-12-04T10:00:00.000Z", status="completed")


def started() -> RunStarted:
    return RunStarted(INFO, [Contender("fake/oracle", "fake/oracle")], [])


def ended() -> RunEnded:
    return RunEnded(INFO, [], [], lambda: pd.DataFrame(), lambda path: 0)


def result(case: str = "c1") -> Result:
    return Result("fake/oracle", "shop", case, 0, "scored", 1.0)


class Recording(Tracker):
    name = "recording"

    def __init__(self) -> None:
        self.events: list[str] = []

    def run_started(self, run: RunStarted) -> None:
        self.events.append("started")

    def result_stored(self, result: Result) -> None:
        self.events.append(result.case)

    def run_ended(self, run: RunEnded) -> None:
        self.events.append("ended")


class Failing(Tracker):
    name = "failing"

    def result_stored(self, result: Result) -> None:
        raise ConnectionRefusedError("connection refused")


class Hanging(Tracker):
    name = "hanging"

    def __init__(self) -> None:
        self.release = threading.Event()

    def result_stored(self, result: Result) -> None:
        self.release.wait()


def test_a_tracker_gets_the_start_every_result_and_the_end_in_order():
    tracker = Recording()
    hub = TrackerHub([tracker])
    hub.start(started())
    for case in ("c1", "c2"):
        hub.put(result(case))
    assert hub.finish(ended) == []
    assert tracker.events == ["started", "c1", "c2", "ended"]


def test_a_tracker_that_raises_is_reported_in_one_line_and_the_others_still_get_everything():
    good = Recording()
    hub = TrackerHub([Failing(), good])
    hub.start(started())
    for case in ("c1", "c2", "c3"):
        hub.put(result(case))
    assert hub.finish(ended) == ["failing: 3 results not sent: connection refused"]
    assert good.events == ["started", "c1", "c2", "c3", "ended"]


def test_a_full_queue_counts_results_as_not_sent_instead_of_blocking_the_runner():
    tracker = Hanging()
    hub = TrackerHub([tracker], queue_size=2)
    hub.start(started())
    for case in range(10):
        hub.put(result(str(case)))  # returns at once although the tracker never takes another event
    lines = hub.finish(ended, wait_s=0.05)
    tracker.release.set()
    assert len(lines) == 1 and lines[0].startswith("hanging: ")
    assert "10 results not sent" in lines[0]


def test_the_end_waits_for_a_hanging_tracker_only_as_long_as_it_is_allowed():
    tracker = Hanging()
    hub = TrackerHub([tracker])
    hub.start(started())
    hub.put(result())
    lines = hub.finish(ended, wait_s=0.05)
    tracker.release.set()
    assert lines == [
        "hanging: 1 result not sent: the backend did not answer before the run ended; "
        "1 event not sent: timed out while sending the end of the run"
    ]


def test_finishing_twice_reports_once():
    hub = TrackerHub([Failing()])
    hub.start(started())
    hub.put(result())
    assert len(hub.finish(ended)) == 1
    assert hub.finish(ended) == []
