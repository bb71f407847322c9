"""The runner's writer thread (evalcore.execution.writer): results handed over without a lock per result,
stored in batches, none lost."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from evalcore.core.errors import ConfigError, StoreUnavailable
from evalcore.execution import writer as writing
from evalcore.storage.store import Store
from tests.factories import make_run


def _started(tmp_path: Path, n_cases: int = 6) -> tuple[Store, object, writing.ResultWriter]:
    run = make_run(2, n_cases, with_errors=False)
    results, run.results = run.results, []
    store = Store(tmp_path / "w.db")
    store.create_run(run)
    writer = writing.ResultWriter(store, run.info.id)
    writer.start()
    return store, results, writer


def test_every_result_handed_over_is_stored_when_the_writer_closes(tmp_path: Path) -> None:
    store, results, writer = _started(tmp_path)
    for r in results:
        writer.put(r)
    writer.close()
    assert writer.error is None
    assert store.list_runs()[0]["results"] == len(results)


def test_a_full_batch_is_stored_without_waiting_for_the_flush_interval(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(writing, "FLUSH_BATCH", 4)
    monkeypatch.setattr(writing, "FLUSH_EVERY_S", 60.0)
    store, results, writer = _started(tmp_path)
    for r in results[:4]:
        writer.put(r)
    deadline = time.monotonic() + 10
    while store.list_runs()[0]["results"] < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert store.list_runs()[0]["results"] == 4
    writer.close()


def test_results_put_while_the_writer_stores_a_batch_are_not_lost(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(writing, "FLUSH_BATCH", 3)
    store, results, writer = _started(tmp_path, n_cases=40)
    putter = threading.Thread(target=lambda: [writer.put(r) for r in results])
    putter.start()
    putter.join()
    writer.close()
    assert store.list_runs()[0]["results"] == len(results) == 80


class _FullDisk:
    """``add`` of a store whose disk is full for the first ``failures`` writes, as SQLite reports it."""

    def __init__(self, store: Store, failures: int):
        self.store, self.failures, self.attempts = store, failures, 0

    def add(self, rows) -> None:
        self.attempts += 1
        if self.failures > 0:
            self.failures -= 1
            raise StoreUnavailable(f"{self.store.path}: the store cannot be written (database or disk is full)")
        self.store.add_rows(rows)


def _writer(tmp_path: Path, failures: int, wait_s: float) -> tuple[Store, list, writing.ResultWriter, _FullDisk]:
    run = make_run(1, 6, with_errors=False)
    results, run.results = run.results, []
    store = Store(tmp_path / "w.db")
    store.create_run(run)
    disk = _FullDisk(store, failures)
    writer = writing.ResultWriter(store, run.info.id, disk.add, wait_s=wait_s)
    writer.start()
    return store, results, writer, disk


def test_a_store_that_comes_back_within_the_wait_gets_every_result(tmp_path: Path) -> None:
    store, results, writer, disk = _writer(tmp_path, failures=2, wait_s=30)
    for r in results:
        writer.put(r)
    writer.close()
    assert store.list_runs()[0]["results"] == len(results)
    assert writer.lost is None and not writer.unsaved and not writer.down.is_set()
    assert disk.failures == 0 and disk.attempts >= 3  # failed twice, then stored


def test_a_store_that_stays_away_is_given_up_on_and_every_result_kept_unsaved(tmp_path: Path) -> None:
    store, results, writer, _ = _writer(tmp_path, failures=1000, wait_s=0.3)
    for r in results:
        writer.put(r)
    started = time.monotonic()
    writer.close()
    assert time.monotonic() - started < 10
    assert writer.stopped and "database or disk is full" in (writer.lost or "")
    assert len(writer.unsaved) == len(results) and store.list_runs()[0]["results"] == 0


def test_the_wait_for_the_store_is_set_in_the_environment(monkeypatch) -> None:
    monkeypatch.setenv(writing.STORE_WAIT_ENV, "2.5")
    assert writing.store_wait_s() == 2.5
    monkeypatch.setenv(writing.STORE_WAIT_ENV, "soon")
    with pytest.raises(ConfigError, match="EVALCORE_STORE_WAIT_S='soon'"):
        writing.store_wait_s()
    monkeypatch.delenv(writing.STORE_WAIT_ENV)
    assert writing.store_wait_s() == writing.STORE_WAIT_S == 60
