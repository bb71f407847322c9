"""The ranking commands as a user reads them: widths, rows with nothing scored, pairs in points, pipes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from evalcore.cli import main
from evalcore.runfile.write import write_run_file
from tests.factories import failed, make_run


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def run_file(tmp_path):
    """Four contenders on 12 cases; the last one's every call failed."""
    run = make_run(4, 12, with_errors=False)
    dead = run.contenders[-1].id
    for result in run.results:
        if result.contender == dead:
            failed(result)
    return write_run_file(run, tmp_path / "run.json"), dead


@pytest.mark.parametrize("width", [80, 120])
def test_the_leaderboard_fits_the_terminal(capsys, monkeypatch, run_file, width):
    monkeypatch.setenv("COLUMNS", str(width))
    code, out, _ = _run(capsys, "leaderboard", run_file[0])
    assert code == 0 and max(map(len, out.splitlines())) <= width
    assert {"#", "contender", "score", "wscore", "errors", "cost", "time"} <= set(out.splitlines()[0].split())


def test_wide_shows_every_column(capsys, monkeypatch, run_file):
    monkeypatch.setenv("COLUMNS", "80")
    out = _run(capsys, "leaderboard", run_file[0], "--wide")[1]
    assert "in tokens" in out.splitlines()[0] and "--wide" not in out


def test_a_contender_with_nothing_scored_is_listed_last_without_rank_or_p_best(capsys, run_file):
    path, dead = run_file
    out = _run(capsys, "leaderboard", path)[1]
    last = out.splitlines()[5]
    assert dead in last and last.endswith("no scored results") and not last.lstrip().startswith("4")
    rows = json.loads(_run(capsys, "leaderboard", path, "--format", "json")[1])
    assert rows[-1]["contender"] == dead
    assert (rows[-1]["rank"], rows[-1]["p_best"], rows[-1]["wscore"]) == (None, None, None)
    assert [r["rank"] for r in rows[:-1]] == [1, 2, 3] and all(r["few_cases"] for r in rows[:-1])


def test_few_cases_are_marked_and_the_winner_explained(capsys, run_file):
    out = _run(capsys, "leaderboard", run_file[0], "--weights", "score=1")[1]
    assert "few cases" in out.splitlines()[2] and "few cases: scored on fewer than 30 cases" in out
    assert "Why: " in out and "ranks first on the weighted score" in out


def test_without_weights_the_leaderboard_ranks_by_score_with_no_wscore_column(capsys, run_file):
    out = _run(capsys, "leaderboard", run_file[0], "--weights", "")[1]
    assert "wscore" not in out.splitlines()[0] and "weights: no weights set: ranked by score" in out


def test_significance_shows_points_in_leaderboard_order(capsys, run_file):
    path, _ = run_file
    order = [r["contender"] for r in json.loads(_run(capsys, "leaderboard", path, "--format", "json")[1])]
    code, out, _ = _run(capsys, "significance", path)
    assert code == 0
    rows = [line for line in out.splitlines()[2:] if line.startswith("fake/")]
    assert len(rows) == 6
    assert rows[0].startswith(order[0]) and order[1] in rows[0] and " pts" in rows[0]
    assert order[3] in rows[-1] and "no shared scored cases" in rows[-1]
    assert "differences in points" in out


def test_a_closed_pipe_ends_the_command_quietly(run_file):
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte: every write fails
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    for argv in (["significance", str(run_file[0]), "--format", "json"], ["leaderboard", str(run_file[0])]):
        done = subprocess.run(
            [sys.executable, "-m", "evalcore.cli", *argv], stdout=write, stderr=subprocess.PIPE, env=env, check=False
        )
        assert done.returncode == 141 and done.stderr == b""
    os.close(write)


def test_significance_json_lists_every_ordered_pair_in_leaderboard_order(capsys, run_file):
    path, _ = run_file
    order = [r["contender"] for r in json.loads(_run(capsys, "leaderboard", path, "--format", "json")[1])]
    pairs = json.loads(_run(capsys, "significance", path, "--format", "json")[1])
    assert [(p["a"], p["b"]) for p in pairs] == [(a, b) for a in order for b in order if a != b]
    assert {p["method"] for p in pairs if p["n"]} <= {"McNemar test, Tango interval", "sign-flip permutation"}


def test_a_pair_whose_interval_and_p_disagree_is_marked_and_explained():
    import pandas as pd

    from evalcore.cli.ranking import format_pairs

    row = {"n": 30, "mean_diff": 0.067, "lo": 0.002, "hi": 0.13, "p_value": 0.06, "significant": False}
    pairs = pd.DataFrame(
        [
            {"a": "x", "b": "y", **row, "method": "sign-flip permutation"},
            {
                "a": "y",
                "b": "x",
                **row,
                "mean_diff": -0.067,
                "lo": -0.13,
                "hi": -0.002,
                "method": "sign-flip permutation",
            },
        ]
    )
    out = format_pairs(pairs, ["x", "y"], "score")
    assert "+6.7 pts" in out and "[+0.2, +13.0] pts" in out and "no *" in out
    assert "* x vs y: the interval and p come from two different tests" in out


def test_a_weight_against_its_direction_is_warned_once_on_stderr(capsys, run_file):
    code, _, err = _run(capsys, "leaderboard", run_file[0], "--weights", "score=-1")
    assert code == 0
    assert err.count("warning: weight score=-1 ranks the contenders with the lowest score first") == 1


def test_leaderboard_by_variant_has_a_variant_column_and_no_dataset_one(capsys, run_file):
    code, out, _ = _run(capsys, "leaderboard", run_file[0], "--by", "variant", "--no-intervals", "--wide")
    header = out.splitlines()[0].split()
    assert code == 0
    assert "variant" in header and "dataset" not in header


def test_leaderboard_by_variant_refuses_the_macro_average(capsys, run_file):
    code, _, err = _run(capsys, "leaderboard", run_file[0], "--by", "variant", "--average", "macro")
    assert code == 2 and "--by variant ranks across datasets" in err
