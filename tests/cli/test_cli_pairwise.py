"""``evalcore pairwise`` through a real process: the tables, ``--format json``, a stored run, exit codes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from evalcore.runfile.write import write_run_file
from evalcore.storage.store import Store
from tests.cli.process import evalcore as run
from tests.factories import judged_run, make_run

ROOT = Path(__file__).resolve().parents[2]


ENV = {"COLUMNS": "100"}


def evalcore(*argv: object, db: Path | None = None) -> subprocess.CompletedProcess[str]:
    return run(*argv, db=db, env=ENV)


@pytest.fixture
def run_file(tmp_path: Path) -> Path:
    return write_run_file(judged_run(), tmp_path / "run.json")


def test_the_table_shows_win_rates_with_intervals_and_the_ranking(run_file):
    done = evalcore("pairwise", run_file)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    c0, c1, c2 = (c.id for c in judged_run().contenders)
    assert "12 comparisons judged by fake/judge (4 win, 4 tie, 4 inconsistent)" in out
    lines = out.splitlines()
    top = lines.index("win rate (each comparison judged in both orders)") + 3
    # c0: 4 wins and 4 ties of 8; c2: 4 ties and 4 inconsistent (as ties); c1: 4 losses, 4 inconsistent
    rows = [line.split("  ")[0].strip() for line in lines[top : top + 3]]
    assert rows == [c0, c2, c1]
    assert "75.0%     [34.9%–96.8%]" in lines[top]
    ranking = lines.index("Bradley-Terry ranking") + 3
    assert lines[ranking].split()[0] == "1" and c0 in lines[ranking]
    assert "95% interval (Agresti–Coull" in out and "bootstrap over cases (1000 resamples, seed 0)" in out


def test_json_gives_the_same_numbers_for_scripts(run_file):
    done = evalcore("pairwise", run_file, "--format", "json", "--resamples", "200")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["comparisons"] == 12 and data["outcomes"]["inconsistent"] == 4
    rates = {r["contender"]: r for r in data["win_rates"]}
    c0, c1, c2 = (c.id for c in judged_run().contenders)
    assert rates[c0]["win_rate"] == pytest.approx(6 / 8)
    assert rates[c1]["win_rate"] == pytest.approx(2 / 8)  # 4 losses, 4 inconsistent as ties
    assert data["bradley_terry"][0]["contender"] == c0 and data["bradley_terry"][0]["rank"] == 1
    assert data["resamples"] == 200 and data["inconsistent_counted_as"] == "tie"
    excluded = json.loads(evalcore("pairwise", run_file, "--format", "json", "--inconsistent", "exclude").stdout)
    assert {r["contender"]: r["win_rate"] for r in excluded["win_rates"]}[c1] == 0.0


def test_a_stored_run_is_read_by_id_prefix(tmp_path):
    run = judged_run()
    db = tmp_path / "evalcore.db"
    Store(db).import_run(run)
    done = evalcore("pairwise", run.info.id[:6], db=db)
    assert done.returncode == 0, done.stderr
    assert "Bradley-Terry ranking" in done.stdout


def test_a_run_without_verdicts_is_exit_2_with_one_line(tmp_path):
    path = write_run_file(make_run(), tmp_path / "plain.json")
    done = evalcore("pairwise", path)
    assert done.returncode == 2
    assert done.stderr.startswith("error: run run-0001 has no pairwise verdicts") and done.stderr.count("\n") == 1


def test_the_leaderboard_names_the_pairwise_verdicts_and_their_cost(run_file):
    done = evalcore("leaderboard", run_file)
    assert done.returncode == 0, done.stderr
    assert "pairwise: 12 comparisons (4 inconsistent), judge cost $0.012000 on top; evalcore pairwise run-0001" in (
        done.stdout
    )


def test_the_bundled_support_demo_has_pairwise_verdicts_to_rank_offline():
    done = evalcore("pairwise", ROOT / "data" / "runs" / "support-demo.json")
    assert done.returncode == 0, done.stderr
    assert "192 comparisons judged by fake/judge-biased" in done.stdout
    assert "Bradley-Terry ranking" in done.stdout
