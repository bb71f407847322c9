"""`evalcore import` of Every Eval Ever records and `evalcore export --to eee`, run as real processes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evalcore.storage.store import Store
from tests.cli.process import evalcore
from tests.importing import EEE

RECORDS = EEE / "records"
GOOD = [
    "98ea850e-7019-4728-a558-8b1819ec47c2.json",
    "676f4465-ce78-411a-9f5a-c97b3d2eac4f.json",
    "f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40.json",
    "f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40_samples.jsonl",
]


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "records"
    folder.mkdir()
    for name in GOOD:
        shutil.copy(RECORDS / name, folder)
    return folder


def test_a_folder_of_records_imports_one_run_per_record_and_reads_each_samples_file_with_its_record(tmp_path):
    db = tmp_path / "e.db"
    done = evalcore("import", _folder(tmp_path), db=db)
    assert done.returncode == 0, done.stderr
    assert "skipped" not in done.stderr
    imported = [line for line in done.stdout.splitlines() if line.startswith("imported run")]
    assert len(imported) == 3 and all("[Every Eval Ever 0." in line for line in imported)
    assert "(HF Open LLM v2, 6 results)" in done.stdout and "(MMLU-Pro Leaderboard, 15 results)" in done.stdout
    assert "6 of 6 benchmarks have no per-item results" in done.stdout
    assert len(Store(db).list_runs()) == 3


def _broken(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / f"{kind}.json"
    source = RECORDS / GOOD[0]
    if kind == "truncated":
        path.write_bytes(source.read_bytes()[:700])
    elif kind == "old-version":
        shutil.copy(RECORDS / "297419fa-855c-4eae-ad7c-3cf4a0262450.json", path)
    else:
        record = json.loads(source.read_text())
        del record["model_info"]
        path.write_text(json.dumps(record))
    return path


@pytest.mark.parametrize(
    ("kind", "problem"),
    [
        ("truncated", "line"),
        ("old-version", 'schema_version: "0.1.0" is not read here'),
        ("no-model", "model_info.id: missing"),
    ],
)
def test_a_bad_record_is_refused_with_exit_2_naming_the_file_and_no_store_is_created(tmp_path, kind, problem):
    db = tmp_path / "store" / "e.db"
    done = evalcore("import", _broken(tmp_path, kind), db=db)
    assert done.returncode == 2
    assert f"{kind}.json" in done.stderr and problem in done.stderr
    assert "Traceback" not in done.stderr
    assert not db.exists() and not db.parent.exists()


def test_a_run_exported_to_every_eval_ever_imports_again_with_the_same_scores(tmp_path):
    db = tmp_path / "e.db"
    assert evalcore("import", _folder(tmp_path), db=db).returncode == 0
    run_id = next(r["id"] for r in Store(db).list_runs() if r["suite"] == "<Platform>")
    out = tmp_path / "out"
    done = evalcore("export", run_id, "--to", "eee", "-o", out, db=db)
    assert done.returncode == 0, done.stderr
    assert "wrote 1 Every Eval Ever record into" in done.stdout
    (aggregate,) = out.rglob("*.json")
    again = evalcore("import", aggregate, db=tmp_path / "again.db")
    assert again.returncode == 0, again.stderr
    (back,) = Store(tmp_path / "again.db").list_runs()
    before = Store(db).load_run(run_id).results
    after = Store(tmp_path / "again.db").load_run(back["id"]).results
    assert [(r.case, r.score) for r in after] == [(r.case, r.score) for r in before] == [("demo_0001", 1.0)]


def test_export_to_eee_refuses_a_folder_that_holds_files(tmp_path):
    db = tmp_path / "e.db"
    assert evalcore("import", RECORDS / GOOD[0], db=db).returncode == 0
    (out := tmp_path / "out").mkdir()
    (out / "keep.txt").write_text("mine")
    done = evalcore("export", Store(db).list_runs()[0]["id"], "--to", "eee", "-o", out, db=db)
    assert done.returncode == 2 and "the folder is not empty" in done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]


def test_the_leaderboard_of_reported_scores_marks_them_and_shows_no_p_best(tmp_path):
    db = tmp_path / "e.db"
    assert evalcore("import", RECORDS / GOOD[0], db=db).returncode == 0
    shown = evalcore("leaderboard", Store(db).list_runs()[0]["id"], db=db)
    assert shown.returncode == 0, shown.stderr
    header, _, row = shown.stdout.splitlines()[:3]
    assert "P(best)" not in header and "aggregate only" in row
    assert "no interval, P(best) or paired statistics" in " ".join(shown.stdout.split())
