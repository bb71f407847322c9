"""Shared fixtures. No test reaches the network: every connection off the loopback is blocked."""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.openai_server import OpenAIServer
from tests.postgres_server import REQUIRE_ENV as REQUIRE_POSTGRES
from tests.postgres_server import PostgresServer, postgres_bin

#: Where the browser tests live (see :func:`pytest_collection_modifyitems`).
BROWSER_TESTS = Path(__file__).parent / "browser"

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"


class NetworkBlocked(OSError):
    """A test tried to reach a host that is not this machine."""


def _is_loopback(host: Any) -> bool:
    if host in (None, "", "localhost", b"localhost"):
        return True
    try:
        return ipaddress.ip_address(host.decode() if isinstance(host, bytes) else host).is_loopback
    except ValueError:
        return False


def _check(address: Any, blocked: list[Any]) -> None:
    """Raise for an internet address; unix socket paths (str or bytes) are local."""
    if isinstance(address, tuple) and not _is_loopback(address[0]):
        blocked.append(address)
        raise NetworkBlocked(f"tests must not reach the network: connection to {address!r} blocked by conftest")


@pytest.fixture(autouse=True)
def network_guard(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Block non-loopback connections; a test that tried one fails even if the error was swallowed.

    Yields the list of blocked addresses (a test of the guard clears it).
    """
    blocked: list[Any] = []
    connect, connect_ex = socket.socket.connect, socket.socket.connect_ex
    create_connection, getaddrinfo = socket.create_connection, socket.getaddrinfo

    def guarded_connect(sock: socket.socket, address: Any) -> None:
        _check(address, blocked)
        return connect(sock, address)

    def guarded_connect_ex(sock: socket.socket, address: Any) -> int:
        _check(address, blocked)
        return connect_ex(sock, address)

    def guarded_create_connection(address: Any, *args: Any, **kwargs: Any) -> socket.socket:
        _check(address, blocked)
        return create_connection(address, *args, **kwargs)

    def guarded_getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        _check((host, port), blocked)
        return getaddrinfo(host, port, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
    monkeypatch.setattr(socket, "create_connection", guarded_create_connection)
    monkeypatch.setattr(socket, "getaddrinfo", guarded_getaddrinfo)
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    yield blocked
    assert not blocked, f"the test tried to reach the network: {blocked}"


@pytest.fixture(autouse=True)
def user_data(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The per-user data folder (``$XDG_DATA_HOME``): a command run outside any project keeps its store there,
    never in the home folder of whoever runs the tests."""
    folder = tmp_path_factory.mktemp("user-data")
    monkeypatch.setenv("XDG_DATA_HOME", str(folder))
    return folder


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    """A started OpenAI-compatible server on 127.0.0.1; script faults with ``server.script(...)``."""
    with OpenAIServer() as server:
        yield server


@pytest.fixture
def tmp_db(tmp_path: Path) -> Path:
    """Where a test's SQLite store lives."""
    return tmp_path / "evalcore.db"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One throwaway PostgreSQL server for the session (skipped when PostgreSQL is not installed, unless
    ``$EVALCORE_REQUIRE_POSTGRES`` is set, as tests/run.sh sets it)."""
    bin_dir = postgres_bin()
    if bin_dir is None:
        missing = "PostgreSQL is not installed: apt-get install postgresql (tests/run.sh does)"
        if os.environ.get(REQUIRE_POSTGRES):
            pytest.fail(missing)
        pytest.skip(missing)
    server = PostgresServer(bin_dir)
    yield server
    server.stop()


#: The password of :func:`postgres_password_server`'s superuser: a message that shows a piece of it leaks it.
PG_PASSWORD = "pg-Secret-4242-pass"


@pytest.fixture(scope="session")
def postgres_password_server() -> Iterator[PostgresServer]:
    """A throwaway PostgreSQL server that asks for a password (:data:`PG_PASSWORD`), as a hosted one does: a
    connection made with the password masked (``***``) is refused there."""
    bin_dir = postgres_bin()
    if bin_dir is None:
        missing = "PostgreSQL is not installed: apt-get install postgresql (tests/run.sh does)"
        if os.environ.get(REQUIRE_POSTGRES):
            pytest.fail(missing)
        pytest.skip(missing)
    server = PostgresServer(bin_dir, password=PG_PASSWORD)
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a test's store lives: a SQLite file, then (the same test again) a new PostgreSQL schema."""
    if request.param == "sqlite":
        return str(tmp_path / "evalcore.db")
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.new_url()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run browser tests last: Playwright's sync API keeps an event loop running in the main thread
    until the session ends, and every later ``asyncio.run`` would fail. Every test under tests/browser is a
    browser test, marked or not (a new file that forgets its mark must not break the rest of the run)."""
    browser = BROWSER_TESTS.resolve()
    for item in items:
        if item.get_closest_marker("browser") is None and browser in Path(item.path).resolve().parents:
            item.add_marker(pytest.mark.browser)
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)
