"""Results read by key give the same records as the whole run's read."""

from __future__ import annotations

from pathlib import Path

from evalcore.storage.lookup import load_case_results
from evalcore.storage.store import Store
from tests.factories import make_run


def test_results_by_key_are_the_stored_ones_in_the_order_asked(tmp_db: Path) -> None:
    run = make_run(n_contenders=2, n_cases=4)
    with Store(tmp_db) as store:
        store.import_run(run)
        contender = run.contenders[1].id
        keys = [(run.cases[2].dataset, run.cases[2].id), ("nowhere", "x"), (run.cases[0].dataset, run.cases[0].id)]
        found = load_case_results(store, run.info.id, contender, keys)
        whole = {(r.dataset, r.case): r for r in store.load_run(run.info.id, contender=contender).results}
    assert found == [whole[keys[0]], whole[keys[2]]]
