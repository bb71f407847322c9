"""The store's tests run against both databases: ``tmp_db`` is a SQLite file, then a PostgreSQL schema."""

from __future__ import annotations

import pytest


@pytest.fixture
def tmp_db(store_location: str) -> str:
    """Where a test's store lives (see ``store_location``)."""
    return store_location


@pytest.fixture(scope="module")
def postgres_store(postgres_server):
    """One PostgreSQL store for a module's tests (a property test's examples share it: each cleans up)."""
    from evalcore.storage.store import Store

    with Store(postgres_server.new_url()) as store:
        yield store
