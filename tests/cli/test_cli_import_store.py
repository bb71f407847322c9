"""``evalcore import`` creates its store only for a run to write: a failed import leaves no new file or folder."""

from __future__ import annotations

from evalcore.cli import main
from evalcore.runfile.write import write_run_file
from evalcore.storage.store import Store
from tests.factories import make_run


def _bad(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "evalcore.run", "schema_version": 1}')
    return path


def test_a_failed_import_leaves_no_store_file_behind(tmp_path, capsys):
    db = tmp_path / "new.db"
    assert main(["import", str(_bad(tmp_path)), "--db", str(db)]) == 2
    assert "error: " in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]


def test_a_failed_import_into_a_new_folder_leaves_no_folder_behind(tmp_path):
    assert main(["import", str(_bad(tmp_path)), "--db", str(tmp_path / "stores" / "team" / "new.db")]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]


def test_a_failed_import_into_an_existing_store_keeps_it(tmp_path):
    db = tmp_path / "old.db"
    with Store(db) as store:
        store.import_run(make_run(run_id="kept"))
    assert main(["import", str(_bad(tmp_path)), "--db", str(db)]) == 2
    assert [r["id"] for r in Store(db).list_runs()] == ["kept"]


def test_one_good_file_among_bad_ones_creates_the_store_with_its_run(tmp_path):
    good = write_run_file(make_run(run_id="good"), tmp_path / "good.json")
    db = tmp_path / "new.db"
    assert main(["import", str(_bad(tmp_path)), str(good), "--db", str(db)]) == 2
    assert [r["id"] for r in Store(db).list_runs()] == ["good"]


def test_a_run_that_cannot_be_written_leaves_no_new_store_behind(tmp_path, monkeypatch):
    from evalcore.cli import history
    from evalcore.core.errors import StoreError

    def refuse(store, run, replace):
        raise StoreError(f"{store.path}: cannot write run {run.info.id}")

    def refuse_parts(store, head, parts, tail, replace=False):
        raise StoreError(f"{store.path}: cannot write run {head.info.id}")

    monkeypatch.setattr(history, "store_run", refuse)  # a file read whole
    monkeypatch.setattr(Store, "import_run_in_parts", refuse_parts)  # a run file as it streams
    good = write_run_file(make_run(run_id="good"), tmp_path / "good.json")
    assert main(["import", str(good), "--db", str(tmp_path / "stores" / "new.db")]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.json"]


def test_importing_the_same_run_again_changes_nothing_and_says_so_in_one_line(tmp_path, capsys):
    path = write_run_file(make_run(run_id="same"), tmp_path / "same.json")
    db = tmp_path / "e.db"
    assert main(["import", str(path), "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["import", str(path), "--db", str(db)]) == 0
    out, err = capsys.readouterr()
    assert out == f"run same is already in the store {db}, unchanged: nothing imported\n" and err == ""
    assert [r["id"] for r in Store(db).list_runs()] == ["same"]


def test_importing_a_different_run_under_a_stored_id_is_still_refused(tmp_path, capsys):
    db = tmp_path / "e.db"
    first = write_run_file(make_run(2, 3, run_id="same"), tmp_path / "first.json")
    other = write_run_file(make_run(3, 2, run_id="same"), tmp_path / "other.json")
    assert main(["import", str(first), "--db", str(db)]) == 0
    assert main(["import", str(other), "--db", str(db)]) == 2
    assert "'same' is already in the store" in capsys.readouterr().err
    assert len(Store(db).load_run("same").contenders) == 2
