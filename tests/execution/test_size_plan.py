"""``evalcore plan --detect/--cases``: a suite's size for a paired comparison, from the spread of its past scores."""

from __future__ import annotations

import json

import pytest

from evalcore.analysis.stats.power import PILOT_CASES, Spread, cases_needed
from evalcore.cli import main
from evalcore.core.errors import ConfigError
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.runner import run_suite
from evalcore.execution.size_plan import parse_difference, plan_size
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.suites import write_suite

WANT = {"name": "Ann", "kind": "a", "count": 2, "amount": 10.5, "urgent": True, "tags": ["x"]}


@pytest.fixture
def suite_path(tmp_path):
    cases = {f"c/{i:03d}": ("Ann needs kind a, 2 units, $10.5, urgent, tag x.", WANT) for i in range(80)}
    lineup = [{"model": "fake/skill", "settings": {"skill": [0.9, 0.7]}}]
    return write_suite(tmp_path / "suite", {"lineup": lineup, "weighted_score": {"weights": {}}}, cases)


def _plan(suite_path, **options):
    return make_plan(load_suite(suite_path), RunOptions(**options))


@pytest.mark.parametrize(("text", "value"), [("3pts", 0.03), ("3 points", 0.03), ("0.5pt", 0.005), ("0.03", 0.03)])
def test_a_difference_reads_as_points_or_a_fraction(text, value):
    assert parse_difference(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["3", "0", "three", "150pts"])
def test_a_difference_that_is_not_points_or_a_fraction_is_refused_quoted(text):
    with pytest.raises(ConfigError, match=f"--detect '{text}'"):
        parse_difference(text)


def test_without_a_past_run_the_plan_proposes_a_pilot_and_gives_the_most_cases_needed(suite_path, tmp_db):
    size = plan_size(_plan(suite_path), Store(tmp_db), detect=0.03)
    assert size.spread is None and size.pilot == PILOT_CASES
    assert size.needed == cases_needed(0.03, Spread(variance=0.25, correlation=0.0))
    assert "run a pilot" in size.lines()[0] and f"--limit {PILOT_CASES}" in size.lines()[0]


def test_a_past_run_gives_the_spread_the_size_comes_from(suite_path, tmp_db):
    store = Store(tmp_db)
    run_id = run_suite(_plan(suite_path), store)[0]
    size = plan_size(_plan(suite_path), store, detect=0.03)
    assert size.from_run == run_id and size.same_definition and size.from_contenders == 2 and size.from_cases == 80
    assert size.spread is not None and size.spread.binary
    assert size.needed == cases_needed(0.03, size.spread)
    assert any("too few for 3.0 pts" in line for line in size.lines())


def test_a_pilot_of_the_first_cases_tells_the_full_suites_plan(suite_path, tmp_db):
    store = Store(tmp_db)
    pilot = run_suite(_plan(suite_path, limit=20), store)[0]
    size = plan_size(_plan(suite_path), store, detect=0.05)
    assert size.from_run == pilot and size.from_cases == 20 and not size.same_definition
    assert "an earlier definition of the suite" in size.lines()[0]


def test_cases_gives_the_smallest_difference_they_detect(suite_path, tmp_db):
    store = Store(tmp_db)
    run_suite(_plan(suite_path), store)
    size = plan_size(_plan(suite_path), store, cases=400)
    assert size.spread is not None and size.smallest is not None
    assert cases_needed(size.smallest, size.spread) <= 400


def test_evalcore_plan_detect_prints_the_size_and_its_json(suite_path, tmp_db, capsys):
    run_suite(_plan(suite_path), Store(tmp_db))
    args = ["plan", str(suite_path), "--detect", "5pts", "--db", str(tmp_db)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "size: to detect a difference of 5.0 pts between two contenders" in out
    assert main([*args, "--format", "json", "--cases", "300"]) == 0
    size = json.loads(capsys.readouterr().out)["size"]
    assert size["detect"] == 0.05 and size["needed"] > 80 and size["cases"] == 300 and 0 < size["smallest"] < 1


def test_evalcore_plan_without_detect_or_cases_says_nothing_of_size(suite_path, tmp_db, capsys):
    assert main(["plan", str(suite_path), "--db", str(tmp_db)]) == 0
    assert "size:" not in capsys.readouterr().out


def test_the_cases_needed_are_priced_at_the_plans_estimate_per_case(suite_path, tmp_db):
    store = Store(tmp_db)
    run_suite(_plan(suite_path), store)
    size = plan_size(_plan(suite_path), store, detect=0.05, usd=0.8)
    assert size.needed is not None and size.needed_usd == pytest.approx(size.needed * 0.8 / 80)
    assert f"(about ${size.needed_usd:,.4f} for this lineup at the plan's estimate per case)" in size.lines()[1]
