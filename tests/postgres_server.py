"""A throwaway PostgreSQL server for the tests: Debian's binaries, a cluster in a temporary folder, 127.0.0.1.

``initdb`` refuses to run as root, so as root the cluster belongs to the ``postgres`` user (``runuser``).
Each test gets a schema of its own (:meth:`PostgresServer.new_url`): a store there starts empty.
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import quote

#: Set by tests/run.sh: a missing PostgreSQL fails the tests that need it instead of skipping them.
REQUIRE_ENV = "EVALCORE_REQUIRE_POSTGRES"


def postgres_bin() -> Path | None:
    """The folder of the newest installed PostgreSQL's binaries (``/usr/lib/postgresql/<version>/bin``)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    return Path(found[-1]).parent if found else None


class PostgresServer:
    """A running cluster; :meth:`stop` ends it and deletes its folder. With a ``password``, the cluster asks
    for it (``scram-sha-256``) on every connection, as a hosted database does; without, it trusts anyone."""

    def __init__(self, bin_dir: Path, password: str | None = None):
        self.bin = bin_dir
        self.password = password
        self.folder = Path(tempfile.mkdtemp(prefix="evalcore-pg-"))
        self.port = _free_port()
        self._as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self._as_user:
            shutil.chown(self.folder, "postgres")
        data = self.folder / "data"
        auth = ["-A", "trust"]
        if password is not None:
            pwfile = self.folder / "pwfile"
            pwfile.write_text(password + "\n")
            if self._as_user:
                shutil.chown(pwfile, "postgres")
            auth = ["-A", "scram-sha-256", f"--pwfile={pwfile}"]
        self._run(str(self.bin / "initdb"), "-D", str(data), *auth, "-U", "postgres", "--no-sync", "-E", "UTF8")
        self.start()
        self._schemas = itertools.count(1)

    def start(self) -> None:
        """Start the server (again, after :meth:`halt`), on the same port with the same databases."""
        options = (
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off "
            "-c full_page_writes=off"
        )
        data = self.folder / "data"
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(self.folder / "log"), "-w", "start"
        )

    def halt(self) -> None:
        """Stop the server as an administrator does (``pg_ctl stop``: its sessions are ended, what they committed is
        kept), keeping its databases for :meth:`start`. Not a crash: with ``synchronous_commit=off`` a crash may
        drop the last commits, which no client could keep."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "fast", "-w", "stop")

    @property
    def url(self) -> str:
        """The server's ``postgres`` database, as its superuser (with its password, when it has one)."""
        user = "postgres" if self.password is None else f"postgres:{quote(self.password, safe='')}"
        return f"postgresql://{user}@127.0.0.1:{self.port}/postgres"

    def new_url(self) -> str:
        """A URL whose tables live in a new, empty schema of their own."""
        import psycopg

        name = f"t{next(self._schemas)}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
            conn.execute(f"CREATE SCHEMA {name}")
        return f"{self.url}?options={quote(f'-c search_path={name}')}"

    def stop(self) -> None:
        """Stop the server at once and delete its folder."""
        subprocess.run(
            [*self._as_user, str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "immediate", "stop"],
            capture_output=True,
            check=False,
        )
        shutil.rmtree(self.folder, ignore_errors=True)

    def _run(self, *argv: str) -> None:
        done = subprocess.run([*self._as_user, *argv], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            log = self.folder / "log"
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}\n{tail}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
