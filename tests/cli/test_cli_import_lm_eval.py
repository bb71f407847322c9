"""`evalcore import` of lm-evaluation-harness output folders, and two checkpoints compared on one leaderboard
with a paired interval, run as real processes."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from evalcore.storage.store import Store
from tests.cli.process import evalcore
from tests.importing import LM_EVAL

HEADLINE_FILTER = {"capitals_gen": "strict-match", "capitals_vote": "maj@3"}


def _imported_ids(db: Path) -> list[str]:
    return sorted(r["id"] for r in Store(db).list_runs())


def _headline_values(folder: Path) -> dict[tuple[str, int], float]:
    """Each document's exact_match under its task's first filter, read straight from the samples files."""
    values = {}
    for path in folder.rglob("samples_*.jsonl"):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            task = path.name.split("_2026")[0].removeprefix("samples_")
            if record["filter"] == HEADLINE_FILTER[task]:
                values[(task, record["doc_id"])] = record["exact_match"]
    return values


def _tango_interval(b: int, c: int, n: int, correction: float = 0.05) -> tuple[float, float]:
    """Tango's (1998) score interval of (b − c) / n, by scanning a grid of differences: the differences whose
    continuity-adjusted score statistic stays within 1.959964 (evalcore's adjustment: 0.05 discordant cases)."""
    inside = []
    for delta in np.linspace(-1, 1, 400_001):
        w = -b - c + (2 * n - b + c) * delta
        q = (math.sqrt(w * w + 8 * n * c * delta * (1 - delta)) - w) / (4 * n)
        spread = n * (2 * q + delta * (1 - delta))
        score = max(abs(b - c - n * delta) - correction, 0.0)
        if score <= 1.959964 * math.sqrt(max(spread, 0.0)):
            inside.append(delta)
    return min(inside), max(inside)


def test_import_of_output_folders_makes_one_run_per_results_file_and_skips_nothing(tmp_path):
    db = tmp_path / "e.db"
    done = evalcore("import", LM_EVAL / "ckpt-1000", LM_EVAL / "ckpt-2000", LM_EVAL / "dummy", db=db)
    assert done.returncode == 0, done.stderr
    assert "skipped" not in done.stderr
    imported = [line for line in done.stdout.splitlines() if line.startswith("imported run")]
    assert len(imported) == 3
    assert all(line.endswith("[lm-eval 0.4.13]") for line in imported)
    assert "(lm-eval: capitals_gen, capitals_vote, 24 results)" in imported[0]
    assert "12 documents of task capitals_gen (filters: strict-match, flexible-extract) read" in done.stdout
    assert len(_imported_ids(db)) == 3


def test_two_checkpoints_merge_into_one_leaderboard_with_the_paired_interval_a_hand_computation_gives(tmp_path):
    db = tmp_path / "e.db"
    assert evalcore("import", LM_EVAL / "ckpt-1000", LM_EVAL / "ckpt-2000", db=db).returncode == 0
    merged = tmp_path / "merged.json"
    done = evalcore("merge", *_imported_ids(db), "-o", merged, db=db)
    assert done.returncode == 0, done.stderr
    shown = evalcore("significance", merged, "--format", "json")
    assert shown.returncode == 0, shown.stderr
    row = next(r for r in json.loads(shown.stdout) if r["a"] == "ckpt-2000")

    old, new = _headline_values(LM_EVAL / "ckpt-1000"), _headline_values(LM_EVAL / "ckpt-2000")
    assert old.keys() == new.keys() and len(old) == 24
    b = sum(new[k] == 1 and old[k] == 0 for k in old)
    c = sum(new[k] == 0 and old[k] == 1 for k in old)
    lo, hi = _tango_interval(b, c, 24)
    assert row["n"] == 24 and row["method"] == "McNemar test, Tango interval"
    assert abs(row["mean_diff"] - (b - c) / 24) < 1e-9
    assert abs(row["lo"] - lo) < 1e-4 and abs(row["hi"] - hi) < 1e-4
    assert abs(row["p_value"] - math.erfc((abs(b - c) - 0.05) / math.sqrt(2 * (b + c)))) < 1e-9


def test_a_folder_with_a_truncated_samples_file_fails_naming_the_file_and_line(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    for path in (LM_EVAL / "ckpt-1000" / "ckpt-1000").iterdir():
        text = path.read_text()
        (folder / path.name).write_text(text[:-150] if "capitals_gen" in path.name else text)
    done = evalcore("import", folder, db=tmp_path / "e.db")
    assert done.returncode == 2
    assert "samples_capitals_gen_2026-12-07T18-00-46.141015.jsonl: not valid JSON Lines" in done.stderr
    assert "line 24:" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "e.db").exists()
