"""A lineup entry with ``router:`` runs over two local OpenAI-compatible servers: both get calls, and when one is
down the other finishes the run with every case scored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evalcore.execution.plan import make_plan
from evalcore.execution.runner import run_suite
from evalcore.storage.store import Store
from evalcore.suite.loader import load_suite
from tests.openai_server import OpenAIServer
from tests.suites import CASES, write_suite

FIELDS_REPLY = '{"name": null, "kind": null, "count": null, "amount": null, "urgent": null, "tags": null}'


@pytest.fixture(autouse=True)
def no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """Local servers need no key: the run must not ask for one."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def router_suite(tmp_path: Path, *bases: str, cases: int = 16) -> Path:
    deployments = [
        {"model_name": "local-llama", "litellm_params": {"model": "openai/llama", "api_base": b}} for b in bases
    ]
    config: dict[str, Any] = {
        "lineup": [
            {
                "model": "local-llama",
                "settings": {"temperature": [0, 0.7]},
                "router": {"model_list": deployments, "allowed_fails": 1, "cooldown_time": 60},
            }
        ],
        "run": {"max_attempts": 4, "backoff_s": 0.01, "concurrency": 4, "timeout_s": 10},
    }
    text, expected = CASES["vague/001"]
    return write_suite(tmp_path / "suite", config, {f"vague/{i:03d}": (text, expected) for i in range(cases)})


def run(root: Path, tmp_path: Path) -> tuple[Store, str]:
    store = Store(tmp_path / "evalcore.db")
    run_id, status = run_suite(make_plan(load_suite(root)), store)
    assert status == "completed"
    return store, run_id


@pytest.fixture
def servers(openai_server: OpenAIServer):
    openai_server.content = FIELDS_REPLY
    with OpenAIServer(FIELDS_REPLY) as other:
        yield openai_server, other


def test_a_router_contender_spreads_its_calls_over_both_servers(tmp_path: Path, servers) -> None:
    first, second = servers
    store, run_id = run(router_suite(tmp_path, first.base_url, second.base_url), tmp_path)
    stored = store.load_run(run_id)
    assert [c.id for c in stored.contenders] == ["local-llama · t=0", "local-llama · t=0.7"]
    assert len(stored.results) == 32 and all(r.status == "scored" and r.score == 1.0 for r in stored.results)
    assert first.calls > 0 and second.calls > 0 and first.calls + second.calls == 32
    deployments = stored.info.settings["routers"]["local-llama"]
    assert [d["api_base"] for d in deployments] == [first.base_url, second.base_url]


@pytest.mark.parametrize("down", ["closed port", "500s"])
def test_when_one_server_is_down_the_other_finishes_the_run(tmp_path: Path, servers, down: str) -> None:
    first, second = servers
    root = router_suite(tmp_path, first.base_url, second.base_url)
    if down == "closed port":
        second.stop()
    else:
        second.inject(1.0, ["status:500"])
    store, run_id = run(root, tmp_path)
    results = store.load_run(run_id).results
    assert len(results) == 32 and all(r.status == "scored" for r in results), [r.error for r in results if r.error]
    assert first.calls == 32
