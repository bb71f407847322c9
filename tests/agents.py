"""A small agent suite written into a temporary folder: a support agent with tools over a few orders."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import yaml

#: The suite's tools module: public functions are tools; ``CALLS`` records every call, for tests to read.
TOOLS_PY = '''
import asyncio

ORDERS = {"A17": {"status": "shipped", "total": 42.5}, "B02": {"status": "pending", "total": 9.99}}
CALLS = []


def lookup_order(order_id: str) -> dict:
    """Look an order up by its id.

    Args:
        order_id: the order's id, e.g. A17.
    """
    CALLS.append(("lookup_order", order_id))
    if order_id not in ORDERS:
        raise KeyError(f"no order {order_id}")
    return ORDERS[order_id]


def refund_order(order_id: str, amount: float) -> str:
    """Refund an order, in full or in part.

    Args:
        order_id: the order to refund.
        amount: how much to give back, in dollars.
    """
    CALLS.append(("refund_order", order_id))
    return f"refunded {amount:.2f} on {order_id}"


def delete_account(customer: str) -> str:
    """Delete a customer's account (never right in this suite).

    Args:
        customer: the customer's name.
    """
    CALLS.append(("delete_account", customer))
    return "deleted"


def order_history(order_id: str) -> str:
    """Every event of an order, oldest first: a long text.

    Args:
        order_id: the order.
    """
    CALLS.append(("order_history", order_id))
    return "event " * 100


async def slow_lookup(order_id: str) -> str:
    """A lookup that takes far longer than the suite lets a tool take.

    Args:
        order_id: the order.
    """
    await asyncio.sleep(30)
    return "late"
'''

LOOKUP = {"name": "lookup_order", "arguments": {"order_id": "A17"}}
REFUND = {"name": "refund_order", "arguments": {"order_id": "A17", "amount": 42.5}}
CASES = [
    ("status/A17", "Where is my order A17?", {"actions": [LOOKUP], "answer": "Order A17 has shipped."}),
    ("refund/A17", "Please refund order A17.", {"actions": [LOOKUP, REFUND], "answer": "Refunded 42.50."}),
    ("unknown/Z9", "Where is order Z9?", {"actions": [{"name": "lookup_order", "arguments": {"order_id": "Z9"}}]}),
]


def agent_suite(
    root: Path,
    lineup: list[dict[str, Any]],
    options: dict[str, Any] | None = None,
    cases: list[tuple[str, str, Any]] = CASES,
    **config: Any,
) -> Path:
    """The suite folder: ``tools.py``, one dataset of ``cases`` (id, input, expected), the ``agent`` adapter with
    ``options``, scored by ``non_empty`` unless ``config`` gives ``scorers``; ``config`` adds to ``evalcore.yaml``."""
    config = {
        "suite": "support",
        "adapter": {"name": "agent", "options": {"tools": "tools.py", "max_steps": 6, **(options or {})}},
        "instructions": "You are a support agent. Use the tools.",
        **({} if "scorers" in config else {"scorer": "non_empty"}),
        "run": {"max_attempts": 1, "backoff_s": 0, "concurrency": 2},
        "lineup": lineup,
        **config,
    }
    root.mkdir(parents=True)
    (root / "evalcore.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    (root / "tools.py").write_text(TOOLS_PY)
    folder = root / "datasets" / "support"
    folder.mkdir(parents=True)
    lines = [
        json.dumps({"id": i, "variant": i.split("/")[0], "input": text, "expected": want}) for i, text, want in cases
    ]
    (folder / "cases.jsonl").write_text("\n".join(lines) + "\n")
    return root


def alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (an agent's tool server, say)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
