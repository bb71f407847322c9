"""The store: schema and pragmas, writing and reading runs, atomic import, the results frame (on SQLite, and the
behaviour again on PostgreSQL)."""

from __future__ import annotations

import dataclasses
import math
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings

from evalcore.core import records
from evalcore.core.errors import StoreError, StoreMissing
from evalcore.runfile.read import read_run_file
from evalcore.runfile.write import dump_run, write_run_file
from evalcore.storage.frames import results_frame
from evalcore.storage.migrations import MIGRATION_NAMES, migrations
from evalcore.storage.runs import status_label
from evalcore.storage.store import Store, default_db_path
from tests.factories import failed, make_case, make_run, valid_runs

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def store(store_location: str) -> Store:
    with Store(store_location) as s:
        yield s


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Store:
    with Store(tmp_path / "evalcore.db") as s:
        yield s


def _count(store: Store, table: str, run_id: str) -> int:
    column = "id" if table == "runs" else "run_id"
    return store.conn.execute(f"SELECT count(*) FROM {table} WHERE {column} = ?", (run_id,)).fetchone()[0]


# --- schema --------------------------------------------------------------------------------------


def test_migrations_create_the_schema(sqlite_store: Store) -> None:
    store = sqlite_store
    tables = set(store.db.table_names())
    assert {"runs", "contenders", "cases", "results", "_sqlite_migrations"} <= tables
    assert [m.name for m in migrations().applied(store.db)] == list(MIGRATION_NAMES)
    assert MIGRATION_NAMES == (
        "0001_initial",
        "0002_position_indexes",
        "0003_result_numbers",
        "0004_summaries",
        "0005_baselines",
        "0006_pairwise",
        "0007_ratings",
        "0008_result_trace",
        "0009_reply_cache",
        "0010_proposals",
    )
    assert "summaries" in tables and "pairwise" in tables and "reply_cache" in tables and "proposals" in tables
    assert set(store.db["results"].columns_dict) == {
        "run_id", "contender", "dataset", "case", "sample", "status", "score", "metrics", "output", "raw",
        "error_kind", "error_message", "diagnostics", "input_tokens", "output_tokens", "cost_usd", "latency_s",
        "attempts", "started_at", "contender_pos", "case_pos", "numbers", "trace",
    }  # fmt: skip
    unique = [i.columns for i in store.db["results"].indexes if i.unique]
    assert ["run_id", "contender", "dataset", "case", "sample"] in unique


def test_reopening_applies_no_migration_twice(tmp_path: Path) -> None:
    Store(tmp_path / "a.db").close()
    with Store(tmp_path / "a.db") as again:
        assert migrations().pending(again.db) == []
        assert len(migrations().applied(again.db)) == len(MIGRATION_NAMES)


def test_wal_foreign_keys_and_busy_timeout_are_on(sqlite_store: Store) -> None:
    store = sqlite_store
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert store.conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000


def test_default_path_is_the_projects_data_folder_unless_evalcore_db_is_set(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("EVALCORE_DB", raising=False)
    (tmp_path / "pyproject.toml").touch()
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    assert default_db_path() == tmp_path / "data" / "evalcore.db"
    monkeypatch.setenv("EVALCORE_DB", "/tmp/elsewhere.db")
    assert default_db_path() == Path("/tmp/elsewhere.db")


def test_a_file_that_is_not_a_database_is_a_store_error(tmp_path: Path) -> None:
    (tmp_path / "notes.db").write_text("not sqlite at all, just some words in a file" * 20)
    with pytest.raises(StoreError, match="notes.db: cannot open the store"):
        Store(tmp_path / "notes.db")


def test_store_creates_the_folder_of_its_file(tmp_path: Path) -> None:
    with Store(tmp_path / "deep" / "er" / "x.db") as s:
        assert s.list_runs() == []


def test_opening_only_an_existing_store_refuses_one_never_made_and_leaves_it_unmade(store_location: str) -> None:
    for _ in range(2):  # the refusal itself creates nothing: a second open is refused again
        with pytest.raises(StoreMissing, match="no store at "):
            Store(store_location, create=False)
    with Store(store_location) as made:
        made.import_run(make_run(run_id="kept"))
    with Store(store_location, create=False) as store:
        assert [r["id"] for r in store.list_runs()] == ["kept"]


def test_opening_only_an_existing_store_creates_no_file_or_folder(tmp_path: Path) -> None:
    with pytest.raises(StoreMissing, match="no store at .*x.db"):
        Store(tmp_path / "deep" / "x.db", create=False)
    assert list(tmp_path.iterdir()) == []


def test_a_sqlite_file_without_the_stores_tables_is_no_store_to_read(tmp_path: Path) -> None:
    import sqlite3

    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (text TEXT)")
    conn.close()
    with pytest.raises(StoreMissing):
        Store(other, create=False)
    with sqlite3.connect(other) as conn:
        assert [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")] == ["notes"]
    conn.close()


def test_an_older_schema_is_migrated_on_open(tmp_path: Path) -> None:
    import sqlite_utils

    old = sqlite_utils.Database(tmp_path / "old.db")
    migrations().apply(old, stop_before="0002_position_indexes")
    old.conn.close()
    with Store(tmp_path / "old.db") as s:
        assert [m.name for m in migrations().applied(s.db)] == list(MIGRATION_NAMES)
        assert "numbers" in s.db["results"].columns_dict


def test_migration_names_match_the_registered_migrations() -> None:
    assert [m.name for m in migrations()._migrations] == list(MIGRATION_NAMES)


def test_a_migrated_store_is_used_without_importing_pandas(tmp_path: Path) -> None:
    Store(tmp_path / "a.db").close()
    code = (
        "import sys; from evalcore.storage.store import Store\n"
        "s = Store(sys.argv[1]); s.list_runs(); s.load_cases('x');"
        " assert 'pandas' not in sys.modules and 'sqlite_utils' not in sys.modules, 'pandas imported'"
    )
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "a.db")], cwd=ROOT, check=True)


# --- writing and reading -------------------------------------------------------------------------


def test_created_run_loads_back_unchanged(store: Store) -> None:
    run = make_run(3, 5, samples=2)
    store.create_run(run)
    assert _count(store, "runs", run.info.id) == 1
    assert store.load_run(run.info.id) == run


def test_export_import_export_gives_the_same_file(store: Store, tmp_path: Path) -> None:
    store.create_run(make_run(3, 4))
    first = write_run_file(store.load_run("run-0001"), tmp_path / "a.json.gz").read_bytes()
    with Store(tmp_path / "other.db") as other:
        other.import_run(read_run_file(tmp_path / "a.json.gz"))
        second = write_run_file(other.load_run("run-0001"), tmp_path / "b.json.gz").read_bytes()
    assert first == second


def test_results_added_in_batches_load_in_run_order(store: Store) -> None:
    run = make_run(2, 3, samples=2)
    results, run.results = run.results, []
    store.create_run(run)
    store.add_results(run.info.id, results[7:])
    store.add_results(run.info.id, results[:7])
    assert store.load_run(run.info.id).results == results


def test_same_key_replaces_the_result(store: Store) -> None:
    run = make_run(1, 2, with_errors=False)
    store.create_run(run)
    again = make_run(1, 2, with_errors=False).results[0]
    again.score = again.metrics["field_accuracy"] = 0.5
    store.add_results(run.info.id, [again])
    loaded = store.load_run(run.info.id).results
    assert len(loaded) == 2 and loaded[0].score == 0.5
    assert _count(store, "results", run.info.id) == 2


def test_add_results_to_an_unknown_run_names_it(store: Store) -> None:
    with pytest.raises(StoreError, match=r"no run 'nope' in .*`evalcore runs` lists the stored runs"):
        store.add_results("nope", make_run().results)


def test_a_batch_naming_an_unknown_case_stores_nothing(store: Store) -> None:
    run = make_run(2, 2)
    results, run.results = run.results, []
    store.create_run(run)
    results[-1].case = "vague/999"
    with pytest.raises(StoreError, match="unknown case"):
        store.add_results(run.info.id, results)
    assert _count(store, "results", run.info.id) == 0


def test_a_result_that_cannot_be_stored_is_a_store_error(store: Store) -> None:
    run = make_run(1, 1)
    run.results[0].output = {"ratio": float("nan")}
    with pytest.raises(StoreError, match="cannot be stored"):
        store.create_run(run)
    assert _count(store, "runs", run.info.id) == 0


def test_a_run_with_two_contenders_of_one_id_is_a_store_error(store: Store) -> None:
    run = make_run(2, 1, with_errors=False)
    run.contenders[1] = run.contenders[0]
    run.results = run.results[:1]
    with pytest.raises(StoreError, match="run 'run-0001' cannot be stored: (UNIQUE constraint failed|duplicate key)"):
        store.create_run(run)
    assert store.list_runs() == []


def test_set_status_follows_the_finished_at_rule(store: Store) -> None:
    store.create_run(make_run(status="running"))
    store.set_status("run-0001", "completed")
    finished = store.load_run("run-0001").info.finished_at
    assert finished is not None and finished.endswith("Z")
    store.set_status("run-0001", "interrupted", finished_at="2026-11-29T19:00:00Z")
    info = store.load_run("run-0001").info
    assert (info.status, info.finished_at) == ("interrupted", None)
    store.set_status("run-0001", "failed", finished_at="2026-11-29T19:00:00Z")
    assert store.load_run("run-0001").info.finished_at == "2026-11-29T19:00:00Z"


def test_set_status_refuses_unknown_status_and_unknown_run(store: Store) -> None:
    store.create_run(make_run())
    with pytest.raises(StoreError, match="not one of running, completed"):
        store.set_status("run-0001", "done")  # type: ignore[arg-type]
    with pytest.raises(StoreError, match="no run 'ghost'"):
        store.set_status("ghost", "completed")


def test_done_keys_are_the_stored_keys(store: Store) -> None:
    run = make_run(2, 3, samples=2)
    store.create_run(run)
    assert store.done_keys(run.info.id) == {r.key for r in run.results}
    errors = {r.key for r in run.results if r.status == "error"}
    assert errors and store.done_keys(run.info.id, include_errors=False) == {r.key for r in run.results} - errors


def test_delete_cascades_and_spares_other_runs(store: Store) -> None:
    store.create_run(make_run(run_id="a"))
    store.create_run(make_run(run_id="b"))
    store.delete_run("a")
    assert [_count(store, t, "a") for t in ("runs", "contenders", "cases", "results")] == [0, 0, 0, 0]
    assert store.load_run("b") == make_run(run_id="b")
    with pytest.raises(StoreError, match="no run 'a'"):
        store.delete_run("a")


def test_load_of_an_unknown_run_suggests_evalcore_runs(store: Store) -> None:
    for load in (store.load_run, store.load_results_frame, store.done_keys):
        with pytest.raises(StoreError, match="no run 'x'.*evalcore runs"):
            load("x")


def test_store_is_usable_from_another_thread(store: Store) -> None:
    store.create_run(make_run())
    seen: list[int] = []
    worker = threading.Thread(target=lambda: seen.append(len(store.list_runs())))
    worker.start()
    worker.join()
    assert seen == [1]


def test_two_connections_write_at_once_without_locking_errors(store_location: str) -> None:
    runs = [make_run(2, 20, run_id=f"run-{i}") for i in range(2)]
    batches = []
    with Store(store_location) as setup:
        for run in runs:
            batches.append(run.results)
            run.results = []
            setup.create_run(run)
    failures: list[BaseException] = []

    def write(run_id: str, results: list[records.Result]) -> None:
        with Store(store_location) as own:
            try:
                for r in results:
                    own.add_results(run_id, [r])
            except BaseException as e:  # reported below: a thread's exception is otherwise lost
                failures.append(e)

    workers = [threading.Thread(target=write, args=(r.info.id, b)) for r, b in zip(runs, batches, strict=True)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert failures == []
    with Store(store_location) as check:
        assert [s["results"] for s in check.list_runs()] == [40, 40]


# --- import --------------------------------------------------------------------------------------


def test_a_failing_import_stores_nothing(store: Store) -> None:
    run = make_run(2, 3)
    run.results[-1].case = "vague/999"
    with pytest.raises(StoreError, match=r"unknown case \('immigration_law', 'vague/999'\)"):
        store.import_run(run)
    assert _count(store, "runs", run.info.id) == 0
    assert [_count(store, t, run.info.id) for t in ("contenders", "cases", "results")] == [0, 0, 0]


def test_importing_a_stored_id_is_refused_unless_replace(store: Store) -> None:
    store.import_run(make_run(2, 3))
    with pytest.raises(StoreError, match="already in the store.*--replace"):
        store.import_run(make_run(3, 2))
    newer = make_run(3, 2)
    store.import_run(newer, replace=True)
    assert store.load_run("run-0001") == newer
    assert len(store.list_runs()) == 1


def test_a_failing_replace_keeps_the_old_run(store: Store) -> None:
    old = make_run(2, 3)
    store.import_run(old)
    broken = make_run(3, 2)
    broken.results[-1].contender = "fake/nobody"
    with pytest.raises(StoreError, match="unknown contender"):
        store.import_run(broken, replace=True)
    assert store.load_run("run-0001") == old


# --- summaries -----------------------------------------------------------------------------------


def test_list_runs_summarises_each_run_newest_first(store: Store) -> None:
    older, newer = make_run(2, 3, run_id="older"), make_run(3, 4, samples=2, run_id="newer")
    newer.info.created_at = "2026-11-30T08:00:00.000Z"
    empty = make_run(1, 2, run_id="empty", status="running")
    empty.info.created_at, empty.results = "2026-11-28T08:00:00.000Z", []
    for run in (older, newer, empty):
        store.create_run(run)
    summaries = store.list_runs()
    assert [s["id"] for s in summaries] == ["newer", "older", "empty"]
    for summary, run in zip(summaries, (newer, older, empty), strict=True):
        costs = [r.usage.cost_usd for r in run.results if r.usage.cost_usd is not None]
        assert summary == {
            "id": run.info.id,
            "suite": run.info.suite,
            "created_at": run.info.created_at,
            "finished_at": run.info.finished_at,
            "status": run.info.status,
            "contenders": len(run.contenders),
            "cases": len(run.cases),
            "results": len(run.results),
            "errors": sum(r.status == "error" for r in run.results),
            "cost_usd": pytest.approx(sum(costs)) if costs else None,
            "launched_by": None,
            "metadata": {},
        }


# --- results frame -------------------------------------------------------------------------------

FRAME_COLUMNS = [
    "contender", "dataset", "case", "variant", "sample", "status", "error_kind", "score",
    "m_field_accuracy", "m_exact_match", "m_restraint", "m_hallucinated_rate",
    "cost_usd", "latency_s", "input_tokens", "output_tokens", "meta_words", "meta_difficulty",
]  # fmt: skip


def test_frame_from_store_equals_frame_from_memory(store: Store) -> None:
    run = make_run(3, 7, samples=2)
    store.create_run(run)
    frame = store.load_results_frame(run.info.id)
    pd.testing.assert_frame_equal(frame, results_frame(run))
    assert list(frame.columns) == FRAME_COLUMNS


def test_frame_dtypes_and_values(store: Store) -> None:
    run = make_run(2, 3)
    store.create_run(run)
    frame = store.load_results_frame(run.info.id)
    assert frame["sample"].dtype == "int64"
    numeric = ["score", "m_field_accuracy", "cost_usd", "latency_s", "input_tokens", "output_tokens", "meta_words"]
    assert all(frame[c].dtype == "float64" for c in numeric)
    failed = frame[frame["status"] == "error"].iloc[0]
    assert failed["error_kind"] == "transport" and pd.isna(failed["score"]) and pd.isna(failed["cost_usd"])
    assert list(frame["m_restraint"].isna()) == [r.metrics.get("restraint") is None for r in run.results]
    assert list(frame["meta_difficulty"].astype(object).where(frame["meta_difficulty"].notna(), None)) == [
        run.cases[i].metadata.get("difficulty") for i in (0, 1, 2, 0, 1, 2)
    ]


def test_frame_keeps_only_its_run_when_runs_interleave(store: Store) -> None:
    a, b = make_run(2, 3, run_id="a"), make_run(3, 2, run_id="b")
    results_a, results_b = a.results, b.results
    a.results, b.results = [], []
    store.create_run(a)
    store.create_run(b)
    for ra, rb in zip(results_a, results_b, strict=False):
        store.add_results("a", [ra])
        store.add_results("b", [rb])
    store.add_results("a", results_a[len(results_b) :])
    store.add_results("b", results_b[len(results_a) :])
    a.results, b.results = results_a, results_b
    pd.testing.assert_frame_equal(store.load_results_frame("a"), results_frame(a))
    pd.testing.assert_frame_equal(store.load_results_frame("b"), results_frame(b))


def test_frame_of_a_run_without_results_has_the_columns(store: Store) -> None:
    run = make_run(2, 3)
    run.results = []
    store.create_run(run)
    frame = store.load_results_frame(run.info.id)
    assert frame.empty and list(frame.columns) == FRAME_COLUMNS
    pd.testing.assert_frame_equal(frame, results_frame(run))


def test_metadata_columns_keep_mixed_values(store: Store) -> None:
    run = make_run(1, 3, with_errors=False)
    run.cases[0].metadata["tags"] = ["a", "b"]
    run.cases[1].metadata["tags"] = True
    store.create_run(run)
    frame = store.load_results_frame(run.info.id)
    pd.testing.assert_frame_equal(frame, results_frame(run))
    assert list(frame["meta_tags"]) == ['["a", "b"]', True, None]


def test_frame_has_a_column_per_declared_metric(store: Store) -> None:
    run = make_run(1, 2, with_errors=False)
    run.metrics.append(records.Metric("latency_ok", "Answered within the budget."))
    store.create_run(run)
    frame = store.load_results_frame(run.info.id)
    assert frame["m_latency_ok"].isna().all()
    pd.testing.assert_frame_equal(frame, results_frame(run))


def test_case_order_of_the_run_is_kept(store: Store) -> None:
    run = make_run(1, 0, with_errors=False)
    run.cases = [make_case(5), make_case(1)]
    store.create_run(run)
    assert [c.id for c in store.load_run(run.info.id).cases] == [make_case(5).id, make_case(1).id]
    assert dump_run(store.load_run(run.info.id)) == dump_run(run)


def _run_order(run: records.Run) -> Callable[[records.Result], tuple[int, int, int]]:
    contenders = {c.id: i for i, c in enumerate(run.contenders)}
    cases = {c.key: i for i, c in enumerate(run.cases)}
    return lambda r: (contenders[r.contender], cases[(r.dataset, r.case)], r.sample)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(run=valid_runs())
def test_any_valid_run_round_trips_through_the_store(run: records.Run) -> None:
    with Store(":memory:") as s:
        s.import_run(run)
        loaded = s.load_run(run.info.id)
        assert loaded == dataclasses.replace(run, results=sorted(run.results, key=_run_order(run)))
        pd.testing.assert_frame_equal(s.load_results_frame(run.info.id), results_frame(loaded))
        s.import_run(read_run_file(dump_run(loaded)), replace=True)
        assert dump_run(s.load_run(run.info.id)) == dump_run(loaded)


def test_cases_and_error_messages_read_without_the_results(store: Store) -> None:
    run = make_run(3, 5)
    store.import_run(run)
    assert store.load_cases(run.info.id) == run.cases
    assert store.error_messages(run.info.id) == {
        (r.contender, r.dataset, r.case, r.sample): r.error.message for r in run.results if r.error
    }
    assert store.error_messages(run.info.id)  # the factory's last contender has errors
    assert store.load_cases("no-such-run") == [] and store.error_messages("no-such-run") == {}


def test_reading_a_run_back_leaves_the_garbage_collector_as_it_was(store: Store) -> None:
    import gc

    run = make_run(2, 3)
    store.create_run(run)
    assert gc.isenabled()
    assert store.load_run(run.info.id) == run
    assert gc.isenabled()
    with pytest.raises(StoreError):
        store.load_run("no-such-run")
    assert gc.isenabled()


def test_a_run_read_in_parts_is_the_run_read_whole_from_one_snapshot(store_location: str) -> None:
    run = make_run(3, 5, samples=2)
    with Store(store_location) as store:
        store.create_run(dataclasses.replace(run, results=run.results[:-1]))
        head, parts = store.load_run_in_parts(run.info.id, size=4)
        store.add_results(run.info.id, run.results[-1:])  # after the snapshot: not in it
        got = list(parts)
        assert head.results == [] and head == dataclasses.replace(store.load_run(run.info.id), results=[])
        assert [len(p) for p in got] == [4, 4, 4, 4, 4, 4, 4, 1]
        assert [r for p in got for r in p] == run.results[:-1]
        with pytest.raises(StoreError, match="no run 'nope'"):
            store.load_run_in_parts("nope")


def test_a_run_read_in_parts_from_postgresql_is_fetched_from_the_server_a_part_at_a_time(postgres_server) -> None:
    import psycopg

    run = make_run(3, 5, samples=2)
    url = postgres_server.new_url()
    with Store(url) as store:
        store.create_run(run)
        _, parts = store.load_run_in_parts(run.info.id, size=4)
        next(parts)
        with psycopg.connect(url) as conn:
            sent = conn.execute(
                "SELECT query FROM pg_stat_activity WHERE state = 'idle in transaction' AND pid <> pg_backend_pid()"
            ).fetchall()
        parts.close()
    assert [q.split()[:2] for (q,) in sent] == [["FETCH", "FORWARD"]]  # not every row of one SELECT at once


def test_a_run_in_memory_is_read_in_one_part() -> None:
    run = make_run(2, 3)
    with Store(":memory:") as store:
        store.create_run(run)
        head, parts = store.load_run_in_parts(run.info.id)
        assert head.results == [] and list(parts) == [run.results]


def test_failed_calls_are_the_error_results_in_the_runs_order(store: Store) -> None:
    run = make_run(3, 4, samples=2)
    for r in run.results[:3]:
        failed(r, "timeout")
    store.create_run(run)
    expected = [
        (r.contender, r.error.kind, r.error.message) for r in run.results if r.status == "error" and r.error is not None
    ]
    assert store.failed_calls(run.info.id) == expected
    assert [kind for _, kind, _ in expected] == ["timeout", "timeout", "timeout", "transport"]  # not the unusable reply


# --- stops, statuses and short ids ---------------------------------------------------------------


def test_a_run_the_user_stopped_is_stored_interrupted_and_listed_cancelled(store: Store) -> None:
    store.create_run(make_run(status="running"))
    store.set_status("run-0001", "interrupted", stopped_by="user")
    info = store.load_run("run-0001").info
    assert info.status == "interrupted" and info.settings["stopped_by"] == "user"  # the run file's status
    assert status_label(info.status, info.settings) == "cancelled"
    assert store.list_runs()[0]["status"] == "cancelled"
    store.set_status("run-0001", "running")  # resumed: no longer stopped
    assert "stopped_by" not in store.load_run("run-0001").info.settings
    assert store.list_runs()[0]["status"] == "running"


def test_a_crash_stays_interrupted(store: Store) -> None:
    store.create_run(make_run(status="running"))
    store.set_status("run-0001", "interrupted")
    assert store.list_runs()[0]["status"] == "interrupted"
    assert status_label("interrupted", store.load_run("run-0001").info.settings) == "interrupted"


def test_a_unique_prefix_of_a_run_id_names_the_run(store: Store) -> None:
    store.create_run(make_run(run_id="3e8bd3ea-1111-4000-8000-000000000000"))
    store.create_run(make_run(run_id="3e8b0000-2222-4000-8000-000000000000"))
    assert store.resolve_run_id("3e8bd3ea") == "3e8bd3ea-1111-4000-8000-000000000000"
    assert store.resolve_run_id("3e8b0000-2222-4000-8000-000000000000") == "3e8b0000-2222-4000-8000-000000000000"


def test_an_ambiguous_prefix_lists_the_runs_it_begins(store: Store) -> None:
    store.create_run(make_run(run_id="3e8bd3ea-1111-4000-8000-000000000000"))
    store.create_run(make_run(run_id="3e8b0000-2222-4000-8000-000000000000"))
    with pytest.raises(StoreError, match="ambiguous: it begins 2 runs") as caught:
        store.resolve_run_id("3e8b")
    assert "3e8bd3ea-1111" in str(caught.value) and "3e8b0000-2222" in str(caught.value)


def test_a_prefix_shorter_than_four_characters_or_matching_nothing_is_refused(store: Store) -> None:
    store.create_run(make_run(run_id="3e8bd3ea-1111-4000-8000-000000000000"))
    with pytest.raises(StoreError, match="too short: give at least 4 characters"):
        store.resolve_run_id("3e8")
    with pytest.raises(StoreError, match="no run 'ffff'"):
        store.resolve_run_id("ffff")
    with pytest.raises(StoreError, match="no run '3e8_'"):
        store.resolve_run_id("3e8_")  # LIKE wildcards in a prefix match themselves only


def test_result_counts_are_per_contender_in_the_runs_order(store: Store) -> None:
    run = make_run(2, 3)
    store.create_run(run)
    counts = store.result_counts(run.info.id)
    assert list(counts) == [c.id for c in run.contenders]
    assert sum(n for n, _ in counts.values()) == len(run.results)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(run=valid_runs())
def test_any_valid_run_round_trips_through_postgresql_as_through_sqlite(run: records.Run, postgres_store) -> None:
    # A total cost past the largest float is infinite in SQLite and an overflow error in PostgreSQL.
    assume(math.isfinite(sum(r.usage.cost_usd or 0.0 for r in run.results)))
    with Store(":memory:") as lite:
        lite.import_run(run)
        expected = dump_run(lite.load_run(run.info.id))
        expected_frame = lite.load_results_frame(run.info.id)
    try:
        postgres_store.import_run(run, replace=True)
    except StoreError as e:  # PostgreSQL's text has no NUL character: such a run is refused, and says so
        assert "NUL character" in str(e) and b"\\u0000" in dump_run(run)
        return
    try:
        assert dump_run(postgres_store.load_run(run.info.id)) == expected
        pd.testing.assert_frame_equal(postgres_store.load_results_frame(run.info.id), expected_frame)
    finally:
        postgres_store.delete_run(run.info.id)


def test_a_run_whose_id_is_a_path_is_not_stored(tmp_path):
    from dataclasses import replace

    from evalcore.core.errors import StoreError
    from tests.factories import make_run

    run = make_run()
    run.info = replace(run.info, id="../../x")
    store = Store(tmp_path / "db.sqlite")
    with pytest.raises(StoreError, match=r"'\.\./\.\./x' is not a run id"):
        store.import_run(run)
    assert store.list_runs() == []
