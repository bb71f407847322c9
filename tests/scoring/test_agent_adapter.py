"""The agent adapter: its tools' schemas, the loop through a model, every step in the trace, and how it stops."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evalcore.core.errors import ConfigError
from evalcore.core.records import Case, Contender
from evalcore.models.registry import get_provider
from evalcore.models.types import Request
from evalcore.scoring.adapters import Context
from evalcore.scoring.agent_adapter import AgentAdapter
from evalcore.scoring.client import Client, call_adapter
from evalcore.scoring.plugins import build_adapter
from evalcore.suite.config import NamedRef
from tests.agents import CASES, TOOLS_PY, alive

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def suite_dir(tmp_path: Path) -> Path:
    (tmp_path / "tools.py").write_text(TOOLS_PY)
    return tmp_path


def adapter(suite_dir: Path, **options: Any) -> AgentAdapter:
    return build_adapter(NamedRef(name="agent", options={"tools": "tools.py", **options}), suite_dir)


def case(i: int = 0, expected: Any = None) -> Case:
    case_id, text, want = CASES[i]
    return Case("support", case_id, case_id.split("/")[0], text, want if expected is None else expected)


def run_loop(agent: AgentAdapter, the_case: Case, model: str = "fake/agent") -> dict[str, Any]:
    """The raw reply of one loop, parsed, with the reply's usage under ``usage``."""
    contender = Contender(model, model)
    messages = agent.build_messages(the_case, Context("Help.", ()))
    request = Request(contender=contender, messages=messages, case=the_case, max_attempts=1, backoff_s=0)
    reply = asyncio.run(call_adapter(agent, Client(request, get_provider(model), Context("Help.", ()))))
    return {**json.loads(reply.text), "usage": reply.usage, "text": reply.text}


def test_a_tools_schema_comes_from_the_functions_signature_and_docstring(suite_dir: Path):
    specs = {t.name: t.spec()["function"] for t in adapter(suite_dir).functions}
    refund = specs["refund_order"]
    assert refund["description"] == "Refund an order, in full or in part."
    assert refund["parameters"]["required"] == ["order_id", "amount"]
    assert refund["parameters"]["properties"]["amount"] == {
        "description": "how much to give back, in dollars.",
        "title": "Amount",
        "type": "number",
    }
    assert sorted(specs) == ["delete_account", "lookup_order", "order_history", "refund_order", "slow_lookup"]


def test_a_tool_parameter_without_a_type_is_a_config_error_naming_it(tmp_path: Path):
    (tmp_path / "tools.py").write_text("def lookup(order_id):\n    return order_id\n")
    with pytest.raises(ConfigError, match=r"tool lookup: parameter 'order_id' has no type annotation"):
        adapter(tmp_path)


def test_an_unknown_option_is_a_config_error(suite_dir: Path):
    with pytest.raises(ConfigError, match=r"adapter.options: max_turns: Extra inputs are not permitted"):
        adapter(suite_dir, max_turns=3)


def test_the_agent_calls_the_tools_then_answers_and_each_step_is_in_the_trace(suite_dir: Path):
    done = run_loop(adapter(suite_dir), case(1))
    assert done["stopped"] == "answer" and done["content"] == "Refunded 42.50."
    assert [s["kind"] for s in done["trace"]] == ["model", "tool", "model", "tool", "model"]
    assert [s["index"] for s in done["trace"]] == [0, 1, 2, 3, 4]
    lookup = done["trace"][1]
    assert lookup["name"] == "lookup_order" and lookup["arguments"] == {"order_id": "A17"}
    assert json.loads(lookup["result"]) == {"status": "shipped", "total": 42.5} and lookup["error"] is None
    assert lookup["call_id"] == done["trace"][0]["tool_calls"][0]["id"]


def test_the_usage_of_the_reply_is_the_sum_of_the_model_turns(suite_dir: Path):
    done = run_loop(adapter(suite_dir), case(1))
    turns = [s for s in done["trace"] if s["kind"] == "model"]
    assert done["usage"].input_tokens == sum(s["input_tokens"] for s in turns)
    assert done["usage"].output_tokens == sum(s["output_tokens"] for s in turns)
    assert done["usage"].cost_usd == pytest.approx(sum(s["cost_usd"] for s in turns))


def test_a_tool_that_raises_sends_the_model_an_error_and_the_loop_goes_on(suite_dir: Path):
    done = run_loop(adapter(suite_dir), case(2))
    failed = done["trace"][1]
    assert failed["result"] is None and failed["error"] == "lookup_order raised KeyError: 'no order Z9'"
    assert done["stopped"] == "answer" and done["content"] == "error: lookup_order raised KeyError: 'no order Z9'"


def test_arguments_the_schema_refuses_are_an_error_result_and_the_tool_is_not_called(suite_dir: Path):
    wrong = {"actions": [{"name": "refund_order", "arguments": {"order_id": "A17", "amount": "lots"}}]}
    done = run_loop(adapter(suite_dir), case(1, wrong))
    assert done["trace"][1]["error"].startswith("invalid arguments for refund_order: amount: Input should be")


def test_a_tool_that_takes_longer_than_its_timeout_is_an_error_result(suite_dir: Path):
    slow = {"actions": [{"name": "slow_lookup", "arguments": {"order_id": "A17"}}], "answer": "Sorry."}
    done = run_loop(adapter(suite_dir, tool_timeout_s=0.05), case(0, slow))
    assert done["trace"][1]["error"] == "slow_lookup timed out after 0.05 s"
    assert done["content"] == "Sorry."


HANGING_PY = """
import threading

RELEASE = threading.Event()
STATE = {"returned": False}


def hang(order_id: str) -> str:
    \"\"\"A plain lookup that never returns until the test releases it.

    Args:
        order_id: the order.
    \"\"\"
    RELEASE.wait(20)  # a bound, so a broken fix fails this test instead of hanging it
    STATE["returned"] = True
    return "late"
"""


def test_a_plain_tool_that_hangs_times_out_and_the_loop_ends_without_waiting_for_it(suite_dir: Path):
    (suite_dir / "hanging.py").write_text(HANGING_PY)
    agent = adapter(suite_dir, tools=["tools.py", "hanging.py"], tool_timeout_s=0.05)
    module = next(t.function for t in agent.functions if t.name == "hang").__globals__
    try:
        stuck = {"actions": [{"name": "hang", "arguments": {"order_id": "A17"}}], "answer": "Sorry."}
        done = run_loop(agent, case(0, stuck))  # asyncio.run ends: it would wait for a tool in its executor
        assert done["trace"][1]["error"] == "hang timed out after 0.05 s" and done["content"] == "Sorry."
        assert module["STATE"]["returned"] is False  # the loop ended while the tool still hung
    finally:
        module["RELEASE"].set()


def test_a_result_over_the_byte_budget_is_cut_for_the_model_and_its_full_size_recorded(suite_dir: Path):
    history = {"actions": [{"name": "order_history", "arguments": {"order_id": "A17"}}]}
    done = run_loop(adapter(suite_dir, result_bytes=30), case(0, history))
    step = done["trace"][1]
    assert (step["bytes"], step["sent_bytes"], step["result"]) == (600, 30, "event " * 5)
    assert done["content"] == "event " * 5  # the fake answers with what it was sent


def test_an_agent_that_repeats_a_call_stops_at_max_steps(suite_dir: Path):
    done = run_loop(adapter(suite_dir, max_steps=3), case(0), model="fake/agent-loops")
    assert done["stopped"] == "max_steps"
    assert [s["kind"] for s in done["trace"]] == ["model", "tool"] * 3


def test_the_loop_stops_once_the_token_budget_is_spent(suite_dir: Path):
    done = run_loop(adapter(suite_dir, token_budget=1), case(1))
    assert done["stopped"] == "token_budget" and [s["kind"] for s in done["trace"]] == ["model", "tool"]


def test_the_loop_stops_once_the_time_budget_is_spent_after_its_first_turn(suite_dir: Path):
    done = run_loop(adapter(suite_dir, time_budget_s=1e-9), case(1))
    assert done["stopped"] == "time_budget" and [s["kind"] for s in done["trace"]] == ["model", "tool"]


def test_a_call_of_a_tool_that_does_not_exist_is_an_error_result(suite_dir: Path):
    ghost = {"actions": [{"name": "cancel_order", "arguments": {}}], "answer": "Done."}
    done = run_loop(adapter(suite_dir), case(0, ghost))
    assert done["trace"][1]["error"].startswith("no tool named 'cancel_order'; the tools are ['delete_account'")


def test_arguments_that_are_not_a_json_object_are_kept_as_the_models_text_and_not_run(suite_dir: Path):
    listed = {"actions": [{"name": "lookup_order", "arguments": ["A17"]}], "answer": "Sorry."}
    done = run_loop(adapter(suite_dir), case(0, listed))
    assert done["trace"][0]["tool_calls"][0]["arguments"] == '["A17"]'
    assert done["trace"][1]["error"] == 'the arguments of lookup_order are not a JSON object: ["A17"]'


def test_parse_reads_back_the_final_answer_and_the_trace(suite_dir: Path):
    agent = adapter(suite_dir)
    done = run_loop(agent, case(0))
    parsed = agent.parse(done["text"], Context("", ()))
    assert parsed.output == "Order A17 has shipped." and parsed.trace == done["trace"] and parsed.problem is None


def test_a_raw_reply_that_is_not_the_agents_json_is_unusable(suite_dir: Path):
    parsed = adapter(suite_dir).parse("Order A17 has shipped.", Context("", ()))
    assert parsed.output is None and parsed.problem.startswith("the raw reply is not the agent adapter's JSON")


def test_the_tools_of_an_mcp_server_over_stdio_are_offered_and_called(tmp_path: Path):
    server = {"command": sys.executable, "args": [str(FIXTURES / "mcp_orders.py")]}
    agent = build_adapter(NamedRef(name="agent", options={"mcp": [server]}), tmp_path)
    both = {"actions": [CASES[0][2]["actions"][0], CASES[2][2]["actions"][0]], "answer": "A17 has shipped."}
    done = run_loop(agent, case(0, both))
    found, failed = done["trace"][1], done["trace"][3]
    assert found["result"] == "order A17: shipped, total 42.5" and found["error"] is None
    assert failed["error"] == "Error executing tool lookup_order: no order Z9" and failed["result"] is None
    assert done["content"] == "A17 has shipped."


@pytest.fixture
def mcp_http_url() -> Iterator[str]:
    """The fixture MCP server over streamable HTTP, once it accepts connections."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, str(FIXTURES / "mcp_orders.py"), "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            assert server.poll() is None and time.monotonic() < deadline, "the MCP server did not start"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)  # poll: the server is starting
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_the_tools_of_an_mcp_server_over_streamable_http_are_called(tmp_path: Path, mcp_http_url: str):
    agent = build_adapter(NamedRef(name="agent", options={"mcp": [{"url": mcp_http_url}]}), tmp_path)
    done = run_loop(agent, case(0))
    assert done["trace"][1]["result"] == "order A17: shipped, total 42.5"


def test_an_mcp_server_that_cannot_start_is_a_config_error(tmp_path: Path):
    server = {"command": str(tmp_path / "no-such-server")}
    agent = build_adapter(NamedRef(name="agent", options={"mcp": [server]}), tmp_path)
    with pytest.raises(ConfigError, match=r"adapter.options.mcp: cannot open MCP server .*no-such-server"):
        run_loop(agent, case(0))


def test_an_mcp_url_that_cannot_be_reached_is_a_config_error(tmp_path: Path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/mcp"  # a port nothing listens on
    agent = build_adapter(NamedRef(name="agent", options={"mcp": [{"url": url}]}), tmp_path)
    with pytest.raises(ConfigError, match=rf"cannot open MCP server {url}: ConnectError"):
        run_loop(agent, case(0))


def test_an_mcp_server_that_never_finishes_its_handshake_is_a_config_error_at_the_connect_timeout(tmp_path: Path):
    pids = tmp_path / "pids"
    server = {
        "command": sys.executable,
        "args": [str(FIXTURES / "mcp_silent.py")],
        "env": {"MCP_SILENT_PID": str(pids)},
    }
    agent = build_adapter(NamedRef(name="agent", options={"mcp": [server], "mcp_connect_timeout_s": 1}), tmp_path)
    started = time.monotonic()
    with pytest.raises(
        ConfigError, match=r"mcp_silent.py: no answer within 1 s \(adapter.options.mcp_connect_timeout_s\)"
    ):
        run_loop(agent, case(0))
    assert time.monotonic() - started < 15
    (pid,) = [int(line) for line in pids.read_text().split()]
    assert not alive(pid)


def test_an_mcp_program_that_is_not_on_path_is_refused_before_it_is_started(tmp_path: Path):
    agent = build_adapter(NamedRef(name="agent", options={"mcp": [{"command": "no-such-mcp-xyz"}]}), tmp_path)
    with pytest.raises(ConfigError, match=r"mcp\[0\].command: 'no-such-mcp-xyz' is not found on PATH"):
        agent.check_ready()


def test_an_mcp_script_missing_from_the_suite_folder_is_refused_before_it_is_started(tmp_path: Path):
    server = {"command": "python", "args": ["orders_servr.py"]}
    agent = build_adapter(NamedRef(name="agent", options={"mcp": [server]}), tmp_path)
    with pytest.raises(ConfigError, match=r"mcp\[0\].args: 'orders_servr.py' is not a file of the suite folder"):
        agent.check_ready()


def test_an_expected_action_naming_no_tool_is_named_with_the_closest_tool(suite_dir: Path):
    wrong = {"actions": [{"name": "lookup_ordr", "arguments": {"order_id": "A17"}}]}
    problem = adapter(suite_dir).check_case(case(0, wrong))
    assert problem is not None and problem.startswith("expected.actions[0].name: 'lookup_ordr' is not a tool")
    assert problem.endswith("did you mean `lookup_order`?")


def test_an_expected_argument_its_tool_does_not_take_is_named_with_the_closest_parameter(suite_dir: Path):
    wrong = {"actions": [{"name": "refund_order", "arguments": {"order_id": "A17", "amuont": 1}}]}
    problem = adapter(suite_dir).check_case(case(0, wrong))
    assert problem == (
        "expected.actions[0].arguments: 'amuont' is not a parameter of refund_order (order_id, amount); "
        "did you mean `amount`?"
    )


def test_expected_actions_that_name_the_suites_tools_are_accepted(suite_dir: Path):
    assert [adapter(suite_dir).check_case(case(i)) for i in range(len(CASES))] == [None] * len(CASES)


EXITING_PY = """
import argparse
import asyncio


def parse_flags(order_id: str) -> str:
    \"\"\"A tool that parses flags with argparse, which exits on a bad one.

    Args:
        order_id: the order.
    \"\"\"
    argparse.ArgumentParser(prog="parse_flags").parse_args(["--nope"])
    return "parsed"


def interrupt(order_id: str) -> str:
    \"\"\"A tool that raises KeyboardInterrupt.

    Args:
        order_id: the order.
    \"\"\"
    raise KeyboardInterrupt


async def exit_async(order_id: str) -> str:
    \"\"\"An async tool that raises SystemExit.

    Args:
        order_id: the order.
    \"\"\"
    await asyncio.sleep(0)
    raise SystemExit(3)
"""


@pytest.mark.parametrize(
    ("tool", "error"),
    [
        ("parse_flags", "parse_flags raised SystemExit: 2"),
        ("interrupt", "interrupt raised KeyboardInterrupt: "),
        ("exit_async", "exit_async raised SystemExit: 3"),
    ],
)
def test_a_tool_raising_systemexit_or_keyboardinterrupt_is_the_tools_error_sent_to_the_model(
    suite_dir: Path, tool: str, error: str
):
    (suite_dir / "exiting.py").write_text(EXITING_PY)
    agent = adapter(suite_dir, tools=["tools.py", "exiting.py"])
    exits = {"actions": [{"name": tool, "arguments": {"order_id": "A17"}}], "answer": "Sorry."}
    done = run_loop(agent, case(0, exits))
    assert done["trace"][1]["error"] == error and done["content"] == "Sorry."
