"""An agent's trace as the Cases page shows it: a timeline of its steps in order, and the expected actions
against the ones taken (matched, missing, extra), paired as the ``trajectory`` scorer pairs them.

Nothing here imports streamlit: the page renders the rows :func:`trace_timeline` prepares.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from evalcore.core.errors import ConfigError, EvalcoreError
from evalcore.core.records import Case, Result, Run
from evalcore.explorer.drilldown import find_result
from evalcore.scoring.trajectory import actions_of, pair_actions

#: A tool step whose action matches an expected one.
MATCHED = "matched"
#: A tool step that matches no expected action.
EXTRA = "extra"
#: An expected action no step took.
MISSING = "missing"


@dataclass
class Timeline:
    """A result's trace, ready to show."""

    steps: list[dict[str, Any]]
    """One row per step, in order: ``index``, ``kind`` (``model`` or ``tool``), ``title``, ``facts`` (time,
    tokens, cost or bytes as one line), ``content`` (what the model said), ``calls`` (the calls it made, as
    ``name(arguments)``), ``arguments``, ``result`` and ``error`` (a tool's, as text), ``cut`` (why the result
    the model saw is shorter than the tool's, or None), ``mark`` (:data:`MATCHED`, :data:`EXTRA`, or None:
    a model turn, or a case with no expected actions) and ``expected`` (the number of the expected action it
    matches, from 1)."""
    expected: list[dict[str, Any]] = field(default_factory=list)
    """One row per expected action: ``number`` (from 1), ``name``, ``arguments`` (text), ``mark``
    (:data:`MATCHED` or :data:`MISSING`) and ``step`` (the index of the step that took it, or None)."""
    order: str | None = None
    """The order rule the actions are held to; None when the case expects no actions."""
    totals: dict[str, Any] = field(default_factory=dict)
    """``model turns``, ``tool calls``, ``tool errors``, ``input tokens``, ``output tokens`` (None when no
    turn knows them), ``cut results``."""

    def expected_table(self) -> pd.DataFrame:
        """:attr:`expected` as a table: ``number, name, arguments, mark, step`` (a missing action's step empty)."""
        table = pd.DataFrame(self.expected, columns=["number", "name", "arguments", "mark", "step"])
        table["step"] = table["step"].astype("Int64")
        return table


def trace_timeline(case: Case, result: Result, order: str = "strict") -> Timeline | None:
    """The timeline of a result's trace; None when the result has no trace (the target gave no instrumentation).

    Args:
        case: the result's case; when its expected answer names ``actions`` (a ``trajectory`` answer), each
            tool step is marked against them.
        result: the result whose ``trace`` is shown.
        order: the order rule of a case whose expected answer gives none.
    """
    trace = result.trace
    if trace is None:
        return None
    steps = [_step_row(step) for step in trace if isinstance(step, dict)]
    timeline = Timeline(steps, totals=_totals(trace))
    try:
        paired = pair_actions(case, trace, order)
    except ConfigError:  # not a trajectory's answer: nothing to mark
        return timeline
    matched_by = {action: want for want, action in paired.pairs.items()}
    tool_rows = [row for row in steps if row["kind"] == "tool"]  # the actions, as actions_of lists them
    for number, row in enumerate(tool_rows):
        wanted = matched_by.get(number)
        row["mark"] = EXTRA if wanted is None else MATCHED
        row["expected"] = None if wanted is None else wanted + 1
    written = case.expected.get("actions") if isinstance(case.expected, dict) else None
    for i, want in enumerate(paired.wants):
        action = paired.pairs.get(i)
        arguments = written[i].get("arguments") if isinstance(written, list) and isinstance(written[i], dict) else None
        timeline.expected.append(
            {
                "number": i + 1,
                "name": want.name,
                "arguments": _json(arguments or {}),
                "mark": MISSING if action is None else MATCHED,
                "step": None if action is None else tool_rows[action]["index"],
            }
        )
    timeline.order = paired.order
    return timeline


def result_timeline(run: Run, contender: str, dataset: str, case: str, sample: int = 0) -> Timeline | None:
    """:func:`trace_timeline` of one result of a run, found by its key.

    Raises:
        EvalcoreError: the run has no such case or result; the message names it.
    """
    the_case = next((c for c in run.cases if c.key == (dataset, case)), None)
    if the_case is None:
        raise EvalcoreError(f"run {run.info.id} has no case {dataset}/{case}")
    return trace_timeline(the_case, find_result(run, contender, dataset, case, sample))


def _dicts(trace: list[Any]) -> list[dict[str, Any]]:
    return [step for step in trace if isinstance(step, dict)]


def _step_row(step: dict[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = {
        "index": step.get("index"),
        "kind": step.get("kind"),
        "content": None,
        "calls": [],
        "arguments": None,
        "result": None,
        "error": None,
        "cut": None,
        "mark": None,
        "expected": None,
    }
    if step.get("kind") == "model":
        calls = step.get("tool_calls") or []
        row["title"] = "Model turn" + (f": calls {', '.join(str(c.get('name')) for c in calls)}" if calls else "")
        row["facts"] = _model_facts(step)
        row["content"] = step.get("content")
        row["calls"] = [f"{c.get('name')}({_json(c.get('arguments'))})" for c in calls if isinstance(c, dict)]
        return row
    row["title"] = f"Tool {step.get('name')}" + (" failed" if step.get("error") is not None else "")
    row["facts"] = _tool_facts(step)
    row["arguments"] = _json(step.get("arguments"))
    row["result"] = step.get("result")
    row["error"] = step.get("error")
    full, sent = step.get("bytes"), step.get("sent_bytes")
    if isinstance(full, int) and isinstance(sent, int) and sent < full:
        row["cut"] = f"result cut to the byte budget: the model was sent {sent:,} of its {full:,} bytes"
    return row


def _model_facts(step: dict[str, Any]) -> str:
    tokens_in, tokens_out = step.get("input_tokens"), step.get("output_tokens")
    parts = [f"{_count(tokens_in)} in / {_count(tokens_out)} out tokens", _seconds(step.get("latency_s"))]
    cost = step.get("cost_usd")
    if cost is not None:
        parts.append(f"${cost:.4f}" if cost >= 0.0001 or cost == 0 else f"${cost:.2e}")
    return " · ".join(parts)


def _tool_facts(step: dict[str, Any]) -> str:
    parts = [_seconds(step.get("latency_s"))]
    if isinstance(step.get("bytes"), int):
        parts.append(f"{step['bytes']:,} bytes")
    return " · ".join(parts)


def _totals(trace: list[Any]) -> dict[str, Any]:
    steps = _dicts(trace)
    models = [s for s in steps if s.get("kind") == "model"]
    tools = actions_of(steps)

    def total(key: str) -> int | None:
        known = [s[key] for s in models if isinstance(s.get(key), int)]
        return sum(known) if known else None

    return {
        "model turns": len(models),
        "tool calls": len(tools),
        "tool errors": sum(1 for s in tools if s.get("error") is not None),
        "input tokens": total("input_tokens"),
        "output tokens": total("output_tokens"),
        "cut results": sum(
            1
            for s in tools
            if isinstance(s.get("bytes"), int) and isinstance(s.get("sent_bytes"), int) and s["sent_bytes"] < s["bytes"]
        ),
    }


def _count(value: Any) -> str:
    return "–" if value is None else f"{value:,}"


def _seconds(value: Any) -> str:
    if value is None:
        return "time unknown"
    return "under 1 ms" if value < 0.001 else f"{value:.3f} s" if value < 1 else f"{value:.2f} s"


def _json(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
