"""The store's packed numbers, result positions and run totals (migration 0003)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from evalcore.core.errors import StoreError
from evalcore.storage.frames import results_frame
from evalcore.storage.migrations import migrations
from evalcore.storage.rows import BATCH_LOOKUP, case_row, run_row, to_json
from evalcore.storage.store import Store
from tests.factories import make_run

_OLD_RESULT = (
    "run_id",
    "contender",
    "dataset",
    '"case"',
    "sample",
    "status",
    "score",
    "error_kind",
    "cost_usd",
    "latency_s",
    "input_tokens",
    "output_tokens",
    "attempts",
    "started_at",
    "metrics",
    "error_message",
    "diagnostics",
    "output",
    "raw",
)


def _store_at_0002(path: Path, run) -> None:  # noqa: ANN001
    """A store as evalcore wrote it before migration 0003, holding ``run``."""
    import sqlite_utils

    db = sqlite_utils.Database(path)
    migrations().apply(db, stop_before="0003_result_numbers")
    conn, run_id = db.conn, run.info.id
    conn.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", run_row(run))
    conn.executemany(
        "INSERT INTO contenders VALUES (?, ?, ?, ?, ?)",
        [(run_id, c.id, c.model, to_json(c.settings), i) for i, c in enumerate(run.contenders)],
    )
    conn.executemany(
        "INSERT INTO cases VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(run_id, *case_row(c), i) for i, c in enumerate(run.cases)],
    )
    rows = [
        (
            run_id,
            r.contender,
            r.dataset,
            r.case,
            r.sample,
            r.status,
            r.score,
            r.error.kind if r.error else None,
            r.usage.cost_usd,
            r.latency_s,
            r.usage.input_tokens,
            r.usage.output_tokens,
            r.attempts,
            r.started_at,
            to_json(r.metrics),
            r.error.message if r.error else None,
            to_json(r.diagnostics),
            None if r.output is None else to_json(r.output),
            r.raw,
        )
        for r in reversed(run.results)
    ]
    conn.executemany(f"INSERT INTO results ({', '.join(_OLD_RESULT)}) VALUES ({', '.join('?' * 19)})", rows)
    conn.commit()
    conn.close()


def test_results_stored_before_0003_get_their_numbers_and_totals_when_the_store_opens(tmp_path: Path) -> None:
    run = make_run(3, 7, samples=2)
    _store_at_0002(tmp_path / "old.db", run)
    with Store(tmp_path / "old.db") as store:
        pd.testing.assert_frame_equal(store.load_results_frame(run.info.id), results_frame(run))
        assert store.load_run(run.info.id) == run
        [summary] = store.list_runs()
        assert (summary["results"], summary["errors"]) == (len(run.results), 1)
        assert summary["cost_usd"] == pytest.approx(sum(r.usage.cost_usd or 0 for r in run.results))


def test_a_replaced_result_is_counted_once_in_the_run_totals(store_location: str) -> None:
    run = make_run(2, 3)
    with Store(store_location) as store:
        store.create_run(run)
        failed = next(r for r in run.results if r.status == "error")
        store.add_results(run.info.id, [failed, failed])
        [summary] = store.list_runs()
        assert (summary["results"], summary["errors"]) == (len(run.results), 1)
        store.delete_run(run.info.id)
        assert store.conn.execute("SELECT count(*) FROM run_totals").fetchone()[0] == 0


def test_a_run_without_costs_has_no_total_cost(store_location: str) -> None:
    run = make_run(1, 2, with_errors=False)
    for r in run.results:
        r.usage.cost_usd = None
    with Store(store_location) as store:
        store.create_run(run)
        assert store.list_runs()[0]["cost_usd"] is None


def test_a_batch_looks_up_each_case_by_its_key_never_by_scanning_the_run(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        plan = " ".join(row[-1] for row in store.conn.execute(f"EXPLAIN QUERY PLAN {BATCH_LOOKUP}", ("[]", "r")))
    assert "(run_id=? AND dataset=? AND id=?)" in plan


def test_numbers_of_the_wrong_size_are_reported_as_damage(tmp_path: Path) -> None:
    run = make_run(1, 2, with_errors=False)
    with Store(tmp_path / "s.db") as store:
        store.create_run(run)
        store.conn.execute("UPDATE results SET numbers = x'00' WHERE rowid = (SELECT min(rowid) FROM results)")
        with pytest.raises(StoreError, match="damaged"):
            store.load_results_frame(run.info.id)


def test_a_metric_value_that_is_not_a_number_is_refused_with_the_run_named(store_location: str) -> None:
    run = make_run(1, 2, with_errors=False)
    run.results[0].metrics["exact_match"] = "yes"  # type: ignore[assignment]
    with Store(store_location) as store, pytest.raises(StoreError, match="'run-0001': a result cannot be stored"):
        store.create_run(run)
