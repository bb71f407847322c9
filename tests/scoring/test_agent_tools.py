"""MCP servers of an agent run: one session per server, shared by the cases, reopened once after a failure."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from evalcore.core.errors import CallNotStarted
from evalcore.scoring.agent_tools import McpServerModel, McpServers
from tests.agents import alive

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def orders_server(starts: Path) -> McpServerModel:
    """The fixture MCP server over stdio, appending its process id to ``starts`` each time it starts."""
    return McpServerModel(
        command=sys.executable, args=[str(FIXTURES / "mcp_orders.py")], env={"MCP_ORDERS_STARTS": str(starts)}
    )


def pids(starts: Path) -> list[int]:
    return [int(line) for line in starts.read_text().split()] if starts.exists() else []


def test_concurrent_cases_share_one_session_per_server(tmp_path: Path):
    starts = tmp_path / "starts"

    async def scenario() -> list[str | None]:
        servers = McpServers([orders_server(starts)], tmp_path)
        try:
            listed = await asyncio.gather(*(servers.tools() for _ in range(4)))
            calls = [tools[0].run({"order_id": "A17"}) for tools in listed]
            return [outcome.result for outcome in await asyncio.gather(*calls)]
        finally:
            await servers.close()

    assert asyncio.run(scenario()) == ["order A17: shipped, total 42.5"] * 4
    assert len(pids(starts)) == 1


def test_a_killed_server_gives_the_call_an_error_and_is_restarted_for_the_next(tmp_path: Path):
    starts = tmp_path / "starts"

    async def scenario() -> tuple[str | None, str | None]:
        servers = McpServers([orders_server(starts)], tmp_path)
        try:
            (lookup,) = await servers.tools()
            os.kill(pids(starts)[0], signal.SIGKILL)
            failed = await asyncio.wait_for(lookup.run({"order_id": "A17"}), 30)
            again = await asyncio.wait_for(lookup.run({"order_id": "A17"}), 30)
            return failed.error, again.result
        finally:
            await servers.close()

    error, result = asyncio.run(scenario())
    assert error is not None and error.startswith("lookup_order: the MCP server ")
    assert result == "order A17: shipped, total 42.5"
    assert len(pids(starts)) == 2


def test_a_server_that_fails_again_after_its_restart_fails_the_next_case_before_it_calls_anything(tmp_path: Path):
    starts = tmp_path / "starts"

    async def scenario() -> None:
        servers = McpServers([orders_server(starts)], tmp_path)
        try:
            (lookup,) = await servers.tools()
            for _ in range(2):  # the first server, then the restarted one
                os.kill(pids(starts)[-1], signal.SIGKILL)
                await asyncio.wait_for(lookup.run({"order_id": "A17"}), 30)
                await asyncio.wait_for(lookup.run({"order_id": "A17"}), 30)  # the restart, or the server gone
            await servers.tools()
        finally:
            await servers.close()

    with pytest.raises(CallNotStarted, match=r"^the MCP server .*mcp_orders.py failed again after a restart"):
        asyncio.run(scenario())
    assert len(pids(starts)) == 2 and not any(alive(pid) for pid in pids(starts))


def test_closing_the_servers_stops_a_stdio_server(tmp_path: Path):
    starts = tmp_path / "starts"

    async def scenario() -> None:
        servers = McpServers([orders_server(starts)], tmp_path)
        await servers.tools()
        await servers.close()

    asyncio.run(scenario())
    (pid,) = pids(starts)
    assert not alive(pid)
