"""The runner's writer thread (evalcore.execution.writer): results handed over without a lock per result,
stored in batches, none lost."""

from __future__ import annotations

import threading
import time
from pathlib import Path

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
