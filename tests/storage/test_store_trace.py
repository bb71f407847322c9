"""A result's trace (an agent's steps) in the store: kept as it was given, and absent from older stores' results."""

from __future__ import annotations

from pathlib import Path

from evalcore.storage.migrations import migrations
from evalcore.storage.store import Store
from tests.factories import make_run

STEPS = [
    {"kind": "model", "index": 0, "latency_s": 0.4, "input_tokens": 8, "output_tokens": 4, "cost_usd": None,
     "content": None, "tool_calls": [{"id": "c1", "name": "lookup_order", "arguments": {"order_id": "A17"}}]},
    {"kind": "tool", "index": 1, "call_id": "c1", "name": "lookup_order", "arguments": {"order_id": "A17"},
     "result": "shipped", "error": None, "bytes": 7, "sent_bytes": 7, "latency_s": 0.01},
]  # fmt: skip


def test_a_results_trace_is_loaded_back_as_it_was_stored_and_an_empty_trace_stays_empty(tmp_path: Path):
    run = make_run(2, 2, with_errors=False)
    run.results[0].trace, run.results[1].trace = STEPS, []
    with Store(tmp_path / "s.db") as store:
        store.import_run(run)
        loaded = store.load_run(run.info.id)
    assert [r.trace for r in loaded.results] == [STEPS, [], None, None]


def test_a_store_made_before_traces_is_migrated_and_its_results_have_none(tmp_path: Path):
    import sqlite_utils

    old = sqlite_utils.Database(tmp_path / "old.db")
    migrations().apply(old, stop_before="0008_result_trace")
    old.conn.close()
    with Store(tmp_path / "old.db") as store:
        store.import_run(make_run(1, 2, with_errors=False))
        assert [r.trace for r in store.load_run("run-0001").results] == [None, None]
