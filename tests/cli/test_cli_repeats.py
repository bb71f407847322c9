"""The CLI on a run with several samples per case: the leaderboard's help and ``plan`` say what samples give and
whether more samples or more cases narrow the score's interval most; the leaderboard shows pass^k."""

from __future__ import annotations

import json

import pytest

from evalcore.cli import main
from tests.suites import write_suite


@pytest.fixture
def suite(tmp_path):
    return str(write_suite(tmp_path / "suite"))


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_leaderboard_help_says_what_pass_hat_k_is_and_that_more_cases_narrow_the_interval_most(capsys):
    with pytest.raises(SystemExit):
        main(["leaderboard", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "pass^k (that all k pass)" in out
    assert "For the score's interval, more cases" in out


def test_plan_of_several_samples_says_what_they_give(capsys, suite):
    code, out, _ = _run(capsys, "plan", suite, "--samples", "3")
    assert code == 0
    assert "samples: A run with several samples" in out
    code, out, _ = _run(capsys, "plan", suite)
    assert "samples: A run with several samples" not in out


def test_a_run_with_samples_ranks_with_pass_hat_k_in_its_json_leaderboard(capsys, suite, tmp_db):
    code, _, err = _run(capsys, "run", suite, "--db", tmp_db, "--quiet", "--samples", "2")
    assert code == 0, err
    (run,) = json.loads(_run(capsys, "runs", "--db", tmp_db, "--format", "json")[1])
    code, out, _ = _run(capsys, "leaderboard", run["id"], "--db", tmp_db, "--format", "json")
    rows = json.loads(out)
    assert code == 0 and all("consistency" in r and "sd_within" in r for r in rows)
