"""``evalcore judge align RUN``: before and after on held-out ratings, the rule, what was written."""

from __future__ import annotations

import json

import pytest

from evalcore.cli import main
from tests.aligning import rated_suite_run


@pytest.fixture(autouse=True)
def instant(monkeypatch):
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")


def test_align_prints_agreement_before_and_after_and_the_entry_to_add(tmp_path, capsys):
    suite, db, run_id = rated_suite_run(tmp_path)
    capsys.readouterr()
    assert main(["judge", "align", run_id[:8], "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "20 replies rated by people and judged; 5 folds, up to 4 examples each" in out
    assert "before   50.0%" in out and "aligned  100.0%" in out
    assert "agreement difference (aligned - before): +0.500 [+0.299, +0.700] (paired bootstrap" in out
    assert "to use it, add under scorers: in evalcore.yaml:" in out
    assert (suite / "judges" / "llm_judge_aligned.yaml").is_file()


def test_align_as_json_states_the_rule_and_the_status(tmp_path, capsys):
    _, db, run_id = rated_suite_run(tmp_path, judge="fake/judge")
    capsys.readouterr()
    assert main(["judge", "align", run_id, "--db", str(db), "--format", "json", "--name", "strict"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "not better"
    assert data["written"] is None
    assert data["report"]["rule"] == "paired bootstrap 95% interval of mean(agrees_after - agrees_before) lies above 0"
    assert data["report"]["before"]["accuracy"]["value"] == data["report"]["after"]["accuracy"]["value"] == 0.5


def test_align_of_a_run_without_ratings_says_how_to_get_them(tmp_path, capsys):
    _, db, run_id = rated_suite_run(tmp_path, rated=False)
    capsys.readouterr()
    assert main(["judge", "align", run_id, "--db", str(db)]) == 2
    assert "has no ratings: rate its replies on the app's Rate page first" in capsys.readouterr().err


def test_more_folds_than_rated_replies_is_refused(tmp_path, capsys):
    _, db, run_id = rated_suite_run(tmp_path)
    capsys.readouterr()
    assert main(["judge", "align", run_id, "--db", str(db), "--folds", "30"]) == 2
    assert "--folds 30 needs at least 30 (rate more on the Rate page)" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["../../elsewhere", "Aligned", "a/b"])
def test_a_name_that_is_no_scorer_id_is_refused_before_any_call(tmp_path, capsys, name):
    suite, db, run_id = rated_suite_run(tmp_path)
    capsys.readouterr()
    assert main(["judge", "align", run_id, "--db", str(db), "--name", name]) == 2
    assert f"--name {name!r} is not a scorer id" in capsys.readouterr().err
    assert not (suite / "judges").exists()
