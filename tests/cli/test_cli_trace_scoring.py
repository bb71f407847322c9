"""`evalcore import traces.json --suite SUITE`: traced replies scored by the suite's judges and the scorers that
need no expected answer, over real processes, with an offline fake judge and with a judge over real HTTP."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from evalcore.storage.store import Store
from tests.cli.process import ROOT, evalcore
from tests.importing import OTLP
from tests.openai_server import OpenAIServer

TRACES = OTLP / "chat-traces.json"
EXAMPLE = ROOT / "docs" / "examples" / "traces" / "suite"
FAST = {"EVALCORE_FAKE_LATENCY_SCALE": "0"}


def _scored_run(db: Path):
    store = Store(db)
    (row,) = [r for r in store.list_runs() if not r["id"].startswith("otlp-")]
    return store.load_run(row["id"])


def test_the_summary_says_what_scored_the_traces_and_what_could_not_and_why(tmp_path: Path):
    done = evalcore("import", TRACES, "--suite", EXAMPLE, "--quiet", db=tmp_path / "e.db", env=FAST)
    assert done.returncode == 0, done.stderr
    assert "6 traced replies; no traced model is called" in done.stdout
    assert "  scored by: llm_judge, max_chars" in done.stdout
    said = "  not scored by contains: needs an expected answer, and traced calls have none: nothing to compare with"
    assert done.stdout.count(said) == 1
    assert "not scored: 1 traced call whose content was not captured" in done.stdout
    assert "not scored: 1 traced call that failed" in done.stdout


def test_a_metric_that_needs_an_expected_answer_is_absent_never_a_zero(tmp_path: Path):
    db = tmp_path / "e.db"
    assert evalcore("import", TRACES, "--suite", EXAMPLE, "--quiet", db=db, env=FAST).returncode == 0
    run = _scored_run(db)
    assert "contains" not in {m.name for m in run.metrics}
    assert not any("contains" in r.metrics for r in run.results)


def test_the_leaderboard_ranks_the_traced_models_on_the_judges_metric_with_intervals(tmp_path: Path):
    db = tmp_path / "e.db"
    assert evalcore("import", TRACES, "--suite", EXAMPLE, "--quiet", db=db, env=FAST).returncode == 0
    done = evalcore("leaderboard", _scored_run(db).info.id, "--format", "json", db=db)
    rows = json.loads(done.stdout)
    assert sorted(r["contender"] for r in rows) == ["claude-3-5-haiku", "gpt-4o-mini"]
    assert [r["rank"] for r in sorted(rows, key=lambda r: -r["helpful"])] == [1, 2]
    assert all(r["helpful_lo"] <= r["helpful"] <= r["helpful_hi"] for r in rows)


def _http_suite(root: Path, server: OpenAIServer) -> Path:
    judge = {"model": "openai/judge", "api_base": server.base_url, "reference": "none", "scale": [1, 5]}
    config = {
        "suite": "traced-http",
        "adapter": "chat",
        "scorers": [{"name": "llm_judge", "options": judge}],
        "prices": {"openai/judge": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}},
        "run": {"max_attempts": 2, "backoff_s": 0, "timeout_s": 5},
        "lineup": [{"model": "fake/oracle"}],
    }
    root.mkdir()
    (root / "evalcore.yaml").write_text(yaml.safe_dump(config))
    (root / "datasets" / "own").mkdir(parents=True)
    (root / "datasets" / "own" / "cases.jsonl").write_text('{"id": "a", "input": "hi", "expected": "hello"}\n')
    return root


def test_a_judge_over_real_http_is_the_only_model_called_and_its_verdicts_are_stored(
    tmp_path: Path, openai_server: OpenAIServer
):
    def verdict(body: dict) -> str:  # the judge grades the replies of claude-3-5-haiku 5, the others 2
        said = json.dumps(body)
        return json.dumps({"correct": 5 if "EU country" in said or "hold that drops" in said else 2, "reasoning": "."})

    openai_server.content = verdict
    db = tmp_path / "e.db"
    done = evalcore("import", TRACES, "--suite", _http_suite(tmp_path / "s", openai_server), "--quiet", db=db)
    assert done.returncode == 0, done.stderr
    assert openai_server.calls == 6 and {b["model"] for b in openai_server.requests} == {"judge"}
    run = _scored_run(db)
    judged = [r for r in run.results if r.status == "scored"]
    assert len(judged) == 6 and all(r.diagnostics["judge"]["cost_usd"] > 0 for r in judged)
    graded = {r.contender: set() for r in judged}
    for r in judged:
        graded[r.contender].add(r.metrics["correct"])
    assert graded == {"claude-3-5-haiku": {1.0}, "gpt-4o-mini": {0.25}}


def test_max_cost_without_a_suite_is_refused(tmp_path: Path):
    done = evalcore("import", TRACES, "--max-cost", "1", db=tmp_path / "e.db")
    assert done.returncode == 2 and "--max-cost 1: it caps the judges of --suite" in done.stderr
    assert not (tmp_path / "e.db").exists()


def test_a_suite_none_of_whose_scorers_can_score_traces_is_refused_before_anything_is_stored(tmp_path: Path):
    done = evalcore("import", TRACES, "--suite", ROOT / "data" / "suites" / "intake", db=tmp_path / "e.db")
    assert done.returncode == 2 and "can score traces: fields needs an expected answer" in done.stderr
    assert not (tmp_path / "e.db").exists()


def test_a_suite_given_with_a_file_that_is_not_traces_is_said_to_be_ignored(tmp_path: Path):
    from tests.importing import INSPECT

    done = evalcore("import", INSPECT / "capitals.eval", "--suite", EXAMPLE, db=tmp_path / "e.db", env=FAST)
    assert done.returncode == 0, done.stderr
    assert "warning: --suite scores traced calls only; capitals.eval was imported as it is" in done.stdout


def test_replies_whose_judge_could_not_be_reached_are_judged_on_resume(tmp_path: Path, openai_server: OpenAIServer):
    openai_server.content = json.dumps({"correct": 4, "reasoning": "ok"})
    openai_server.inject(1.0, ["status:500"], seed=1)
    db = tmp_path / "e.db"
    done = evalcore("import", TRACES, "--suite", _http_suite(tmp_path / "s", openai_server), "--quiet", db=db)
    run = _scored_run(db)
    assert done.returncode == 1 and run.info.status == "interrupted"
    assert f"judge them with evalcore run --resume {run.info.id}" in done.stderr
    openai_server.inject(0.0, [])
    assert evalcore("run", "--resume", run.info.id, "--quiet", db=db).returncode == 0
    resumed = Store(db).load_run(run.info.id)
    assert resumed.info.status == "completed" and sum(r.status == "scored" for r in resumed.results) == 6


TOOL_CHECK = '''
from evalcore.core.records import Metric
from evalcore.scoring.scorers import Scored


class NoToolErrors:
    """1 when no tool call of the agent's trace failed: it reads the trace, never an expected answer."""

    name = "no_tool_errors"
    reference_free = True
    metrics = [Metric("no_tool_errors", "1 when no tool call failed", True, True)]

    def score(self, case, parsed, context):
        failed = [s["name"] for s in parsed.trace or [] if s["kind"] == "tool" and s["error"]]
        return Scored({"no_tool_errors": 0.0 if failed else 1.0}, {"failed": failed} if failed else {})
'''


def test_an_agent_trace_is_scored_by_a_reference_free_tool_scorer_that_reads_its_tool_steps(tmp_path: Path):
    suite = tmp_path / "agents"
    config = {
        "suite": "agent-traces",
        "adapter": "chat",
        "scorers": [{"name": "checks:NoToolErrors"}, {"name": "trajectory"}],
        "lineup": [{"model": "fake/oracle"}],
    }
    (suite / "datasets" / "own").mkdir(parents=True)
    (suite / "evalcore.yaml").write_text(yaml.safe_dump(config))
    (suite / "checks.py").write_text(TOOL_CHECK)
    (suite / "datasets" / "own" / "cases.jsonl").write_text('{"id": "a", "input": "hi", "expected": "hello"}\n')
    db = tmp_path / "e.db"
    done = evalcore("import", OTLP / "agent-traces.json", "--suite", suite, "--quiet", db=db, env=FAST)
    assert done.returncode == 0, done.stderr
    assert "scored by: no_tool_errors" in done.stdout and "not scored by trajectory: needs an expected" in done.stdout
    run = _scored_run(db)
    checked = {(r.contender, r.trace is not None): r.metrics["no_tool_errors"] for r in run.results}
    assert checked == {("gpt-4o-mini", True): 1.0, ("claude-3-5-haiku", True): 0.0, ("gpt-4o-mini", False): 1.0}
