"""evalcore.analysis.tables.summaries and the store's summaries: saved, read back bit for bit, dropped when results
change."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalcore.analysis.tables import summaries, view
from evalcore.core.metric_set import MetricSet
from evalcore.runfile.read import read_run_file
from evalcore.storage.frames import results_frame
from evalcore.storage.store import Store
from tests.factories import failed, make_run
from tests.storage.test_store_numbers import _store_at_0002

REPO = Path(__file__).resolve().parents[2]
WEIGHTINGS = [
    None,
    {"score": 1.0},
    {"score": 1.0, "cost": -0.5},
    {"errors": 1.0, "time": -1.0},
    {"exact_match": 2.0, "score": -1.0, "cost": 0.3},
]


def runs():
    demo = read_run_file(REPO / "data" / "runs" / "intake-demo.json")
    priced = make_run(3, 8, samples=2)
    for r in priced.results[::3]:
        r.usage.cost_usd = None  # some costs unknown
    return [demo, make_run(4, 9), priced]


def assert_same_prepared(a: view.PreparedView, b: view.PreparedView) -> None:
    assert a.ci == b.ci
    for left, right in ((a.overall, b.overall), (a.by_dataset, b.by_dataset)):
        pd.testing.assert_frame_equal(left.table, right.table)
        assert [name for name, _ in left.resampled] == [name for name, _ in right.resampled]
        for (_, x), (_, y) in zip(left.resampled, right.resampled, strict=True):
            assert x.contenders.dtype == y.contenders.dtype and list(x.contenders) == list(y.contenders)
            assert x.tables.keys() == y.tables.keys()
            for name in x.tables:
                assert np.array_equal(x.tables[name], y.tables[name], equal_nan=True)
            for left_parts, right_parts in ((x.binomial, y.binomial), (x.cases, y.cases)):
                assert left_parts.keys() == right_parts.keys()
                assert all(np.array_equal(left_parts[k], right_parts[k], equal_nan=True) for k in left_parts)


@pytest.mark.parametrize("run", runs(), ids=["demo", "factory", "unknown-costs"])
def test_a_packed_summary_ranks_every_weighting_as_the_results_do(run) -> None:
    frame = results_frame(run)
    summary = summaries.summarize(frame, MetricSet.of(run.metrics))
    back = summaries.unpack(summaries.pack(summary))
    assert_same_prepared(summary.prepared, back.prepared)
    assert back.options == view.filter_options(frame)
    weight_names = set(MetricSet.of(run.metrics).order)  # every weightable name, the primary metric included
    for weights in WEIGHTINGS:
        weights = {k: v for k, v in (weights or {}).items() if k in weight_names} or None
        direct = view.leaderboard_view(frame, MetricSet.of(run.metrics), weights, contenders=run.contenders)
        stored = view.view_of(back.prepared, MetricSet.of(run.metrics), weights, run.contenders)
        pd.testing.assert_frame_equal(direct.overall, stored.overall)
        pd.testing.assert_frame_equal(direct.ranked_by_dataset, stored.ranked_by_dataset)
        assert (direct.winner, direct.best_value, direct.stability) == (
            stored.winner,
            stored.best_value,
            stored.stability,
        )


def test_a_written_summary_is_read_back_until_a_result_changes(tmp_path: Path) -> None:
    run = make_run(3, 6)
    with Store(tmp_path / "s.db") as store:
        store.create_run(run)
        written = summaries.write_summary(store, run.info.id)
        read = summaries.read_summary(store, run.info.id)
        assert written is not None and read is not None
        assert_same_prepared(written.prepared, read.prepared)
        store.set_status(run.info.id, "completed")  # the status is not the results
        assert summaries.read_summary(store, run.info.id) is not None
        store.add_results(run.info.id, [failed(run.results[0])])  # the same key, replaced
        assert summaries.read_summary(store, run.info.id) is None


def test_a_summary_saved_under_an_earlier_interval_rule_is_not_read(tmp_path: Path) -> None:
    run = make_run(3, 6)
    with Store(tmp_path / "s.db") as store:
        store.create_run(run)
        frame, changes = store.load_results_frame_and_changes(run.info.id)
        stale = summaries.pack(summaries.summarize(frame, MetricSet.of(run.metrics)))
        # Layout 4 read the bootstrap at the plain 95% level and gave 0/1 scores Wilson's interval.
        older = summaries.KIND.replace("leaderboard/7/", "leaderboard/6/")
        assert older != summaries.KIND and store.save_summary(run.info.id, older, changes, stale)
        assert summaries.read_summary(store, run.info.id) is None


def test_a_summary_of_results_that_changed_since_they_were_read_is_not_saved(tmp_path: Path) -> None:
    run = make_run(2, 4)
    with Store(tmp_path / "s.db") as store:
        store.create_run(run)
        frame, changes = store.load_results_frame_and_changes(run.info.id)
        summary = summaries.summarize(frame, MetricSet.of(run.metrics))
        store.add_results(run.info.id, [run.results[-1]])  # a writer got in between
        assert not summaries.save_summary(store, run.info.id, changes, summary)
        assert summaries.read_summary(store, run.info.id) is None


def test_deleting_or_replacing_a_run_drops_its_summary(tmp_path: Path) -> None:
    run = make_run(2, 4)
    with Store(tmp_path / "s.db") as store:
        store.create_run(run)
        summaries.write_summary(store, run.info.id)
        store.import_run(run, replace=True)
        assert summaries.read_summary(store, run.info.id) is None
        summaries.write_summary(store, run.info.id)
        store.delete_run(run.info.id)
        assert store.conn.execute("SELECT count(*) FROM summaries").fetchone()[0] == 0


def test_a_run_without_results_has_no_summary(tmp_path: Path) -> None:
    run = make_run(2, 4)
    run.results = []
    with Store(tmp_path / "s.db") as store:
        store.create_run(run)
        assert summaries.write_summary(store, run.info.id) is None
        assert summaries.read_summary(store, run.info.id) is None


def test_a_busy_store_skips_the_save_after_the_wait_and_keeps_its_own_timeout(tmp_path: Path) -> None:
    run = make_run(2, 4)
    with Store(tmp_path / "s.db") as store:
        store.create_run(run)
        other = sqlite3.connect(tmp_path / "s.db", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another writer holds the lock
        try:
            start = time.monotonic()
            assert summaries.write_summary(store, run.info.id, wait=0.1) is not None  # computed, not saved
            assert time.monotonic() - start < 20  # not the store's own 30 s busy timeout
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert summaries.read_summary(store, run.info.id) is None
        assert store.conn.execute("PRAGMA busy_timeout").fetchone()[0] == 30_000
        summaries.write_summary(store, run.info.id)
        assert summaries.read_summary(store, run.info.id) is not None


def test_an_unreadable_summary_is_ignored_and_logged(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    run = make_run(2, 4)
    with Store(tmp_path / "s.db") as store:
        store.create_run(run)
        summaries.write_summary(store, run.info.id)
        store.conn.execute("UPDATE summaries SET data = substr(data, 1, 40)")
        assert summaries.read_summary(store, run.info.id) is None
    assert "unreadable" in caplog.text


def test_a_store_from_before_summaries_counts_changes_once_it_opens(tmp_path: Path) -> None:
    run = make_run(2, 5)
    _store_at_0002(tmp_path / "old.db", run)
    with Store(tmp_path / "old.db") as store:
        frame, changes = store.load_results_frame_and_changes(run.info.id)
        pd.testing.assert_frame_equal(frame, results_frame(run))
        assert summaries.save_summary(
            store, run.info.id, changes, summaries.summarize(frame, MetricSet.of(run.metrics))
        )
        assert summaries.read_summary(store, run.info.id) is not None
        store.add_results(run.info.id, [run.results[0]])
        assert store.load_results_frame_and_changes(run.info.id)[1] > changes
        assert summaries.read_summary(store, run.info.id) is None
        assert store.list_runs()[0]["results"] == len(run.results)


def test_a_summary_that_asks_for_objects_or_lacks_bytes_is_refused() -> None:
    run = make_run(2, 4)
    data = summaries.pack(summaries.summarize(results_frame(run), MetricSet.of(run.metrics)))
    with pytest.raises(ValueError, match="dtype"):
        summaries.unpack(data.replace(b'"<f8"', b'"|O8"', 1))
    with pytest.raises(ValueError):
        summaries.unpack(data[:-8])
    with pytest.raises(ValueError, match="not an evalcore summary"):
        summaries.unpack(b"PK\x03\x04" + data)
