import asyncio
import threading
from collections import Counter

import pytest

from evalcore.execution.adaptive import race_stops
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.race_settings import RaceSettings
from evalcore.execution.runner import execute_plan, resume_plan, run_suite, start_run
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.suites import skill_suite, write_suite

WANT = {"name": "Ann", "kind": "a", "count": 2, "amount": 10.5, "urgent": True, "tags": ["x"]}


@pytest.fixture
def suite(tmp_path):
    cases = {f"c/{i:03d}": ("Ann needs kind a, 2 units, $10.5, urgent, tag x.", WANT) for i in range(240)}
    lineup = [{"model": "fake/skill", "settings": {"skill": [0.95, 0.75, 0.2]}}]
    return load_suite(write_suite(tmp_path / "suite", {"lineup": lineup, "weighted_score": {"weights": {}}}, cases))


def _race(seed=5):
    return RunOptions(adaptive=RaceSettings(seed=seed, round=20))


def test_a_race_stops_the_contenders_that_cannot_win_and_stores_only_what_they_answered(suite, tmp_db):
    store = Store(tmp_db)
    run_id, status = run_suite(make_plan(suite, _race()), store)
    run = store.load_run(run_id)
    stops = race_stops(run.info.settings)
    assert status == "completed" and set(stops) == {"fake/skill · skill=0.75", "fake/skill · skill=0.2"}
    counts = Counter(r.contender for r in run.results)
    for name, stop in stops.items():
        assert counts[name] == stop["after_cases"] < 240 and stop["behind"] == "fake/skill · skill=0.95"
        assert stop["by_at_least"] > 0
    assert run.info.settings["adaptive"]["ended"] == "one contender left"
    assert len(run.results) < 3 * 240


def test_a_resumed_race_continues_to_the_same_decisions(suite, tmp_db, tmp_path, monkeypatch):
    whole = Store(tmp_path / "whole.db")
    run_id, _ = run_suite(make_plan(suite, _race()), whole)
    expected = race_stops(whole.load_run(run_id).info.settings)

    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0.02")  # slow enough to stop it mid-race
    store = Store(tmp_db)
    plan = make_plan(suite, _race())
    run = start_run(plan, store)
    stop = threading.Event()

    def halt_at_first_stop(progress):
        if any(p.stopped for p in progress.contenders.values()):
            stop.set()

    assert asyncio.run(execute_plan(plan, store, run, on_progress=halt_at_first_stop, stop=stop)) == "cancelled"
    plan, run, done = resume_plan(store, run.info.id)
    assert asyncio.run(execute_plan(plan, store, run, done)) == "completed"
    assert race_stops(store.load_run(run.info.id).info.settings) == expected


def test_a_contender_still_in_when_the_cases_run_out_is_not_stopped(tmp_path, tmp_db):
    # seed 1: after the last round the race would rule out skill=0.6, which has answered every case by then
    suite = load_suite(skill_suite(tmp_path / "s", race={"seed": 1}))
    store = Store(tmp_db)
    run_id, status = run_suite(make_plan(suite, RunOptions(adaptive=RaceSettings(seed=1))), store)
    stops = race_stops(store.load_run(run_id).info.settings)
    assert status == "completed" and stops, "the race stops nobody: the test no longer reaches its case"
    assert all(stop["after_cases"] < stop["of_cases"] for stop in stops.values()), stops
    assert "fake/skill · skill=0.6" not in stops


def test_a_race_records_how_many_calls_it_made_of_how_many_at_most(suite, tmp_db):
    store = Store(tmp_db)
    run_id, _ = run_suite(make_plan(suite, _race()), store)
    run = store.load_run(run_id)
    race = run.info.settings["adaptive"]
    assert (race["calls"], race["of_calls"]) == (len(run.results), 3 * 240)
