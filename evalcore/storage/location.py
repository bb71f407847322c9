"""Where a store is: a SQLite file or a PostgreSQL server, named by a path or a URL.

``--db``, ``$EVALCORE_DB`` and the app's secret all take the same forms:

- a bare path (``data/evalcore.db``) or ``sqlite:///data/evalcore.db`` (three slashes: relative to the working
  folder; four, ``sqlite:////srv/evalcore.db``, an absolute path): a SQLite file, the default;
- ``postgresql://user:password@host:5432/dbname?sslmode=require`` (also ``postgres://`` and SQLAlchemy's
  ``postgresql+psycopg://``): a PostgreSQL database (see :mod:`evalcore.storage.postgres`).

Any other scheme is refused by name, never taken for a file path (``mysql://h/db`` would otherwise make a
folder ``mysql:``).

With neither ``--db`` nor ``$EVALCORE_DB``, the store is the nearest project's (:func:`default_location`): walking
up from the working folder (``run``: from the suite's folder), the first folder that holds ``data/evalcore.db``,
a ``pyproject.toml`` or a ``.git`` keeps the store in its ``data/evalcore.db``; outside any project, the per-user
store (``$XDG_DATA_HOME/evalcore/evalcore.db``, else ``~/.local/share/evalcore/evalcore.db``). So a command run
from a subfolder, and the app started at the project's root, use the same store.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

from evalcore.core.errors import ConfigError
from evalcore.storage.urls import check_password, without_password

#: The environment variable that names the store.
ENV = "EVALCORE_DB"
#: Where a project keeps its store, relative to the project's folder.
DEFAULT_DB = Path("data") / "evalcore.db"
#: What makes a folder a project's (besides a store in its ``data/``).
PROJECT_MARKERS = ("pyproject.toml", ".git")
#: The schemes a store URL may have, and the database each selects.
SCHEMES = {
    "sqlite": "sqlite",
    "postgresql": "postgresql",
    "postgres": "postgresql",
    "postgresql+psycopg": "postgresql",
}
# A scheme is letters, digits, + - . after a letter, then "://"; "C:\x.db" has no "//" and stays a path.
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


@dataclass(frozen=True)
class Location:
    """A store's place: a SQLite file (``path``) or a PostgreSQL database (``url``)."""

    #: ``sqlite`` or ``postgresql``.
    kind: str
    #: The SQLite file (``:memory:`` for a database in memory); None for PostgreSQL.
    path: Path | None = None
    #: The PostgreSQL connection URL (``postgresql://…``), password included; None for SQLite.
    url: str | None = None

    @property
    def is_server(self) -> bool:
        """True for a database server (shared, never created here as a file)."""
        return self.kind == "postgresql"

    def exists(self) -> bool:
        """Whether the store may hold something already: its file exists, or it is a server."""
        return self.is_server or (self.path is not None and self.path.is_file())

    @property
    def folder(self) -> Path:
        """Where files that go beside the store are kept: the SQLite file's folder, else ``data``."""
        return self.path.parent if self.path is not None else DEFAULT_DB.parent

    def same_as(self, other: Location) -> bool:
        """Whether ``other`` names this store too (the same file by another path, or the same URL)."""
        if self.path is not None and other.path is not None:
            return self.path.resolve() == other.path.resolve()
        return self.url is not None and self.url == other.url

    def __str__(self) -> str:
        """The store as messages show it: the path, or the URL without its password."""
        if self.url is None:
            return str(self.path)
        return without_password(self.url)


#: What names a store: a path, a ``sqlite:///`` or ``postgresql://`` URL, or a :class:`Location`.
StoreAddress: TypeAlias = "str | os.PathLike[str] | Location"


def parse_location(text: StoreAddress, source: str = "--db") -> Location:
    """The store that ``text`` (a path or a URL) names.

    Args:
        text: a path, a ``sqlite:///`` or a ``postgresql://`` URL (or a :class:`Location`, returned as it is).
        source: where ``text`` came from, for the error (``--db``, ``EVALCORE_DB``, a secret's name).

    Raises:
        ConfigError: the URL's scheme is not one a store can have, or a SQLite URL names no file.
    """
    if isinstance(text, Location):
        return text
    if not isinstance(text, str):
        return Location("sqlite", path=Path(text))
    found = _SCHEME.match(text)
    if found is None:
        return Location("sqlite", path=Path(text))
    scheme = found.group(1).lower()
    kind = SCHEMES.get(scheme)
    if kind is None:
        raise ConfigError(
            f"{source} {without_password(text)}: the scheme {scheme!r} is not supported; give a file path, "
            "sqlite:///PATH or postgresql://USER:PASSWORD@HOST:PORT/DATABASE"
        )
    if kind == "postgresql":
        check_password(text, source)
        return Location("postgresql", url="postgresql" + text[found.end(1) :])
    rest = text[found.end() :]  # sqlite:///data/e.db -> "/data/e.db"; sqlite:////abs -> "//abs"
    if rest in ("", "/", "/:memory:"):
        return Location("sqlite", path=Path(":memory:"))
    if not rest.startswith("/"):
        raise ConfigError(
            f"{source} {text}: a SQLite URL has three slashes and a path (sqlite:///data/evalcore.db, "
            "or four for an absolute path: sqlite:////srv/evalcore.db)"
        )
    return Location("sqlite", path=Path(rest[1:]))


def default_location(start: str | os.PathLike[str] | None = None) -> Location:
    """The store ``$EVALCORE_DB`` names, else the nearest project's (:func:`project_store`), else the per-user
    store (:func:`user_store`).

    Args:
        start: the folder the walk up to a project starts from (a command's working folder when None; a run's
            suite folder).

    Raises:
        ConfigError: ``$EVALCORE_DB`` is a URL of a scheme a store cannot have.
    """
    named = os.environ.get(ENV)
    return parse_location(named, ENV) if named else Location("sqlite", path=nearest_store(start))


def nearest_store(start: str | os.PathLike[str] | None = None) -> Path:
    """The store no setting names: the nearest project's up from ``start`` (the working folder when None), else
    the per-user one; an absolute path."""
    return project_store(Path.cwd() if start is None else Path(start)) or user_store()


def project_store(start: Path) -> Path | None:
    """``data/evalcore.db`` of the first folder, from ``start`` up, that holds one or a project marker
    (:data:`PROJECT_MARKERS`); None outside any project."""
    for folder in (start.absolute(), *start.absolute().parents):
        if (folder / DEFAULT_DB).is_file() or any((folder / marker).exists() for marker in PROJECT_MARKERS):
            return folder / DEFAULT_DB
    return None


def user_store() -> Path:
    """The store of commands run outside any project: ``$XDG_DATA_HOME/evalcore/evalcore.db``, else
    ``~/.local/share/evalcore/evalcore.db``."""
    share = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(share).absolute() / "evalcore" / "evalcore.db"
