"""``evalcore import FILE`` and ``evalcore leaderboard FILE`` read a run file as it streams: the same stored run
and leaderboard as the whole reader gives, the same refusal of a bad file, and nothing half-imported."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from evalcore.cli import imports, main
from evalcore.core.errors import RunFileError
from evalcore.runfile import fast as runfile_fast
from evalcore.runfile import stream
from evalcore.runfile.importers import read_import
from evalcore.runfile.write import dump_run, write_run_file
from evalcore.storage.store import Store
from tests.factories import make_run

#: Bytes of lines per part in these tests: a small run's results come in many parts.
CHUNK = 400


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runfile_fast, "CHUNK_BYTES", CHUNK)


def _run_file(tmp_path: Path, name: str = "run.json", **kwargs: object) -> Path:
    return write_run_file(make_run(4, 12, samples=2, **kwargs), tmp_path / name)  # type: ignore[arg-type]


def _leaderboard(ref: str, db: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["leaderboard", ref, "--db", str(db), "--format", "json"]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("name", ["run.json", "run.json.gz"])
def test_a_run_file_imported_as_it_streams_is_stored_as_the_whole_reader_stores_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    path = _run_file(tmp_path, name)
    with monkeypatch.context() as patch:
        patch.setattr(imports, "read_with_bar", lambda *a, **k: pytest.fail("read whole"))
        assert main(["import", str(path), "--db", str(tmp_path / "streamed.db")]) == 0
    streamed_out = capsys.readouterr().out
    with monkeypatch.context() as patch:
        patch.setattr(stream, "import_run_file", lambda *a, **k: None)
        assert main(["import", str(path), "--db", str(tmp_path / "whole.db")]) == 0
    whole_out = capsys.readouterr().out
    assert streamed_out.replace("streamed.db", "whole.db") == whole_out
    with Store(tmp_path / "streamed.db") as streamed, Store(tmp_path / "whole.db") as whole:
        assert streamed.load_run("run-0001") == whole.load_run("run-0001") == read_import(path)
        assert streamed.load_results_frame("run-0001").equals(whole.load_results_frame("run-0001"))
    assert _leaderboard("run-0001", tmp_path / "streamed.db", capsys) == _leaderboard(
        "run-0001", tmp_path / "whole.db", capsys
    )


def test_the_leaderboard_of_a_file_ranked_as_it_streams_is_the_whole_readers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _run_file(tmp_path)
    with monkeypatch.context() as patch:
        patch.setattr(stream, "import_run_file", lambda *a, **k: None)
        whole = _leaderboard(str(path), tmp_path / "none.db", capsys)
    assert _leaderboard(str(path), tmp_path / "none.db", capsys) == whole
    assert json.loads(whole) and not (tmp_path / "none.db").exists()


def _truncated(tmp_path: Path) -> Path:
    data = dump_run(make_run(4, 12, samples=2))
    path = tmp_path / "cut.json"
    path.write_bytes(data[: int(len(data) * 0.9)])
    return path


def _late_violation(tmp_path: Path) -> Path:
    """A file whose last result names a metric the run does not declare: many parts are read before it."""
    data = dump_run(make_run(4, 12, samples=2)).decode()
    at = data.rindex('"metrics":{')
    path = tmp_path / "late.json"
    path.write_text(data[:at] + '"metrics":{"made_up":0.5,' + data[at + len('"metrics":{') :])
    return path


def _garbage(tmp_path: Path) -> Path:
    path = tmp_path / "garbage.json.gz"
    path.write_bytes(gzip.compress(b"{\n" + b"\x00\xffnot json\n" * 50))
    return path


@pytest.mark.parametrize("bad", [_truncated, _late_violation, _garbage])
def test_a_bad_file_is_refused_as_the_whole_reader_refuses_it_and_nothing_is_stored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: object
) -> None:
    path = bad(tmp_path)  # type: ignore[operator]
    with pytest.raises(RunFileError) as whole:
        read_import(path)
    db = tmp_path / "e.db"
    with Store(db) as store:
        store.import_run(make_run(run_id="kept"))
    capsys.readouterr()
    assert main(["import", str(path), "--db", str(db)]) == 2
    assert capsys.readouterr().err == f"error: {whole.value}\n"
    with Store(db) as store:
        assert [r["id"] for r in store.list_runs()] == ["kept"]
        assert store.conn.execute("SELECT count(*) FROM results WHERE run_id != 'kept'").fetchone() == (0,)
    assert main(["leaderboard", str(path), "--db", str(db)]) == 2
    assert f"{whole.value}" in capsys.readouterr().err


def test_a_file_broken_after_some_parts_were_stored_leaves_no_new_store_behind(tmp_path: Path) -> None:
    path = _late_violation(tmp_path)
    assert main(["import", str(path), "--db", str(tmp_path / "new" / "e.db")]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["late.json"]


def test_a_run_already_stored_is_left_as_it_is_by_a_streamed_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _run_file(tmp_path)
    db = tmp_path / "e.db"
    assert main(["import", str(path), "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["import", str(path), "--db", str(db)]) == 0
    assert capsys.readouterr().out == f"run run-0001 is already in the store {db}, unchanged: nothing imported\n"
    assert main(["import", str(path), "--db", str(db), "--replace"]) == 0
    with Store(db) as store:
        assert store.load_run("run-0001") == read_import(path)
