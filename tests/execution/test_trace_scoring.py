"""Imported traces scored by a suite's scorers that need no expected answer: each traced reply judged, no
contender called, the scorers that need an expected answer left out with why, their metrics absent."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import yaml

from evalcore.core.errors import ConfigError
from evalcore.execution.plan import RunOptions
from evalcore.execution.runner import execute_plan, start_run
from evalcore.execution.trace_scoring import split_scorers, trace_plan
from evalcore.runfile.importers.load import read_import
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.importing import OTLP

JUDGE = {"name": "llm_judge", "options": {"model": "fake/judge", "reference": "none", "dimensions": ["helpful"]}}


def _suite(root: Path, scorers: list) -> Path:
    config = {"suite": "traces", "adapter": "chat", "scorers": scorers, "lineup": [{"model": "fake/oracle"}]}
    root.mkdir(parents=True)
    (root / "evalcore.yaml").write_text(yaml.safe_dump(config))
    (root / "datasets" / "own").mkdir(parents=True)
    (root / "datasets" / "own" / "cases.jsonl").write_text('{"id": "a", "input": "hi", "expected": "hello"}\n')
    return root


def _scored(tmp_path: Path, scorers: list, cap: float | None = None):
    imported = read_import(OTLP / "chat-traces.json")
    store = Store(tmp_path / "e.db")
    store.import_run(imported)
    plan = trace_plan(
        imported, split_scorers(load_suite(_suite(tmp_path / "s", scorers))), RunOptions(max_cost_usd=cap)
    )
    run = start_run(plan, store)
    status = asyncio.run(execute_plan(plan, store, run))
    return imported, plan, status, store.load_run(run.info.id)


def test_each_traced_reply_is_judged_once_by_the_model_that_gave_it(tmp_path: Path):
    imported, plan, status, run = _scored(tmp_path, [JUDGE])
    assert status == "completed"
    assert sorted(r.key for r in run.results) == sorted(r.key for r in imported.results)
    judged = [r for r in run.results if r.status == "scored"]
    assert len(judged) == 6 and all(r.diagnostics["judge"]["judges"] for r in judged)
    assert run.info.settings["scores_traces_of"] == imported.info.id


def test_a_traced_call_that_failed_stays_an_error_and_is_not_judged(tmp_path: Path):
    _, _, _, run = _scored(tmp_path, [JUDGE])
    (failed,) = [r for r in run.results if r.status == "error"]
    assert "429 Too Many Requests" in failed.error.message and "judge" not in failed.diagnostics


def test_a_scorer_that_needs_an_expected_answer_is_left_out_and_its_metric_is_absent(tmp_path: Path):
    _, _, _, run = _scored(tmp_path, [JUDGE, "exact", {"name": "max_chars", "options": {"limit": 600}}])
    assert "exact" not in {m.name for m in run.metrics}
    assert all("exact" not in r.metrics for r in run.results)
    assert {r.metrics["within_limit"] for r in run.results if r.status == "scored"} == {1.0}


def test_the_split_says_why_each_scorer_left_out_cannot_score_traces(tmp_path: Path):
    suite = load_suite(
        _suite(
            tmp_path / "s", [JUDGE, "exact", {"name": "llm_judge", "id": "graded", "options": {"model": "fake/judge"}}]
        )
    )
    split = split_scorers(suite)
    assert split.kept_ids == ["llm_judge"]
    assert "nothing to compare with; exact absent" in split.left_out["exact"]
    assert "give it option reference: none" in split.left_out["graded"]


def test_a_suite_with_no_scorer_that_can_score_traces_is_refused(tmp_path: Path):
    with pytest.raises(ConfigError, match="no scorer of suite 'traces' can score traces: exact needs an expected"):
        split_scorers(load_suite(_suite(tmp_path / "s", ["exact"])))


def test_the_judges_are_held_to_the_cap_and_those_the_cap_made_room_for_are_made(tmp_path: Path):
    """Replies come back at once (nothing is asked of a traced model), so every reply's judging is reserved
    before the first judge call: the calls the cap made room for are made, the rest are refused."""
    cap = 0.00025
    _, _, status, run = _scored(tmp_path, [JUDGE], cap=cap)
    judged = [r for r in run.results if "judge" in r.diagnostics and r.status == "scored"]
    spent = sum(r.diagnostics["judge"]["cost_usd"] for r in judged)
    assert status == "interrupted" and run.info.settings["stopped_by"] == "budget"
    assert judged and 0 < spent <= cap
