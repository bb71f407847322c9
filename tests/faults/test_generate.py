"""The fault matrix's rows for the writer model of ``evalcore generate``: an endpoint that answers 5xx, hangs past
the timeout, sends a body that is not JSON or JSON that holds no cases, fails midway, or a budget cap that stops
the batch, each through a real process against the local OpenAI-compatible server (:mod:`tests.openai_server`).

Every row: no traceback, exit 1 (a writer call failed or the cap stopped it; what passed the filters is queued
all the same), within its time bound, the dataset's files exactly as they were (proposals only ever go to the
store), every paid reply that gave nothing named in the output, and the spend at most the cap.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evalcore.storage.proposals import PENDING, load_proposals
from evalcore.storage.store import Store
from evalcore.suite.loader import _hash_tree
from tests.faults.invariants import assert_holds, run_cli
from tests.openai_server import OpenAIServer

ROOT = Path(__file__).resolve().parents[2]
WRITER = "openai/writer"
PRICES = {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}
TIMEOUT_S = 0.5
CASES = {"cases": [{"variant": "returns", "input": "Can I return a gift card bought last week?",
                    "expected": "No. Gift cards cannot be returned."}]}  # fmt: skip
BOUND_S = 60


@pytest.fixture
def suite_dir(tmp_path: Path, openai_server: OpenAIServer) -> Path:
    """The policies example whose writer is the local server (two documents: two writer calls)."""
    folder = tmp_path / "policies"
    shutil.copytree(ROOT / "docs/examples/policies", folder)
    config = (folder / "evalcore.yaml").read_text(encoding="utf-8")
    writer = (f"  model: {WRITER}\n  api_base: {openai_server.base_url}\n  timeout_s: {TIMEOUT_S}\n"
              f"  max_attempts: 2\nprices:\n  {WRITER}: {json.dumps(PRICES)}\nrun:\n  backoff_s: 0\n")  # fmt: skip
    (folder / "evalcore.yaml").write_text(config.replace("  model: fake/writer\n", writer), encoding="utf-8")
    openai_server.content = json.dumps(CASES)
    return folder


def _generate(suite_dir: Path, db: Path, *extra: object):
    before = _hash_tree(suite_dir / "datasets")
    outcome = run_cli("generate", suite_dir, "--dataset", "questions", "--from", "docs", "--count", "2", "--db", db,
                      *extra)  # fmt: skip
    assert _hash_tree(suite_dir / "datasets") == before, "the dataset's files changed"
    with Store(db) as store:
        return outcome, load_proposals(store, status=PENDING)


@pytest.mark.parametrize(
    ("fault", "says"),
    [("status:500", "writer call failed"), (f"slow:{TIMEOUT_S + 2}", "timeout"), ("drop", "writer call failed")],
    ids=["5xx", "hang", "connection dropped"],
)
def test_a_writer_that_never_answers_ends_with_exit_1_and_nothing_written(suite_dir, tmp_db, openai_server, fault,
                                                                          says):  # fmt: skip
    openai_server.inject(1.0, [fault])
    outcome, pending = _generate(suite_dir, tmp_db)
    assert_holds(outcome, exit_codes=[1], within_s=BOUND_S, says=[says, "queued 0 for review"])
    assert pending == [] and openai_server.calls == 4  # two documents, two attempts each


@pytest.mark.parametrize("fault", ["malformed", "bad_content", "no_choices"])
def test_garbage_from_the_writer_is_named_and_queues_nothing(suite_dir, tmp_db, openai_server, fault):
    openai_server.inject(1.0, [fault])
    outcome, pending = _generate(suite_dir, tmp_db)
    named = outcome.stdout.count("writer call failed")
    assert_holds(outcome, exit_codes=[1], within_s=BOUND_S, paid=openai_server.calls, stored=0, named_lost=named * 2,
                 says=["queued 0 for review"])  # fmt: skip
    assert pending == [] and named == 2


def test_a_writer_failing_midway_keeps_what_it_wrote_before_in_the_queue(suite_dir, tmp_db, openai_server):
    openai_server.script("ok", "status:500", "status:500")
    outcome, pending = _generate(suite_dir, tmp_db)
    assert_holds(outcome, exit_codes=[1], within_s=BOUND_S, paid=1, stored=len(pending),
                 says=["writer call failed", "queued 1 for review"])  # fmt: skip
    assert [p.case["input"] for p in pending] == [CASES["cases"][0]["input"]]


def test_a_budget_cap_stops_the_writer_before_a_call_would_pass_it(suite_dir, tmp_db, openai_server):
    outcome, pending = _generate(suite_dir, tmp_db, "--max-cost", "0.0000001")
    assert_holds(outcome, exit_codes=[1], within_s=BOUND_S, says=["stopped by the budget cap", "queued 0"])
    assert openai_server.calls == 0 and pending == []


def test_a_budget_cap_counts_every_writer_call(suite_dir, tmp_db, openai_server):
    cap = 0.01
    outcome, pending = _generate(suite_dir, tmp_db, "--max-cost", cap, "--format", "json")
    spent = json.loads(outcome.stdout)["spent_usd"]
    assert_holds(outcome, exit_codes=[0], within_s=BOUND_S, spent=spent, cap=cap)
    assert openai_server.calls == 2 and spent > 0 and len(pending) == 1  # the second reply is the first's duplicate
