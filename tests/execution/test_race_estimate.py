"""``evalcore plan --adaptive``: the calls of a race, estimated by replaying it over a past run's scores."""

from __future__ import annotations

import json
import math

import pytest

from evalcore.cli import main
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.race_estimate import ORDERS, estimate_race
from evalcore.execution.race_settings import RaceSettings
from evalcore.execution.runner import run_suite
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.suites import write_suite

WANT = {"name": "Ann", "kind": "a", "count": 2, "amount": 10.5, "urgent": True, "tags": ["x"]}


@pytest.fixture
def suite_path(tmp_path):
    cases = {f"c/{i:03d}": ("Ann needs kind a, 2 units, $10.5, urgent, tag x.", WANT) for i in range(80)}
    lineup = [{"model": "fake/skill", "settings": {"skill": [0.95, 0.75, 0.2]}}]
    return write_suite(tmp_path / "suite", {"lineup": lineup, "weighted_score": {"weights": {}}}, cases)


def _race(suite_path, **race):
    return make_plan(load_suite(suite_path), RunOptions(adaptive=RaceSettings(seed=3, round=20, **race)))


def _full_run(suite_path, store):
    return run_suite(make_plan(load_suite(suite_path), RunOptions()), store)[0]


def test_a_plan_that_is_not_adaptive_has_no_race_estimate(suite_path, tmp_db):
    assert estimate_race(make_plan(load_suite(suite_path), RunOptions()), Store(tmp_db)) is None


def test_without_a_past_run_the_estimate_says_so_and_gives_the_full_count_as_the_ceiling(suite_path, tmp_db):
    found = estimate_race(_race(suite_path), Store(tmp_db))
    assert found is not None and found.calls is None and found.ceiling == 3 * 80
    assert "no past run of suite 'mini'" in found.text() and "at most 240 calls" in found.text()


def test_a_past_run_of_the_lineup_gives_an_estimate_below_the_ceiling_with_its_range(suite_path, tmp_db):
    store = Store(tmp_db)
    run_id = _full_run(suite_path, store)
    found = estimate_race(_race(suite_path), store)
    assert found is not None and found.from_run == run_id and found.cases == 80
    assert found.low is not None and found.high is not None and found.calls is not None
    assert found.low <= found.calls <= found.high < found.ceiling
    assert f"over {ORDERS} orders" in found.text()


def test_a_wider_margin_never_estimates_more_calls(suite_path, tmp_db):
    store = Store(tmp_db)
    _full_run(suite_path, store)
    strict, loose = (estimate_race(_race(suite_path, margin=m), store) for m in (0.0, 30.0))
    assert strict is not None and loose is not None and strict.calls is not None and loose.calls is not None
    assert loose.calls <= strict.calls


def test_a_past_race_is_not_replayed_its_stopped_contenders_skipped_cases(suite_path, tmp_db):
    store = Store(tmp_db)
    run_suite(_race(suite_path), store)
    found = estimate_race(_race(suite_path), store)
    assert found is not None and found.calls is None


def test_evalcore_plan_adaptive_prints_the_estimate_and_its_json(suite_path, tmp_db, capsys):
    _full_run(suite_path, Store(tmp_db))
    args = ["plan", str(suite_path), "--adaptive", "--round", "20", "--db", str(tmp_db)]
    assert main(args) == 0
    assert "adaptive: about " in capsys.readouterr().out
    assert main([*args, "--format", "json"]) == 0
    race = json.loads(capsys.readouterr().out)["adaptive"]
    assert race["ceiling"] == 240 and race["calls"] < 240


def test_a_race_estimates_its_rounds_within_the_most_it_can_run(suite_path, tmp_db):
    store = Store(tmp_db)
    _full_run(suite_path, store)
    found = estimate_race(_race(suite_path), store)
    assert found is not None and found.rounds is not None
    assert found.max_rounds == math.ceil(80 / 20) and 1 <= found.rounds <= found.max_rounds
    assert f"of at most {found.max_rounds} rounds" in found.text()


def test_a_race_costs_the_full_estimate_times_its_share_of_the_calls(suite_path, tmp_db):
    store = Store(tmp_db)
    _full_run(suite_path, store)
    found = estimate_race(_race(suite_path), store, full_usd=2.0)
    assert found is not None and found.calls is not None
    assert found.usd == pytest.approx(2.0 * found.calls / found.ceiling, rel=0.01) and found.usd < 2.0
    assert "of the full run's $2.0000" in found.text()


def test_evalcore_plan_adaptive_json_gives_rounds_and_cost(suite_path, tmp_db, capsys):
    _full_run(suite_path, Store(tmp_db))
    args = ["plan", str(suite_path), "--adaptive", "--round", "20", "--db", str(tmp_db), "--format", "json"]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    race = data["adaptive"]
    assert race["max_rounds"] == 4 and race["rounds"] <= 4
    assert race["full_usd"] == data["estimated_cost_usd"] and race["usd"] < race["full_usd"]
