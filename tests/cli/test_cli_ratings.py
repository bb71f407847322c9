"""``evalcore ratings`` through a real process: import, export, the summary as a table and JSON, exit codes."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from evalcore.runfile.ratings import dump_ratings
from evalcore.storage.store import Store
from tests.cli.process import evalcore
from tests.factories import rated_run

RUN = rated_run()
C0 = RUN.contenders[0].id


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "evalcore.db"
    with Store(path) as store:
        store.import_run(replace(rated_run(), ratings=[]))  # the tests import its ratings
    return path


@pytest.fixture
def ratings_file(tmp_path: Path) -> Path:
    path = tmp_path / "ratings.jsonl"
    path.write_text(dump_ratings("run-0001", RUN.ratings), encoding="utf-8")
    return path


def test_import_then_export_gives_the_same_lines(db, ratings_file, tmp_path):
    done = evalcore("ratings", "import", ratings_file, db=db)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "imported 18 ratings into run run-0001"
    out = tmp_path / "out.jsonl"
    assert evalcore("ratings", "export", "run-0001", "-o", out, db=db).returncode == 0
    assert out.read_text(encoding="utf-8") == ratings_file.read_text(encoding="utf-8")


def test_the_summary_shows_people_ranking_agreement_and_the_corrected_score(db, ratings_file):
    evalcore("ratings", "import", ratings_file, db=db)
    done = evalcore("ratings", "run-0001", "--resamples", "100", db=db, env={"COLUMNS": "120"})
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "run run-0001: 18 ratings by 2 raters" in out
    assert "people's Bradley-Terry ranking" in out
    assert "Cohen's kappa 0.75" in out
    assert "pairwise judge vs people: 16 items, accuracy 93.8%" in out
    row = next(line for line in out.splitlines() if line.startswith(C0) and "[" in line and "+0.500" in line)
    # judge 1.000 on every reply (4/4: the leaderboard's interval [0.398, 1]); corrected 1 + mean(0, -1) = 0.5 ±
    # 1.96 · sqrt(0.25 / 2), clipped to [0, 1]
    assert row.split()[3:] == ["1.000", "[0.398,", "1.000]", "0.500", "[0.000,", "1.000]", "+0.500", "2", "2"]


def test_json_gives_the_corrected_score_for_scripts(db, ratings_file):
    evalcore("ratings", "import", ratings_file, db=db)
    done = evalcore("ratings", "run-0001", "--format", "json", "--resamples", "0", db=db)
    data = json.loads(done.stdout)
    assert data["corrected"][C0]["value"] == pytest.approx(0.5)
    assert data["judge_vs_people_pairs"]["stats"]["kappa"]["value"] == pytest.approx(0.875)


def test_a_run_with_no_ratings_is_a_user_error(db):
    done = evalcore("ratings", "run-0001", db=db)
    assert done.returncode == 2
    assert "has no ratings: rate its replies on the app's Rate page" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_rating_of_an_unknown_contender_is_refused_with_its_line(db, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"run": "run-0001", "dataset": "tax_preparation", "case": "complete/000", '
                   '"contender": "ghost", "rater": "ana", "verdict": "pass"}\n')  # fmt: skip
    done = evalcore("ratings", "import", bad, db=db)
    assert done.returncode == 2
    assert "run run-0001: line 1: contender 'ghost' is not in the run" in done.stderr


def test_the_summary_counts_one_rater_in_the_singular(db, tmp_path):
    path = tmp_path / "ana.jsonl"
    path.write_text(dump_ratings("run-0001", [r for r in RUN.ratings if r.rater == "ana"]), encoding="utf-8")
    evalcore("ratings", "import", path, db=db)
    done = evalcore("ratings", "run-0001", "--resamples", "0", db=db)
    assert done.returncode == 0, done.stderr
    assert "run run-0001: 10 ratings by 1 rater\n" in done.stdout
