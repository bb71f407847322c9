"""Baselines: a pin per suite, replaced by a new pin, removed with the pinned run; else the automatic one."""

from __future__ import annotations

from pathlib import Path

from evalcore.storage.baselines import automatic_baseline, baseline, baselines, clear_baseline, pin_baseline
from evalcore.storage.store import Store
from evalcore.suite.fingerprint import SETTING as FINGERPRINT
from tests.factories import make_run, timestamp


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


def _stored(store: Store, run_id: str, seconds: float, fingerprint: str | None, status: str = "completed") -> None:
    run = make_run(run_id=run_id)
    run.info.created_at = timestamp(seconds)
    run.info.status = status  # type: ignore[assignment]
    run.info.finished_at = None if status in ("running", "interrupted") else run.info.finished_at
    if fingerprint is not None:
        run.info.settings[FINGERPRINT] = fingerprint
    store.import_run(run)


def test_automatic_baseline_is_the_newest_earlier_completed_run_with_the_same_fingerprint(tmp_db: Path) -> None:
    with Store(tmp_db) as store:
        _stored(store, "old", 0, "f1")
        _stored(store, "newer", 10, "f1")
        _stored(store, "changed", 20, "f2")
        _stored(store, "stopped", 30, "f1", status="interrupted")
        _stored(store, "candidate", 40, "f1")
        _stored(store, "later", 50, "f1")
        found = automatic_baseline(store, "intake", "candidate", timestamp(40), "f1")
    assert found.run_id == "newer"
    assert "same definition fingerprint f1" in found.why


def test_a_run_whose_fingerprint_differs_is_never_an_automatic_baseline(tmp_db: Path) -> None:
    with Store(tmp_db) as store:
        _stored(store, "changed", 0, "f2")
        _stored(store, "unmarked", 5, None)
        _stored(store, "candidate", 10, "f1")
        found = automatic_baseline(store, "intake", "candidate", timestamp(10), "f1")
    assert found.run_id is None
    assert "no earlier run of suite intake has definition fingerprint f1" in found.why
    assert "the newest, unmarked, has none" in found.why


def test_runs_started_in_the_same_instant_count_in_the_order_they_were_stored(tmp_db: Path) -> None:
    with Store(tmp_db) as store:
        _stored(store, "b-first", 0, "f1")
        _stored(store, "a-second", 0, "f1")
        assert automatic_baseline(store, "intake", "a-second", timestamp(0), "f1").run_id == "b-first"
        assert automatic_baseline(store, "intake", "b-first", timestamp(0), "f1").run_id is None


def test_no_automatic_baseline_says_why(tmp_db: Path) -> None:
    with Store(tmp_db) as store:
        assert "no earlier run of suite intake" in automatic_baseline(store, "intake", "x", timestamp(0), "f1").why
        assert "records no definition fingerprint" in automatic_baseline(store, "intake", "x", timestamp(0), None).why
        _stored(store, "stopped", 0, "f1", status="interrupted")
        assert "did not complete" in automatic_baseline(store, "intake", "x", timestamp(5), "f1").why
