"""``compare`` and ``gate`` through a real process: an undecided change says how many more cases would decide it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalcore.runfile.write import write_run_file
from tests.cli.process import evalcore
from tests.factories import binary_run

SENTENCE = "more cases would decide a difference this size"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    runs = {
        "base": binary_run("base-0001", {"m": [1] * 40}),
        "three": binary_run("three-0002", {"m": [0] * 3 + [1] * 37}),
    }
    return {name: write_run_file(run, tmp_path / f"{name}.json") for name, run in runs.items()}


def test_compare_says_inconclusive_with_the_cases_that_would_decide(files: dict[str, Path]) -> None:
    done = evalcore("compare", files["base"], files["three"])
    assert done.returncode == 0, done.stderr
    assert f"score -7.5 [-20.0 to 2.1] pts: inconclusive: about 63 {SENTENCE}" in done.stdout


def test_compare_json_gives_more_cases_and_the_sentence(files: dict[str, Path]) -> None:
    data = json.loads(evalcore("compare", files["base"], files["three"], "--format", "json").stdout)
    score = next(c for c in data["pairs"][0]["changes"] if c["name"] == "score")
    assert score["more_cases"] == 63 and score["inconclusive"] == f"inconclusive: about 63 {SENTENCE}"


def test_gate_says_inconclusive_before_its_verdict_and_keeps_its_exit_code(files: dict[str, Path]) -> None:
    done = evalcore("gate", files["three"], "--baseline", files["base"])
    assert done.returncode == 0, done.stderr
    assert f"score worse by 7.5 pts: inconclusive: about 63 {SENTENCE}\nverdict: PASS" in done.stdout
    data = json.loads(evalcore("gate", files["three"], "--baseline", files["base"], "--format", "json").stdout)
    assert data["inconclusive"] == [f"score worse by 7.5 pts: inconclusive: about 63 {SENTENCE}"]
    assert next(c for c in data["checks"] if c["name"] == "score")["more_cases"] == 63
