"""``compare``, ``gate`` and ``baseline`` through a real process: output and every exit code of ``gate``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evalcore.runfile.read import read_run_file
from evalcore.runfile.write import write_run_file
from evalcore.storage.store import Store
from tests.cli.process import evalcore
from tests.factories import binary_run


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    runs = {
        "base": binary_run("base-0001", {"m": [1] * 40}),
        "same": binary_run("same-0002", {"m": [0] + [1] * 39}),
        "worse": binary_run("worse-0003", {"m": [0] * 10 + [1] * 30}),
    }
    return {name: write_run_file(run, tmp_path / f"{name}.json") for name, run in runs.items()}


def test_compare_prints_changes_and_flips_with_want_vs_got(files: dict[str, Path]) -> None:
    done = evalcore("compare", files["base"], files["worse"])
    assert done.returncode == 0, done.stderr
    assert "m → m: REGRESSION in score (40 shared cases)" in done.stdout
    assert "-25.0 [" in done.stdout and "regression" in done.stdout
    assert "cases that changed: 10 worse" in done.stdout
    assert "tax/c/000: worse (100.0% → 0.0%)" in done.stdout
    assert "answer: want 0, got -1" in done.stdout


def test_compare_json_and_markdown(files: dict[str, Path]) -> None:
    data = json.loads(evalcore("compare", files["base"], files["worse"], "--format", "json").stdout)
    (pair,) = data["pairs"]
    score = next(c for c in pair["changes"] if c["name"] == "score")
    assert score["verdict"] == "regression" and score["diff"] == pytest.approx(-0.25)
    assert len(pair["flips"]) == 10
    markdown = evalcore("compare", files["base"], files["worse"], "--format", "markdown").stdout
    assert markdown.startswith("### evalcore compare: `base-0001` → `worse-0003`")
    assert "| score | 100.0% | 75.0% |" in markdown


def test_gate_exit_codes_pass_fail_and_cannot_decide(files: dict[str, Path], tmp_path: Path) -> None:
    passed = evalcore("gate", files["same"], "--baseline", files["base"])
    assert passed.returncode == 0, passed.stderr
    assert "beyond the tolerance but not significant" in passed.stdout  # 2.5 pts > 2, but p = 1
    assert "verdict: PASS" in passed.stdout
    failed = evalcore("gate", files["worse"], "--baseline", files["base"])
    assert failed.returncode == 1 and "verdict: FAIL" in failed.stdout
    nothing = evalcore("gate", files["worse"])
    assert nothing.returncode == 2 and "nothing to check" in nothing.stderr
    missing = evalcore("gate", "no-such-run", db=tmp_path / "x.db")
    assert missing.returncode == 2 and "no-such-run" in missing.stderr


def test_gate_warn_exits_0_and_writes_the_step_summary(files: dict[str, Path], tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    (suite / "datasets").mkdir(parents=True)
    summary = tmp_path / "summary.md"
    (suite / "evalcore.yaml").write_text("suite: intake\ngate:\n  minimum:\n    score: {min: 0.9, level: warn}\n")
    done = evalcore("gate", files["worse"], "--suite", suite, "--summary", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert done.returncode == 0, done.stderr
    assert "verdict: WARN" in done.stdout
    assert "evalcore gate: **WARN**" in summary.read_text()


def test_baseline_pin_is_what_gate_compares_with(files: dict[str, Path], tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    assert evalcore("import", files["base"], db=db).returncode == 0
    assert evalcore("import", files["worse"], db=db).returncode == 0
    pinned = evalcore("baseline", "set", "base-0", db=db)  # a unique prefix
    assert pinned.returncode == 0, pinned.stderr
    assert "pinned run base-0001 (m) as the baseline of suite intake" in pinned.stdout
    assert "intake: run base-0001, contender m" in evalcore("baseline", "show", db=db).stdout
    gated = evalcore("gate", "worse-0003", db=db)
    assert gated.returncode == 1 and "baseline: run base-0001, contender m" in gated.stdout
    with Store(db) as store:
        store.delete_run("base-0001")
    assert evalcore("gate", "worse-0003", db=db).returncode == 2  # no baseline left, nothing to check


def test_run_with_gate_exits_as_the_gate_does(tmp_path: Path) -> None:
    from tests.suites import write_suite

    suite = write_suite(tmp_path / "suite", {"lineup": [{"model": "fake/oracle", "settings": {"temperature": 0}}]})
    db = tmp_path / "store.db"
    env = {"EVALCORE_FAKE_LATENCY_SCALE": "0"}
    first = evalcore("run", suite, "--quiet", "--gate", db=db, env=env)
    assert first.returncode == 2, first.stdout + first.stderr  # no baseline: the default gate has nothing to check
    assert "gate: cannot decide: nothing to check" in first.stderr
    (run,) = json.loads(evalcore("runs", "--format", "json", db=db).stdout)
    assert evalcore("baseline", "set", run["id"], db=db).returncode == 0
    second = evalcore("run", suite, "--quiet", "--gate", db=db, env=env)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "verdict: PASS" in second.stdout
    assert f"baseline: run {run['id']}" in second.stdout


def test_compare_of_stored_runs_never_loads_pandas(files: dict[str, Path], tmp_path: Path) -> None:
    """What keeps a fresh ``evalcore compare`` of two big stored runs fast: pandas is never imported."""
    db = tmp_path / "store.db"
    with Store(db) as store:
        for name in ("base", "worse"):
            store.import_run(read_run_file(files[name]))
    code = (
        "import sys; from evalcore.cli import main\n"
        f"code = main(['compare', 'base-0001', 'worse-0003', '--db', {str(db)!r}, '--format', 'json'])\n"
        "assert code == 0, code\n"
        "assert 'pandas' not in sys.modules, 'pandas was imported'\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["pairs"][0]["changes"][0]["verdict"] == "regression"


def test_gate_with_only_minimums_and_a_baseline_names_no_contender_none(files: dict[str, Path], tmp_path: Path) -> None:
    run = binary_run("only-min-0004", {"m": [1] * 40})
    run.info.settings["gate"] = {"minimum": {"score": 0.5}}
    candidate = write_run_file(run, tmp_path / "only-min.json")
    done = evalcore("gate", candidate, "--baseline", files["base"])
    assert done.returncode == 0, done.stderr
    assert "None" not in done.stdout
    assert (
        "note: the gate has no regression checks or must_not_* guardrails: baseline run base-0001 is not compared"
        in done.stdout
    )


def test_run_with_gate_compares_with_the_newest_earlier_run_of_the_same_definition(tmp_path: Path) -> None:
    from tests.suites import CASES, write_suite

    lineup = {"lineup": [{"model": "fake/oracle", "settings": {"temperature": 0}}]}
    suite = write_suite(tmp_path / "suite", lineup)
    db = tmp_path / "store.db"
    env = {"EVALCORE_FAKE_LATENCY_SCALE": "0"}
    assert evalcore("run", suite, "--quiet", db=db, env=env).returncode == 0
    (first,) = json.loads(evalcore("runs", "--format", "json", db=db).stdout)
    second = evalcore("run", suite, "--quiet", "--gate", db=db, env=env)
    assert second.returncode == 0, second.stdout + second.stderr
    assert f"baseline: run {first['id']}" in second.stdout
    assert "the newest earlier completed run of suite mini with the same definition fingerprint" in second.stdout
    text, expected = CASES["complete/001"]
    write_suite(suite, lineup, {**CASES, "complete/001": (text, {**expected, "count": 7})})
    changed = evalcore("run", suite, "--quiet", "--gate", db=db, env=env)
    assert changed.returncode == 2, changed.stdout + changed.stderr
    assert "no earlier run of suite mini has definition fingerprint" in changed.stderr
    assert "expected answers" in changed.stderr


def test_gate_prints_guardrails_as_ok_and_breach_lines_and_fails_on_a_breach(tmp_path: Path) -> None:
    from tests.analysis.test_guardrails import guarded_run, mixed

    run = guarded_run("guarded-0001", mixed(refunds_caught=8, refunds=10, others=90))
    run.info.settings["gate"] = {
        "minimum": {"score": 0.9},
        "guardrails": {"false_negative_rate": {"max": 0.1}, "false_positive_rate": {"max": 0.05}},
    }
    done = evalcore("gate", write_run_file(run, tmp_path / "guarded.json"))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "[BREACH] guardrail false_negative_rate = 20.0%: ≤ 10.0%" in done.stdout
    assert "[ok] guardrail false_positive_rate = 0.0%: ≤ 5.0%" in done.stdout
    assert "verdict: FAIL" in done.stdout
