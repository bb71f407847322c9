"""evalcore.storage.transfer.holds_run: whether a store holds this very run (same id and content)."""

from __future__ import annotations

from evalcore.runfile.read import read_run_file
from evalcore.runfile.write import dump_run
from evalcore.storage.store import Store
from evalcore.storage.transfer import holds_run
from tests.factories import make_run


def test_a_store_holds_a_run_only_with_the_same_id_and_content(tmp_db: str) -> None:
    store = Store(tmp_db)
    run = make_run(2, 3)
    assert not holds_run(store, run)
    store.import_run(run)
    assert holds_run(store, read_run_file(dump_run(run)))
    assert not holds_run(store, make_run(3, 2))


def test_the_time_an_importer_read_a_file_is_no_difference(tmp_db: str) -> None:
    store = Store(tmp_db)
    run = make_run(2, 3)
    run.info.provenance["source"] = {"tool": "inspect_ai", "imported_at": "2026-12-07T14:25:29.032Z"}
    store.import_run(run)
    again = read_run_file(dump_run(run))
    again.info.provenance["source"]["imported_at"] = "2026-12-07T14:25:29.043Z"
    assert holds_run(store, again)
