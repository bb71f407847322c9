"""``--db`` and ``EVALCORE_DB`` take a path or a URL: ``sqlite:///PATH`` and a bare path are SQLite files,
``postgresql://…`` a PostgreSQL server, and any other scheme is refused by name (exit 2, one line)."""

from __future__ import annotations

import os
import socket
from urllib.parse import quote

import pytest

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


#: Pieces of a password: a leak of any part of it shows one.
HEAD, TAIL = "Pa55head", "tail77X"


@pytest.fixture(autouse=True)
def no_such_host(monkeypatch):
    """``*.invalid`` names no host, answered here as a resolver would (psycopg resolves through Python's
    ``getaddrinfo``), so no lookup leaves the machine."""
    resolve = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):
        if isinstance(host, str) and host.endswith(".invalid"):
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return resolve(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.mark.parametrize(
    "url",
    [
        f"postgresql://user:{HEAD}{TAIL}@127.0.0.1:9/evalcore",
        f"postgresql://user@127.0.0.1:9/evalcore?password={HEAD}{TAIL}",
        f"postgresql://user:{HEAD}?{TAIL}@127.0.0.1:9/evalcore",
        f"postgresql://user:{HEAD}#{TAIL}@127.0.0.1:9/evalcore",
        f"postgresql://user:{HEAD}/{TAIL}@127.0.0.1:9/evalcore",
        f"postgresql://user:{HEAD}@{TAIL}@127.0.0.1:9/evalcore",
        f"postgresql://user:{HEAD}{TAIL}@no-such-host.invalid:5432/evalcore",
        f"postgresql://user@no-such-host.invalid:5432/evalcore?password={HEAD}{TAIL}",
    ],
)
def test_a_password_is_never_shown_whatever_the_url_and_the_failure(capsys, tmp_path, monkeypatch, url):
    monkeypatch.chdir(tmp_path)
    code, err = _run(capsys, "runs", "--db", url)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert HEAD not in err and TAIL not in err


def test_a_refused_port_says_connection_refused_on_one_clean_line(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, err = _run(capsys, "runs", "--db", "postgresql://user@127.0.0.1:9/evalcore")
    assert code == 2
    assert "127.0.0.1:9" in err and "connection refused" in err
    assert "\t" not in err and "(\t" not in err and err.count("\n") == 1


def test_an_unknown_host_says_the_name_does_not_resolve(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, err = _run(capsys, "runs", "--db", "postgresql://user@no-such-host.invalid:5432/evalcore")
    assert code == 2
    assert "no-such-host.invalid" in err and "cannot resolve the host name" in err


def test_a_wrong_password_is_said_without_showing_it(capsys, tmp_path, monkeypatch, postgres_password_server):
    monkeypatch.chdir(tmp_path)
    url = postgres_password_server.url.replace(postgres_password_server.password, f"{HEAD}{TAIL}")
    code, err = _run(capsys, "runs", "--db", url)
    assert code == 2 and err.count("\n") == 1
    assert 'password authentication failed for user "postgres"' in err and "FATAL" not in err
    assert HEAD not in err and TAIL not in err


def test_a_setting_without_a_name_is_refused_without_quoting_it(capsys, tmp_path):
    from tests.suites import write_suite

    code, err = _run(capsys, "plan", write_suite(tmp_path / "suite"), "--set", f"{HEAD}{TAIL}")
    assert code == 2 and "KEY=VALUE" in err
    assert HEAD not in err and TAIL not in err


def test_the_password_may_come_from_pgpassword_off_the_command_line(
    capsys, tmp_path, monkeypatch, postgres_password_server
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PGPASSWORD", postgres_password_server.password)
    url = postgres_password_server.new_url().replace(f":{quote(postgres_password_server.password, safe='')}@", "@")
    assert postgres_password_server.password not in url
    code, err = _run(capsys, "runs", "--db", url)
    assert code == 0, err
