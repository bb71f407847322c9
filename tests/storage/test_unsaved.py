"""Results a run could not store, kept in a file (evalcore.storage.unsaved) until a resume stores them."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalcore.core.errors import StoreError
from evalcore.storage import unsaved
from evalcore.storage.store import Store
from tests.factories import make_run


def _store_and_rows(tmp_path: Path) -> tuple[Store, str, list, list[tuple]]:
    run = make_run(2, 3, with_errors=True)
    results, run.results = run.results, []
    store = Store(tmp_path / "u.db")
    store.create_run(run)
    make_row = store.result_rows(run.info.id)
    return store, run.info.id, results, [make_row(r) for r in results]


def _seen(results: list) -> list[tuple]:
    return sorted((r.contender, r.dataset, r.case, r.sample, r.status, r.score, r.metrics, r.raw) for r in results)


def test_kept_rows_are_stored_whole_by_store_unsaved_and_the_file_is_removed(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(unsaved.UNSAVED_DIR_ENV, str(tmp_path / "kept"))
    store, run_id, results, rows = _store_and_rows(tmp_path)
    path = unsaved.keep_unsaved(run_id, rows[:4])
    unsaved.keep_unsaved(run_id, rows[4:])  # a second loss of the same run adds to the file
    assert path == tmp_path / "kept" / f"{run_id}.jsonl"
    assert any(isinstance(v, bytes) for v in rows[0])  # the packed numbers travel through JSON
    assert unsaved.store_unsaved(store, run_id) == (len(rows), path)
    assert _seen(store.load_run(run_id).results) == _seen(results)
    assert store.load_results_frame(run_id)["score"].notna().sum() == sum(r.score is not None for r in results)
    assert not path.exists()
    assert unsaved.store_unsaved(store, run_id) is None


def test_the_files_live_in_the_user_s_state_folder_unless_named(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv(unsaved.UNSAVED_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert unsaved.unsaved_path("r1") == tmp_path / "state" / "evalcore" / "unsaved" / "r1.jsonl"


def test_a_file_cut_short_is_named_and_kept(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(unsaved.UNSAVED_DIR_ENV, str(tmp_path / "kept"))
    store, run_id, _, rows = _store_and_rows(tmp_path)
    path = unsaved.keep_unsaved(run_id, rows[:2])
    path.write_text(path.read_text()[:-20])
    with pytest.raises(StoreError, match=f"{path}: line 2 is not a result's row"):
        unsaved.store_unsaved(store, run_id)
    assert path.exists() and store.list_runs()[0]["results"] == 0
