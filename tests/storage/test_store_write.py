"""The store's write path: canonical JSON text, many rows per statement, and what it refuses."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from factories import make_run
from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore.core.errors import StoreError
from evalcore.storage import rows as rows_module
from evalcore.storage.rows import insert_rows, metrics_json, to_json
from evalcore.storage.store import Store


def _encoded(fn: Any, value: Any) -> Any:
    try:
        return fn(value)
    except (ValueError, TypeError) as exc:
        return type(exc), str(exc)


_metric_values = st.one_of(
    st.none(), st.floats(allow_nan=True, allow_infinity=True), st.integers(-2, 2), st.booleans(), st.text(max_size=2)
)


@settings(max_examples=500, deadline=None)
@given(
    names=st.lists(st.sampled_from(["a", "b_c", "x%s", 'q"'])),
    values=st.dictionaries(st.sampled_from(["a", "b_c", "x%s", 'q"', "z"]), _metric_values, max_size=4),
    in_order=st.booleans(),
)
def test_metrics_json_writes_what_the_json_encoder_writes(
    names: list[str], values: dict[str, Any], in_order: bool
) -> None:
    names = list(dict.fromkeys(names))
    if in_order:
        values = {n: values.get(n) for n in names}  # the usual case: the run's metrics, in order
    assert _encoded(lambda v: metrics_json(v, names), values) == _encoded(to_json, values)


@pytest.mark.parametrize("n", [0, 1, 2, 511, 512, 513, 1300])
def test_many_row_inserts_store_what_executemany_stores(n: int) -> None:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    for table in ("a", "b"):
        conn.execute(f"CREATE TABLE {table} (k INTEGER UNIQUE, v TEXT, w BLOB)")
    rows = [(i % 700, f"v{i}", bytes([i % 256])) for i in range(n)]  # keys repeat past 700: the later row wins
    conn.executemany("INSERT OR REPLACE INTO a VALUES (?, ?, ?)", rows)
    insert_rows(conn, "INSERT OR REPLACE INTO b VALUES", 3, rows)
    select = "SELECT * FROM {} ORDER BY k"
    assert conn.execute(select.format("a")).fetchall() == conn.execute(select.format("b")).fetchall()


def test_insert_statements_stay_under_sqlites_variable_limit() -> None:
    assert rows_module._MAX_ROWS_PER_INSERT * len(rows_module.RESULT_FIELDS) <= 32766
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 999)  # an SQLite older than 3.32
    conn.execute("CREATE TABLE t (k INTEGER, v TEXT)")
    insert_rows(conn, "INSERT INTO t VALUES", 2, [(i, "v") for i in range(1200)])
    assert conn.execute("SELECT count(*), sum(k) FROM t").fetchone() == (1200, sum(range(1200)))


def test_a_batch_of_results_round_trips_and_replaces_by_key(store_location: str) -> None:
    run = make_run(2, 700)
    results = list(run.results)
    run.results = []
    with Store(store_location) as store:
        store.create_run(run)
        store.add_results(run.info.id, results[:5])
        store.add_results(run.info.id, results)
        loaded = store.load_run(run.info.id)
        totals = store.list_runs()[0]
    assert loaded.results == results
    assert totals["results"] == len(results)


def test_a_batch_for_an_unknown_run_or_case_is_refused(store_location: str) -> None:
    run = make_run(1, 3)
    results = list(run.results)
    run.results = []
    with Store(store_location) as store:
        with pytest.raises(StoreError, match="no run 'nope'"):
            store.add_results("nope", results)
        store.create_run(run)
        results[1].case = "missing"
        with pytest.raises(StoreError, match="names an unknown case"):
            store.add_results(run.info.id, results)
        assert store.list_runs()[0]["results"] == 0


def test_two_cases_with_one_id_are_refused_as_before(tmp_path: Path) -> None:
    run = make_run(1, 3)
    run.cases[1].dataset, run.cases[1].id = run.cases[0].dataset, run.cases[0].id
    run.results = []
    with Store(tmp_path / "s.db") as store, pytest.raises(StoreError, match="UNIQUE constraint failed: cases"):
        store.create_run(run)


def _canonical(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def test_stored_cases_are_canonical_json(tmp_path: Path) -> None:
    run = make_run(1, 2)
    run.cases[0].input = {"b": "é", "a": [1, 2.5]}
    with Store(tmp_path / "s.db") as store:
        store.create_run(run)
        rows = store.conn.execute("SELECT input, expected, metadata FROM cases ORDER BY position").fetchall()
    for case, row in zip(run.cases, rows, strict=True):
        assert row == (_canonical(case.input), _canonical(case.expected), _canonical(case.metadata))
        assert json.loads(row[0]) == case.input


def test_rows_made_ahead_store_what_add_results_stores_in_one_statement_or_in_one_transaction(tmp_path: Path) -> None:
    run = make_run(2, 700)
    results = list(run.results)
    run.results = []
    with Store(tmp_path / "a.db") as a, Store(tmp_path / "b.db") as b:
        for s in (a, b):
            s.create_run(run)
        a.add_results(run.info.id, results)
        row = b.result_rows(run.info.id)
        rows = [row(r) for r in results]
        b.add_rows(rows[: rows_module.FULL_BATCH])  # one INSERT of a full batch, its own transaction
        b.add_rows(rows[rows_module.FULL_BATCH :])  # 888 rows: several statements in one transaction
        b.add_rows([row(results[0])])  # the same key again: replaced, not added
        assert b.load_run(run.info.id).results == a.load_run(run.info.id).results == results
        assert b.list_runs()[0]["results"] == a.list_runs()[0]["results"] == len(results)
        assert not b.conn.in_transaction


def test_rows_made_ahead_refuse_what_the_run_does_not_hold_and_a_run_deleted_meanwhile(store_location: str) -> None:
    run = make_run(1, 3, with_errors=False)
    results = list(run.results)
    run.results = []
    with Store(store_location) as store:
        with pytest.raises(StoreError, match="no run 'nope'"):
            store.result_rows("nope")
        store.create_run(run)
        row = store.result_rows(run.info.id)
        results[1].case = "missing"
        with pytest.raises(StoreError, match="names an unknown case"):
            row(results[1])
        results[2].metrics["exact_match"] = "yes"  # type: ignore[assignment]
        with pytest.raises(StoreError, match="'run-0001': a result cannot be stored"):
            row(results[2])
        made = row(results[0])
        store.delete_run(run.info.id)
        with pytest.raises(StoreError, match="'run-0001': its results cannot be stored .*deleted"):
            store.add_rows([made])


def test_rows_made_ahead_wait_for_another_writer_and_then_say_the_store_is_busy(tmp_path: Path) -> None:
    run = make_run(1, 2, with_errors=False)
    results = list(run.results)
    run.results = []
    with Store(tmp_path / "s.db", timeout=0.2) as store:
        store.create_run(run)
        row = store.result_rows(run.info.id)
        other = sqlite3.connect(tmp_path / "s.db", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process in the middle of a write
        with pytest.raises(StoreError, match="the store is busy"):
            store.add_rows([row(results[0])])
        other.execute("ROLLBACK")
        store.add_rows([row(r) for r in results])
        assert store.list_runs()[0]["results"] == 2
