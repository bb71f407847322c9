"""People's ratings in the store: kept in order, replaced per rater and item, deleted with their run."""

from dataclasses import replace
from pathlib import Path

import pytest

from evalcore.core.errors import StoreError
from evalcore.core.records import Rating
from evalcore.storage.ratings import add_ratings, load_ratings
from evalcore.storage.store import Store
from tests.factories import rated_run


@pytest.fixture
def store(store_location: str):
    with Store(store_location) as s:
        s.import_run(replace(rated_run(), ratings=[]))  # the tests add its ratings
        yield s


def test_ratings_come_back_as_they_were_stored(store):
    ratings = rated_run().ratings
    add_ratings(store, "run-0001", ratings)
    assert load_ratings(store, "run-0001") == ratings


def test_a_raters_second_rating_of_an_item_replaces_the_first(store):
    first = rated_run().ratings[0]
    add_ratings(store, "run-0001", [first])
    again = Rating(**{**vars(first), "verdict": "b", "comment": "changed my mind"})
    add_ratings(store, "run-0001", [again])
    assert load_ratings(store, "run-0001") == [again]


def test_a_rating_without_a_time_gets_the_time_it_is_stored(store):
    add_ratings(store, "run-0001", [Rating("d", "c", 0, "x", None, "ana", "pass")])
    assert load_ratings(store, "run-0001")[0].created_at.endswith("Z")


def test_ratings_go_with_their_run(store):
    add_ratings(store, "run-0001", rated_run().ratings)
    store.delete_run("run-0001")
    assert store.conn.execute("SELECT count(*) FROM ratings").fetchone()[0] == 0


def test_ratings_of_an_unknown_run_are_refused(store):
    with pytest.raises(StoreError, match="run 'nope' is not in the store"):
        add_ratings(store, "nope", rated_run().ratings)


def test_a_run_imported_with_ratings_loads_with_them(tmp_path: Path):
    with Store(tmp_path / "evalcore.db") as s:
        s.import_run(rated_run())
        assert s.load_run("run-0001").ratings == rated_run().ratings
