"""A run whose http target returns numbers beside the answer: the ``numbers`` scorer makes them metrics that
the leaderboard shows, weights and gates like any other."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from evalcore.analysis.decisions.gate import FAIL, PASS, evaluate, gate_of
from evalcore.analysis.tables.runs import rank_run
from evalcore.execution.plan import make_plan
from evalcore.execution.runner import run_suite
from evalcore.storage.history import StoredRun
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.openai_server import OpenAIServer
from tests.suites import write_suite

#: The app echoes the input, and its reply counts the words it read and wrote (``usage``): numbers it reports.
CASES = {"greet/001": ("alpha", "alpha"), "greet/002": ("beta gamma", "beta gamma")}
ADAPTER = {
    "name": "http",
    "options": {
        "url": "${APP_URL}/chat/completions",
        "body": {"model": "{{ target }}", "messages": "{{ messages }}"},
        "output": "choices[0].message.content",
        "numbers": {"reply_tokens": "usage.completion_tokens", "prompt_tokens": "usage.prompt_tokens"},
    },
}
SCORERS = [
    {"name": "exact"},
    {"name": "numbers", "options": {"numbers": {"reply_tokens": {"max": 1}, "prompt_tokens": {"max": 5}}}},
]


@pytest.fixture
def stored(openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, tmp_db: Path):
    openai_server.content = lambda body: body["messages"][-1]["content"]
    monkeypatch.setenv("APP_URL", openai_server.base_url)
    config = {
        "adapter": ADAPTER,
        "scorers": SCORERS,
        "fields": None,
        "instructions": "",
        "lineup": [{"model": "http/app"}],
        "run": {"max_attempts": 1, "backoff_s": 0, "concurrency": 1},
        "weighted_score": {"weights": {"score": 1, "reply_tokens_ok": 1}},
    }
    root = write_suite(tmp_path / "s", config=config, cases=CASES)
    suite = yaml.safe_load((root / "evalcore.yaml").read_text())
    del suite["scorer"]  # the default suite's one scorer gives way to the list
    (root / "evalcore.yaml").write_text(yaml.safe_dump(suite))
    store = Store(tmp_db)
    run_id, status = run_suite(make_plan(load_suite(root)), store)
    assert status == "completed"
    yield StoredRun(store, run_id)
    store.close()


def test_each_number_is_a_metric_of_the_result_with_its_raw_value_kept(stored):
    results = sorted(stored.store.load_run(stored.id).results, key=lambda r: r.case)
    assert [r.metrics for r in results] == [
        {"exact": 1.0, "reply_tokens_ok": 1.0, "prompt_tokens_ok": 1.0},
        {"exact": 1.0, "reply_tokens_ok": 0.0, "prompt_tokens_ok": 1.0},
    ]
    assert [r.diagnostics["numbers"]["numbers"]["reply_tokens"] for r in results] == [1.0, 2.0]


def test_the_leaderboard_shows_and_weights_the_numbers_metrics(stored):
    (row,) = rank_run(stored, {"score": 1, "reply_tokens_ok": 1}, ci=False).to_dict("records")
    assert (row["reply_tokens_ok"], row["prompt_tokens_ok"]) == (0.5, 1.0)
    assert row["wscore"] == pytest.approx(75.0)


def test_the_gate_checks_a_numbers_metric(stored):
    (breach,) = evaluate(stored, gate_of({"guardrails": {"reply_tokens_ok": {"min": 0.9}}})).checks
    (ok,) = evaluate(stored, gate_of({"minimum": {"prompt_tokens_ok": 1.0}})).checks
    assert breach.status == FAIL and ok.status == PASS
