"""The example suites under docs/examples/ verify and run as docs/suites.md says they do."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from evalcore.execution.plan import make_plan
from evalcore.execution.runner import run_suite
from evalcore.execution.verify import verify_suite
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def _server_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("faq_example_server", EXAMPLES / "http-target" / "server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def faq_service(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    server = _server_module().start(port=0)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setenv("FAQ_URL", url)
    yield url
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("name", ["tools", "http-target", "receipts", "policies"])
def test_an_example_verifies(name: str):
    report = verify_suite(EXAMPLES / name)
    assert report.ok, report.lines


def test_the_tools_example_ranks_the_fakes_by_their_tool_use(tmp_db: Path):
    store = Store(tmp_db)
    run_id, status = run_suite(make_plan(load_suite(EXAMPLES / "tools")), store)
    assert status == "completed"
    results = store.load_run(run_id).results
    oracle = [r for r in results if r.contender == "fake/oracle"]
    assert len(oracle) == 6 and all(r.score == 1.0 for r in oracle)
    guesser = [r.metrics["hallucinated_call"] for r in results if r.contender == "fake/guesser"]
    assert max(v for v in guesser if v is not None) == 1.0
    cautious = [r.metrics["missed_call"] for r in results if r.contender == "fake/cautious"]
    assert max(v for v in cautious if v is not None) == 1.0


def test_the_http_example_compares_two_retrieval_depths_of_its_service(faq_service: str, tmp_db: Path):
    store = Store(tmp_db)
    run_id, status = run_suite(make_plan(load_suite(EXAMPLES / "http-target")), store)
    assert status == "completed"
    results = store.load_run(run_id).results
    scores = {c: [r.score for r in results if r.contender == c] for c in {r.contender for r in results}}
    assert sum(scores["http/faq · top_k=3"]) == 5 and sum(scores["http/faq · top_k=1"]) == 3
    assert all(r.usage.input_tokens and r.usage.cost_usd for r in results)


def test_the_receipts_example_is_answered_by_the_model_shown_its_images(tmp_db: Path):
    store = Store(tmp_db)
    plan = make_plan(load_suite(EXAMPLES / "receipts"))
    assert [r.model for r in plan.refused] == ["fake/oracle"]
    run_id, status = run_suite(plan, store)
    assert status == "completed"
    results = store.load_run(run_id).results
    assert sorted((r.case, r.score, r.metrics["correct"]) for r in results) == [
        ("books", 1.0, 1.0),
        ("cafe", 1.0, 1.0),
        ("hardware", 1.0, 1.0),
    ]
