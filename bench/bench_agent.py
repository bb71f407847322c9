"""Agent runs over MCP: a 30-case suite whose one tool is served by an MCP server over stdio.

Run: ``python bench/bench_agent.py``.

evalcore: ``run_suite`` of a ``fake/agent`` contender (two model turns and one MCP tool call per case), which
opens the server once for the run and shares its session across the cases. Baseline: the same run with a
session opened and closed around every case (a server started per case), measured in the same process
moments apart. Target: evalcore / per-case sessions <= 0.5.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml
from _common import arguments, report

TARGET = 0.5

SERVER = '''
from mcp.server.mcpserver import MCPServer

server = MCPServer("orders")


@server.tool()
def lookup_order(order_id: str) -> str:
    """The status of an order.

    Args:
        order_id: the order's id.
    """
    return f"order {order_id}: shipped"


server.run("stdio")
'''


def write_agent_suite(root: Path, cases: int, concurrency: int) -> Path:
    """An agent suite of ``cases`` lookups through the MCP server above."""
    config = {
        "suite": "bench-agent",
        "adapter": {"name": "agent", "options": {"mcp": [{"command": "python", "args": ["server.py"]}]}},
        "scorer": "non_empty",
        "run": {"max_attempts": 1, "backoff_s": 0, "concurrency": concurrency},
        "lineup": [{"model": "fake/agent"}],
    }
    root.mkdir(parents=True)
    (root / "evalcore.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    (root / "server.py").write_text(SERVER)
    folder = root / "datasets" / "orders"
    folder.mkdir(parents=True)
    rows = [
        {"id": f"o{i}", "input": f"Where is order A{i}?", "expected": {"actions": [_lookup(f"A{i}")]}}
        for i in range(cases)
    ]
    (folder / "cases.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return root


def _lookup(order_id: str) -> dict[str, Any]:
    return {"name": "lookup_order", "arguments": {"order_id": order_id}}


def per_case_sessions() -> Any:
    """Make the agent adapter open its MCP sessions around every case, as it did before they were shared."""
    from evalcore.scoring.agent_adapter import AgentAdapter
    from evalcore.scoring.agent_tools import McpServers

    shared = AgentAdapter.call

    async def call(self: Any, case: Any, contender: Any, client: Any) -> Any:
        own = type(self).__new__(type(self))
        own.__dict__.update(self.__dict__, servers=McpServers(self.options.mcp, self.suite_dir))
        try:
            return await shared(own, case, contender, client)
        finally:
            await own.servers.close()

    AgentAdapter.call = call  # type: ignore[method-assign]
    return lambda: setattr(AgentAdapter, "call", shared)


def timed_run(plan: Any, db: Path) -> float:
    from evalcore.execution.runner import run_suite
    from evalcore.storage.store import Store

    with Store(db) as store:
        start = time.perf_counter()
        _, status = run_suite(plan, store)
        took = time.perf_counter() - start
        assert status == "completed", status
        assert all(r.status == "scored" for r in store.load_run(store.list_runs()[0]["id"]).results)
    return took


def main() -> None:
    args = arguments(__doc__, cases=30, concurrency=8, repeat=3)

    from evalcore.execution.plan import make_plan
    from evalcore.storage.store import Store
    from evalcore.suite.loader import load_suite

    with tempfile.TemporaryDirectory() as tmp:
        plan = make_plan(load_suite(write_agent_suite(Path(tmp) / "suite", args.cases, args.concurrency)))
        Store(Path(tmp) / "warm.db").close()  # the first store of a process applies migrations: not timed
        ours, base = float("inf"), float("inf")
        for i in range(args.repeat):
            ours = min(ours, timed_run(plan, Path(tmp) / f"ours-{i}.db"))
            restore = per_case_sessions()
            try:
                base = min(base, timed_run(plan, Path(tmp) / f"base-{i}.db"))
            finally:
                restore()
    ratio = ours / base
    report(
        f"agent run over MCP ({args.cases} cases, concurrency {args.concurrency})",
        f"evalcore {ours:.2f} s (one session per run)",
        f"per-case sessions {base:.2f} s",
        ratio,
        f"<= {TARGET}",
        ratio <= TARGET,
    )


if __name__ == "__main__":
    main()
