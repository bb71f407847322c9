"""The bundled ``data/suites/repeats`` demo: five samples of each case, a fake that is right every time on easy cases
and never on hard ones against one right 80% of the time on every case; pass@1 ranks them one way, pass^5 the other."""

from __future__ import annotations

import json
from pathlib import Path

from evalcore.cli import main

SUITE = Path(__file__).resolve().parents[2] / "data" / "suites" / "repeats"


def _rows(capsys, tmp_path, *weights: str) -> dict[str, dict]:
    db = str(tmp_path / "demo.db")
    assert main(["run", str(SUITE), "--db", db, "--quiet"]) == 0
    capsys.readouterr()
    (run,) = json.loads((main(["runs", "--db", db, "--format", "json"]), capsys.readouterr().out)[1])
    assert main(["leaderboard", run["id"], "--db", db, "--format", "json", *weights]) == 0
    return {r["contender"].split(" ")[0]: r for r in json.loads(capsys.readouterr().out)}


def test_the_demo_ranks_the_erratic_fake_first_on_pass_at_1_and_the_steady_one_first_on_pass_hat_5(
    capsys, tmp_path, monkeypatch
):
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    rows = _rows(capsys, tmp_path)
    steady, erratic = rows["fake/steady"], rows["fake/skill"]
    assert steady["samples"] == erratic["samples"] == 5
    assert erratic["pass@1"] > steady["pass@1"] == steady["pass^5"] == 0.7  # 14 easy cases of 20
    assert steady["pass^5"] > erratic["pass^5"] and erratic["pass@5"] > steady["pass@5"]
    assert steady["consistency"] == 1.0 > erratic["consistency"]
    assert steady["sd_within"] == 0.0 < erratic["sd_within"]
    assert [r["contender"].split(" ")[0] for r in rows.values()][0] == "fake/skill"  # ranked by score, pass@1


def test_weighting_pass_hat_5_ranks_the_steady_fake_first(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    rows = _rows(capsys, tmp_path, "--weights", "pass^5=1")
    assert next(iter(rows)) == "fake/steady"
