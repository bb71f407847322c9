"""Reading a run's packed numbers: outwards from one of its rows until run_totals' count is in."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from evalcore.storage import packed
from evalcore.storage.frames import results_frame
from evalcore.storage.store import Store
from tests.factories import make_run


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    monkeypatch.setattr(packed, "_FRAME_CHUNK", 3)  # many chunks out of a few rows
    with Store(tmp_path / "runs.db") as s:
        yield s


def _in_turns(s: Store, runs: list, sizes: list[int]) -> None:
    """Create the runs empty, then add their results in turns of ``sizes`` results each."""
    pending = []
    for run in runs:
        pending.append(list(run.results))
        run.results = []
        s.create_run(run)
    for size in sizes:
        for run, left in zip(runs, pending, strict=True):
            s.add_results(run.info.id, left[:size])
            del left[:size]
    for run, left in zip(runs, pending, strict=True):
        s.add_results(run.info.id, left)
    for run in runs:
        run.results = [r for r in make_run(*_shape(run), run_id=run.info.id).results]


def _shape(run) -> tuple[int, int, int]:  # noqa: ANN001
    return len(run.contenders), len(run.cases), run.info.settings.get("samples", 1)


@pytest.mark.parametrize("sizes", [[1] * 30, [2, 5, 1, 7], [40], [0]])
def test_a_run_read_in_chunks_around_other_runs_rows_is_whole(store: Store, sizes: list[int]) -> None:
    runs = [make_run(3, 4, samples=2, run_id="a"), make_run(2, 5, run_id="b"), make_run(4, 3, run_id="c")]
    _in_turns(store, runs, sizes)
    for run in runs:
        pd.testing.assert_frame_equal(store.load_results_frame(run.info.id), results_frame(run))


def test_a_run_resumed_after_another_run_reads_across_the_gap(store: Store) -> None:
    a, b = make_run(3, 4, run_id="a"), make_run(5, 6, run_id="b")
    first, rest = a.results[:5], a.results[5:]
    a.results = first
    store.create_run(a)
    store.create_run(b)  # thirty results between a's first five and the rest
    store.add_results("a", rest)
    a.results = first + rest
    pd.testing.assert_frame_equal(store.load_results_frame("a"), results_frame(a))
    pd.testing.assert_frame_equal(store.load_results_frame("b"), results_frame(b))


def test_run_totals_counting_too_many_still_read_every_result(store: Store) -> None:
    # A REPLACE from a connection without recursive_triggers counts a result twice; never once too few.
    a, b = make_run(3, 4, run_id="a"), make_run(2, 3, run_id="b")
    store.create_run(b)
    store.create_run(a)
    store.conn.execute("UPDATE run_totals SET results = results + 3 WHERE run_id = 'a'")
    pd.testing.assert_frame_equal(store.load_results_frame("a"), results_frame(a))


def test_a_run_without_totals_row_reads_its_results(store: Store) -> None:
    run = make_run(2, 3)
    store.create_run(run)
    store.conn.execute("DELETE FROM run_totals")
    pd.testing.assert_frame_equal(store.load_results_frame(run.info.id), results_frame(run))


def test_metadata_of_every_case_is_read_as_it_was_stored(store: Store) -> None:
    run = make_run(2, 7)
    run.cases[1].metadata = {"nested": {"a": [1, 2]}, "text": "x,y]["}
    run.cases[2].metadata = {}
    store.create_run(run)
    pd.testing.assert_frame_equal(store.load_results_frame(run.info.id), results_frame(run))
