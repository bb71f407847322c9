"""``--db`` and ``EVALCORE_DB`` take a path or a URL: ``sqlite:///PATH`` and a bare path are SQLite files,
``postgresql://…`` a PostgreSQL server, and any other scheme is refused by name (exit 2, one line)."""

from __future__ import annotations

import os

from evalcore.cli import main
from evalcore.storage.store import Store


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    return code, capsys.readouterr().err


def test_a_postgresql_url_never_becomes_a_folder_of_that_name(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # Port 9 on the loopback: nothing listens, so the connection is refused at once.
    _run(capsys, "runs", "--db", "postgresql://user@127.0.0.1:9/evalcore")
    assert not (tmp_path / "postgresql:").exists()
    assert os.listdir(tmp_path) == []


def test_an_unreachable_postgresql_server_is_one_line_naming_the_server(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, err = _run(capsys, "runs", "--db", "postgresql://user:secret@127.0.0.1:9/evalcore")
    assert code == 2
    assert err.count("\n") == 1 and "127.0.0.1:9" in err and "Traceback" not in err
    assert "secret" not in err


def test_an_unsupported_scheme_is_refused_by_name(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, err = _run(capsys, "runs", "--db", "mysql://user@host/evalcore")
    assert code == 2
    assert "mysql" in err and "postgresql://" in err and err.count("\n") == 1
    assert os.listdir(tmp_path) == []


def test_an_unsupported_scheme_in_evalcore_db_is_refused_by_name(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EVALCORE_DB", "mongodb://host/evalcore")
    code, err = _run(capsys, "runs")
    assert code == 2
    assert "mongodb" in err and "EVALCORE_DB" in err


def test_a_sqlite_url_names_the_file_relative_to_the_working_folder(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Store(tmp_path / "data" / "team.db").close()
    code, err = _run(capsys, "runs", "--db", "sqlite:///data/team.db")
    assert code == 0, err


def test_a_sqlite_url_with_four_slashes_names_an_absolute_file(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path / "..")
    Store(tmp_path / "abs.db").close()
    code, err = _run(capsys, "runs", "--db", f"sqlite:///{tmp_path}/abs.db")
    assert code == 0, err
