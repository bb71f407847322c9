"""A run with trackers: every result reaches them, and a tracker that fails never fails or empties the run."""

from __future__ import annotations

from pathlib import Path

from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.progress import Progress
from evalcore.execution.runner import run_suite
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.suites import write_suite

TRACKERS = """
from evalcore.trackers import Tracker

SEEN = []


class Seeing(Tracker):
    name = "seeing"

    def run_started(self, run):
        SEEN.append(("started", run.info.id, [c.id for c in run.contenders]))

    def result_stored(self, result):
        SEEN.append(("result", result.key))

    def run_ended(self, run):
        SEEN.append(("ended", run.info.status, len(run.leaderboard())))


class Broken(Tracker):
    name = "broken"

    def run_started(self, run):
        raise ConnectionRefusedError("connection refused")

    def result_stored(self, result):
        raise ConnectionRefusedError("connection refused")
"""


def run(tmp_path: Path, trackers: list[str]) -> tuple[Store, str, str, Progress]:
    folder = write_suite(tmp_path / "suite")
    (folder / "trackers_here.py").write_text(TRACKERS)
    plan = make_plan(load_suite(folder), RunOptions(trackers=trackers))
    store = Store(tmp_path / "db.sqlite")
    last: list[Progress] = []
    run_id, status = run_suite(plan, store, on_progress=last.append)
    return store, run_id, status, last[-1]


def test_a_tracker_sees_the_start_every_result_and_the_end_of_a_run(tmp_path: Path):
    import sys

    store, run_id, status, progress = run(tmp_path, ["trackers_here:Seeing"])
    seen = next(m for n, m in sys.modules.items() if n.endswith("trackers_here")).SEEN
    assert seen[0][:2] == ("started", run_id) and len(seen[0][2]) == 3
    assert sorted(e[1] for e in seen if e[0] == "result") == sorted(r.key for r in store.load_run(run_id).results)
    assert seen[-1] == ("ended", "completed", 3)
    assert progress.unsent == []


def test_a_failing_tracker_leaves_the_run_complete_and_says_what_it_could_not_send(tmp_path: Path):
    store, run_id, status, progress = run(tmp_path, ["trackers_here:Broken"])
    assert status == "completed"
    assert len(store.load_run(run_id).results) == 9
    assert progress.unsent == [
        "broken: 9 results not sent: connection refused; 1 event not sent: the start of the run: connection refused"
    ]
