"""The store's few queries that PostgreSQL needs written its own way, each written beside its SQLite form.

The store's modules speak SQLite's SQL, and :func:`evalcore.storage.postgres.translate` turns most of it into
PostgreSQL's on the way. A query whose JSON functions have no like-named PostgreSQL form is declared with
:func:`query`, in the module that runs it, with both forms side by side; the PostgreSQL connection reads the
second form by the first (:func:`postgres_form`). So a query and its translation change together, and the
connection needs none of the modules whose queries it runs.
"""

from __future__ import annotations

#: A query in SQLite's SQL → the same query in PostgreSQL's, with psycopg's placeholders.
_POSTGRES: dict[str, str] = {}


def query(sqlite: str, postgres: str) -> str:
    """``sqlite``, as the store runs it, with ``postgres`` recorded as its PostgreSQL form.

    Args:
        sqlite: the query in SQLite's SQL (``?`` placeholders), what the module runs.
        postgres: the same query in PostgreSQL's SQL, with psycopg's placeholders (``%s``).
    """
    _POSTGRES[sqlite] = postgres
    return sqlite


def postgres_form(sqlite: str) -> str | None:
    """The PostgreSQL form :func:`query` recorded for ``sqlite``; None for a query that translates as it is."""
    return _POSTGRES.get(sqlite)
