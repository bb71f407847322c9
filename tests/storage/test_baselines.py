"""Pinned baselines: one per suite, replaced by a new pin, removed with the pinned run."""

from __future__ import annotations

from pathlib import Path

from evalcore.storage.baselines import baseline, baselines, clear_baseline, pin_baseline
from evalcore.storage.store import Store
from tests.factories import make_run


def test_pin_replace_show_clear(tmp_db: Path) -> None:
    with Store(tmp_db) as store:
        store.import_run(make_run(run_id="run-a"))
        store.import_run(make_run(run_id="run-b"))
        assert baseline(store, "intake") is None
        pin_baseline(store, "intake", "run-a", "fake/perfect · t=0.0")
        assert baseline(store, "intake")["run_id"] == "run-a"  # type: ignore[index]
        pin_baseline(store, "intake", "run-b", "fake/guesser · t=0.0")
        pins = baselines(store)
        assert [(p["suite"], p["run_id"], p["contender"]) for p in pins] == [
            ("intake", "run-b", "fake/guesser · t=0.0")
        ]
        assert clear_baseline(store, "intake") is True
        assert clear_baseline(store, "intake") is False
        assert baselines(store) == []


def test_deleting_the_pinned_run_removes_the_pin(tmp_db: Path) -> None:
    with Store(tmp_db) as store:
        store.import_run(make_run(run_id="run-a"))
        pin_baseline(store, "intake", "run-a", "fake/perfect · t=0.0")
        store.delete_run("run-a")
        assert baseline(store, "intake") is None
