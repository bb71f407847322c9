import pytest

from evalcore.storage.runs import RunFilters
from evalcore.storage.store import Store
from tests.factories import make_run, timestamp


@pytest.fixture
def store(store_location: str) -> Store:
    with Store(store_location) as s:
        yield s


def _store_run(
    store: Store,
    run_id: str,
    *,
    suite: str = "intake",
    status: str = "completed",
    day: int = 0,
    metadata: dict[str, str] | None = None,
) -> None:
    run = make_run(1, 1, run_id=run_id, suite=suite, status=status)  # type: ignore[arg-type]
    run.info.created_at = timestamp(day * 86400)
    if metadata:
        run.info.settings["metadata"] = metadata
    store.create_run(run)


def _ids(store: Store, filters: RunFilters) -> list[str]:
    return [r["id"] for r in store.list_runs(filters)]


def test_runs_are_filtered_by_suite(store: Store) -> None:
    _store_run(store, "run-a", suite="intake")
    _store_run(store, "run-b", suite="triage")
    assert _ids(store, RunFilters(suite="triage")) == ["run-b"]


def test_runs_are_filtered_by_the_status_as_it_reads(store: Store) -> None:
    _store_run(store, "run-a", status="completed")
    _store_run(store, "run-b", status="interrupted")
    store.set_status("run-b", "interrupted", stopped_by="user")
    _store_run(store, "run-c", status="interrupted")
    assert _ids(store, RunFilters(status="cancelled")) == ["run-b"]
    assert _ids(store, RunFilters(status="interrupted")) == ["run-c"]


def test_runs_since_a_date_include_that_whole_day(store: Store) -> None:
    _store_run(store, "run-old", day=0)
    _store_run(store, "run-new", day=2)
    assert _ids(store, RunFilters(since="2026-12-01")) == ["run-new"]
    assert _ids(store, RunFilters(since="2026-11-29")) == ["run-new", "run-old"]


def test_a_limit_keeps_the_newest_runs_that_pass_the_filters(store: Store) -> None:
    for day in range(4):
        _store_run(store, f"run-{day}", day=day, suite="intake" if day != 3 else "triage")
    assert _ids(store, RunFilters(suite="intake", limit=2)) == ["run-2", "run-1"]


def test_runs_are_filtered_by_every_metadata_label_given(store: Store) -> None:
    _store_run(store, "run-a", metadata={"branch": "main", "pr": "41"})
    _store_run(store, "run-b", metadata={"branch": "main", "pr": "42"})
    _store_run(store, "run-c")
    assert _ids(store, RunFilters(metadata={"branch": "main", "pr": "42"})) == ["run-b"]
    assert sorted(_ids(store, RunFilters(metadata={"branch": "main"}))) == ["run-a", "run-b"]


def test_a_listed_run_carries_its_metadata_or_an_empty_dict(store: Store) -> None:
    _store_run(store, "run-a", metadata={"branch": "main"})
    _store_run(store, "run-b")
    assert {r["id"]: r["metadata"] for r in store.list_runs()} == {"run-a": {"branch": "main"}, "run-b": {}}
