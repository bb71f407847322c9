"""The fault matrix for people's ratings: a rating that breaks its scale, names a sample that is not there or
comes in a file too large, through ``evalcore ratings import`` and through a run file's ``ratings`` key.

Each row runs a real ``evalcore`` process and asserts the matrix's invariants: exit 2, no traceback, one line
naming the file, the rating and what is wrong, and nothing stored.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from evalcore.runfile.ratings import dump_ratings
from evalcore.runfile.write import run_to_dict
from evalcore.storage.ratings import load_ratings
from evalcore.storage.store import Store
from tests.factories import rated_run
from tests.faults.invariants import assert_holds, run_cli

RUN = rated_run()
C0 = RUN.contenders[0].id
CASE = RUN.cases[0]
GOOD = {"run": "run-0001", "dataset": CASE.dataset, "case": CASE.id, "sample": 0, "rater": "cy"}

#: One rating each row injects: (row id, the line's fields, what the output says).
BAD_RATINGS = [
    ("score out of scale", {"contender": C0, "verdict": "1", "scores": {"tone": 99}}, "scores.tone"),
    ("verdict NaN", {"contender": C0, "verdict": "NaN"}, "'NaN'"),
    ("verdict inf", {"contender": C0, "verdict": "inf"}, "'inf'"),
    ("verdict 1e308", {"contender": C0, "verdict": "1e308"}, "'1e308'"),
    ("verdict above 1", {"contender": C0, "verdict": "1.5"}, "'1.5'"),
    ("sample 2**70", {"contender": C0, "verdict": "pass", "sample": 2**70}, "sample"),
    ("sample not in the run", {"contender": C0, "verdict": "pass", "sample": 7}, "sample 7"),
    ("pair's sample not in the run", {"a": C0, "b": RUN.contenders[1].id, "verdict": "a", "sample": 3}, "sample 3"),
]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "evalcore.db"
    with Store(path) as store:
        store.import_run(replace(rated_run(), ratings=[]))
        store.import_run(replace(rated_run("run-0002"), ratings=[]))
    return path


def _stored(db: Path, run_id: str) -> list:
    with Store(db) as store:
        return load_ratings(store, run_id) if run_id in {r["id"] for r in store.list_runs()} else []


@pytest.mark.parametrize(("fields", "says"), [row[1:] for row in BAD_RATINGS], ids=[row[0] for row in BAD_RATINGS])
def test_ratings_import_of_a_bad_rating_stores_nothing(db, tmp_path, fields, says):
    path = tmp_path / "ratings.jsonl"
    good = dump_ratings("run-0001", RUN.ratings[:3])
    path.write_text(good + json.dumps(GOOD | fields) + "\n", encoding="utf-8")
    outcome = run_cli("ratings", "import", path, "--db", db)
    assert_holds(outcome, exit_codes=[2], within_s=30, says=[str(path), "line 4", says])
    assert _stored(db, "run-0001") == []


def test_ratings_import_stores_nothing_when_a_later_run_fails(db, tmp_path):
    path = tmp_path / "ratings.jsonl"
    later = json.dumps(GOOD | {"run": "run-0002", "contender": "nobody", "verdict": "pass"}) + "\n"
    path.write_text(dump_ratings("run-0001", RUN.ratings) + later, encoding="utf-8")
    outcome = run_cli("ratings", "import", path, "--db", db)
    assert_holds(outcome, exit_codes=[2], within_s=30, says=[str(path), "'nobody'"])
    assert _stored(db, "run-0001") == [] and _stored(db, "run-0002") == []


def test_ratings_import_refuses_a_file_over_the_size_limit(db, tmp_path):
    path = tmp_path / "ratings.jsonl"
    path.write_text(dump_ratings("run-0001", RUN.ratings), encoding="utf-8")
    outcome = run_cli("ratings", "import", path, "--db", db, env={"EVALCORE_MAX_RATINGS_BYTES": "1000"})
    assert_holds(outcome, exit_codes=[2], within_s=30, says=[str(path), "1000 bytes", "EVALCORE_MAX_RATINGS_BYTES"])
    assert _stored(db, "run-0001") == []


@pytest.mark.parametrize(("fields", "says"), [row[1:] for row in BAD_RATINGS], ids=[row[0] for row in BAD_RATINGS])
def test_a_run_file_with_a_bad_rating_is_refused_and_nothing_stored(tmp_path, fields, says):
    tree = run_to_dict(rated_run("run-file"))
    entry = {k: v for k, v in (GOOD | fields).items() if k != "run"}
    tree["ratings"].append(entry)
    path = tmp_path / "run.json"
    path.write_text(json.dumps(tree), encoding="utf-8")
    db = tmp_path / "evalcore.db"
    outcome = run_cli("import", path, "--db", db)
    assert_holds(outcome, exit_codes=[2], within_s=30, says=[f"ratings.{len(tree['ratings']) - 1}", says])
    assert _stored(db, "run-file") == []
