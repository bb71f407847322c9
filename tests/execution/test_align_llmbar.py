"""``evalcore judge align`` on real human labels: LLMBar's Natural set, its gold labels as people's ratings and a
real judge's recorded verdicts (ChatGPT, Vanilla prompt) replayed (tests/fixtures/llmbar_natural/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalcore.cli import main
from evalcore.core.records import Rating
from evalcore.execution.align import AlignOptions, align_judge
from evalcore.storage.ratings import add_ratings, load_ratings
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.aligning import SUITE, only_run

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "llmbar_natural" / "natural.jsonl"
ITEMS = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def llmbar(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """The items as a suite, run with the replayed judge, rated by their gold labels: (suite, db, run id)."""
    root = tmp_path_factory.mktemp("llmbar")
    suite = root / "suite"
    (suite / "datasets" / "tickets").mkdir(parents=True)
    (suite / "evalcore.yaml").write_text(SUITE.format(judge="fake/judge-learner", extra=""), encoding="utf-8")
    cases = [
        {
            "id": item["id"],
            "input": item["instruction"],
            "expected": f"Output (a): {item['output_1']}\nOutput (b): {item['output_2']}",
            "metadata": {"judge_verdict": "pass" if item["judge"] == 1 else "fail"},
        }
        for item in ITEMS
    ]
    (suite / "datasets" / "tickets" / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    db = root / "evalcore.db"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
        assert main(["run", str(suite), "--db", str(db)]) == 0
    run_id = only_run(db)
    with Store(db) as store:
        contender = store.load_run(run_id, results=False).contenders[0].id
        people = [
            Rating("tickets", item["id"], 0, contender, None, "llmbar-gold", "pass" if item["label"] == 1 else "fail")
            for item in ITEMS
        ]
        add_ratings(store, run_id, people)
    return suite, db, run_id


def _aligned(llmbar, monkeypatch, **options):
    suite, db, run_id = llmbar
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    with Store(db) as store:
        run, ratings = store.load_run(run_id), load_ratings(store, run_id)
    return align_judge(run, ratings, load_suite(suite), AlignOptions(**options))


def test_the_replayed_judge_agrees_with_the_gold_labels_as_llmbar_reports(llmbar, monkeypatch):
    outcome = _aligned(llmbar, monkeypatch, name="llmbar")
    assert outcome.items == 100
    assert outcome.report.before.accuracy.value == 0.80  # LLMBar's statistics.json: correct_False 80 / 100


def test_held_out_agreement_before_and_after_follows_the_stated_rule(llmbar, monkeypatch):
    suite = llmbar[0]
    outcome = _aligned(llmbar, monkeypatch, name="llmbar", folds=5, shots=4)
    report = outcome.report
    assert all(len(examples) == 4 for examples in report.examples)
    assert report.better == (report.difference.lo > 0)
    assert (outcome.status == "aligned") == report.better
    assert (suite / "judges" / "llmbar.yaml").exists() == report.better
