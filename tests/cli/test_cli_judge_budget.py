"""``evalcore run --max-cost`` with an LLM judge, through a real process: an unpriced judge model is refused with
exit 2 and one line before any call; the suite's ``prices:`` for it lets the run go."""

from __future__ import annotations

import subprocess
from pathlib import Path

from evalcore.storage.store import Store
from tests.cli.process import evalcore as run
from tests.execution.test_judge_guard import JUDGE, answering, judged_suite
from tests.openai_server import OpenAIServer

ROOT = Path(__file__).resolve().parents[2]


ENV = {"OPENAI_API_KEY": "sk-test-judge-budget-0000"}


def evalcore(*argv: object) -> subprocess.CompletedProcess[str]:
    return run(*argv, env=ENV)


def test_an_unpriced_judge_under_a_cap_exits_2_before_any_call(tmp_path, tmp_db, openai_server: OpenAIServer):
    suite = judged_suite(tmp_path / "suite", openai_server, n=2, prices={})
    done = evalcore("run", suite, "--db", tmp_db, "--quiet", "--max-cost", "1")
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: ") and f"no price is known for the judge model {JUDGE}" in line
    assert f"prices: {{{JUDGE}: {{input_cost_per_token:" in line
    assert openai_server.calls == 0 and Store(tmp_db).list_runs() == []


def test_a_judge_priced_by_the_suite_runs_under_a_cap(tmp_path, tmp_db, openai_server: OpenAIServer):
    openai_server.content = answering()
    suite = judged_suite(tmp_path / "suite", openai_server, n=2)
    done = evalcore("run", suite, "--db", tmp_db, "--quiet", "--max-cost", "1")
    assert done.returncode == 0, done.stderr
    (info,) = Store(tmp_db).list_runs()
    assert info["status"] == "completed" and info["results"] == 2
