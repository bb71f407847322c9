"""``user_satisfaction`` and ``knowledge_retention``: LLM judges of a whole transcript, scored offline by the fake
judges; a judge that gives no verdict makes the conversation an error that keeps its transcript."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from evalcore.execution.plan import RunOptions, make_plan
from evalcore.execution.runner import run_suite
from evalcore.scoring.conversation_judges import transcript_text
from evalcore.storage.store import Store
from evalcore.suite.lineup import Overrides
from evalcore.suite.loader import load_suite

BUNDLED = Path(__file__).resolve().parents[2] / "data" / "suites" / "support-chat"
BOTS = ["fake/helpdesk", "fake/helpdesk-unconfirmed", "fake/helpdesk-forgets"]


@pytest.fixture(autouse=True)
def _instant(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")


def _results(root: Path, db: Path) -> list:
    store = Store(db)
    run_id, _ = run_suite(make_plan(load_suite(root), RunOptions(overrides=Overrides(models=BOTS))), store)
    return store.load_run(run_id).results


def _mean(results: list, contender: str, metric: str) -> float:
    values = [r.metrics[metric] for r in results if r.contender == contender and r.metrics.get(metric) is not None]
    return sum(values) / len(values)


def test_the_transcript_reads_as_user_and_assistant_lines():
    trace = [
        {"kind": "user", "turn": 0, "content": "Refund, please."},
        {"kind": "model", "turn": 0, "content": "Your order number?"},
        {"kind": "user", "turn": 1, "content": "Bye. [DONE]", "end": "done"},
    ]
    assert transcript_text(trace) == "User: Refund, please.\nAssistant: Your order number?\nUser: Bye. [DONE]"


def test_the_judges_rank_the_bot_that_answers_well_above_the_failing_ones(tmp_path: Path):
    results = _results(BUNDLED, tmp_path / "a.db")
    for metric in ("user_satisfaction", "knowledge_retention"):
        good, *bad = (_mean(results, bot, metric) for bot in BOTS)
        assert good > max(bad), metric
    judged = results[0].diagnostics["knowledge_retention"]["judge"]
    assert judged["judges"] and judged["cost_usd"] > 0  # the judge's calls, kept apart from the contender's


def test_a_judge_without_a_verdict_makes_the_conversation_an_error_that_keeps_its_transcript(tmp_path: Path):
    root = tmp_path / "chat"
    shutil.copytree(BUNDLED, root)
    config = yaml.safe_load((root / "evalcore.yaml").read_text())
    config["scorers"][-1]["options"]["model"] = "fake/judge-broken"  # not JSON one time in four
    (root / "evalcore.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    failed = [r for r in _results(root, tmp_path / "b.db") if r.status == "error"]
    assert failed and all(r.error.kind == "judge" and r.score is None and r.metrics == {} for r in failed)
    assert all(r.trace and r.trace[0]["kind"] == "user" and r.usage.cost_usd > 0 for r in failed)


def test_goal_completed_with_a_model_is_a_judge_that_ranks_the_bot_that_confirms_first(tmp_path: Path):
    root = tmp_path / "chat"
    shutil.copytree(BUNDLED, root)
    config = yaml.safe_load((root / "evalcore.yaml").read_text())
    config["scorers"][0] = {"name": "goal_completed", "primary": True, "options": {"model": "fake/judge"}}
    (root / "evalcore.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    results = _results(root, tmp_path / "c.db")
    good, *bad = (_mean(results, bot, "goal_completed") for bot in BOTS)
    assert good > max(bad)
    assert "judge" in results[0].diagnostics["goal_completed"]
