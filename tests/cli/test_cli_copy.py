"""``evalcore copy --from STORE --to STORE``: a history moved between SQLite and PostgreSQL, every run exactly
(the run files exported from either store are the same bytes), and back."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from evalcore.cli import main
from evalcore.runfile.write import write_run_file
from evalcore.storage import baselines
from evalcore.storage.store import Store
from tests.factories import cut_run, make_run, rated_run, timestamp


def _history(path: Path) -> list[str]:
    """A SQLite store with a finished run, a judged and rated one, one cut short and one stopped by its user."""
    with Store(path) as store:
        store.import_run(make_run(3, 5, samples=2, run_id="run-a"))
        store.import_run(rated_run("run-b"))
        store.import_run(cut_run("run-c"))
        stopped = make_run(2, 3, run_id="run-d")
        stopped.info = dataclasses.replace(
            stopped.info, created_at=timestamp(90), status="interrupted", finished_at=None
        )
        store.import_run(stopped)
        store.set_status("run-d", "interrupted", stopped_by="user", reason="enough")
        baselines.pin_baseline(
            store, "intake", "run-a", store.load_run("run-a").contenders[0].id, "2026-11-30T10:00:00Z"
        )
        return [entry["id"] for entry in store.list_runs()]


def _exports(location: str, folder: Path) -> dict[str, bytes]:
    """Every stored run's run file, by run id, and the baseline pins (as a run file would not hold them)."""
    folder.mkdir()
    out = {}
    with Store(location) as store:
        for entry in store.list_runs():
            out[entry["id"]] = write_run_file(store.load_run(entry["id"]), folder / f"{entry['id']}.json").read_bytes()
        out["pins"] = repr(baselines.baselines(store)).encode()
    return out


def test_a_history_copied_to_postgresql_and_back_exports_the_same_run_files(capsys, tmp_path, postgres_server):
    source, back, url = tmp_path / "source.db", tmp_path / "back.db", postgres_server.new_url()
    ids = _history(source)
    assert main(["copy", "--from", f"sqlite:///{source}", "--to", url]) == 0
    out = capsys.readouterr().out
    assert f"copied {len(ids)} runs" in out and "baseline pins copied: intake" in out
    assert main(["copy", "--from", url, "--to", str(back)]) == 0
    expected = _exports(str(source), tmp_path / "from-sqlite")
    assert _exports(url, tmp_path / "from-postgresql") == expected
    assert _exports(str(back), tmp_path / "back-in-sqlite") == expected
    with Store(url) as pg, Store(source) as lite:
        assert pg.list_runs() == lite.list_runs()


def test_copying_again_skips_the_runs_the_target_holds(capsys, tmp_path):
    source, target = tmp_path / "a.db", tmp_path / "b.db"
    _history(source)
    assert main(["copy", "--from", str(source), "--to", str(target), "run-a"]) == 0
    capsys.readouterr()
    assert main(["copy", "--from", str(source), "--to", str(target)]) == 0
    out = capsys.readouterr().out
    assert "copied 3 runs" in out and "skipped 1 the target already holds" in out


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--from", "missing.db", "--to", "b.db"], "--from missing.db: no such store"),
        (["--from", "a.db", "--to", "./a.db"], "name the same store"),
        (["--from", "a.db", "--to", "mysql://h/db"], "--to mysql://h/db: the scheme 'mysql' is not supported"),
    ],
    ids=["missing source", "same store", "unsupported scheme"],
)
def test_a_copy_that_cannot_be_done_is_one_line_and_exit_2(capsys, tmp_path, monkeypatch, argv, said):
    monkeypatch.chdir(tmp_path)
    Store(tmp_path / "a.db").close()
    assert main(["copy", *argv]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1


def test_a_postgresql_source_without_the_stores_tables_is_no_store_and_stays_without(capsys, tmp_path, postgres_server):
    import psycopg

    url = postgres_server.new_url()
    assert main(["copy", "--from", url, "--to", str(tmp_path / "b.db")]) == 2
    assert "no such store" in capsys.readouterr().err
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT to_regclass('evalcore_migrations')").fetchone() == (None,)
    assert not (tmp_path / "b.db").exists()
