"""``evalcore plan --batch``: the cost at the batch price, and a race's rounds and wall time in batches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalcore.cli import main
from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.runner import run_suite
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.suites import skill_suite


def _plan(capsys, root: Path, db: Path, *flags: str) -> dict:
    assert main(["plan", str(root), "--db", str(db), "--format", "json", *flags]) == 0
    return json.loads(capsys.readouterr().out)


def test_plan_batch_prices_the_run_at_half_its_interactive_estimate(capsys, tmp_path: Path):
    root = skill_suite(tmp_path / "s")
    found = _plan(capsys, root, tmp_path / "none.db", "--batch")
    batch = found["batch"]
    assert batch["usd"] == pytest.approx(found["estimated_cost_usd"] / 2)
    assert (batch["rounds"], batch["batches"]) == (1, 3)


def test_plan_adaptive_batch_says_rounds_wall_time_and_cost_from_a_past_run(capsys, tmp_path: Path):
    root = skill_suite(tmp_path / "s", skills=(0.95, 0.5, 0.2))
    db = tmp_path / "e.db"
    run_suite(make_plan(load_suite(root), RunOptions()), Store(db))  # the past run the race is replayed over
    found = _plan(capsys, root, db, "--adaptive", "--batch", "--batch-turnaround", "30m")
    race, batch = found["adaptive"], found["batch"]
    assert batch["rounds"] == race["rounds"] and batch["wall_s"] == race["rounds"] * 1800
    assert batch["usd"] == pytest.approx(race["usd"] / 2, rel=1e-3) and not batch["at_most"]
    assert batch["batches"] < 3 * race["max_rounds"]
    assert main(["plan", str(root), "--db", str(db), "--adaptive", "--batch", "--batch-turnaround", "30m"]) == 0
    assert "at 30 min per batch" in capsys.readouterr().out
