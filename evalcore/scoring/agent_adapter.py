"""The ``agent`` adapter: the contender's model in a tool loop, and the trace of every step it took.

The model is offered the suite's tools (:mod:`evalcore.scoring.agent_tools`: Python functions of the suite
folder, MCP servers); each call it makes is run and its result sent back, until it answers without calling a
tool, or ``max_steps`` model turns, the ``time_budget_s`` or the ``token_budget`` are spent. A tool that
raises, times out or is given bad arguments sends the model an error (it may recover); a model call that fails
is the case's error, as for any adapter.

The reply's raw text is JSON: ``{"content": <the final answer>, "stopped": <why the loop ended>, "trace":
[...]}``, the trace's steps as ``docs/run-file.md`` describes them. ``parse()`` reads it back, so the output
(the final answer, for any scorer of text) and the trace (for a scorer of the path) come from a stored run as
from a live one, and ``--replay`` replays the model turns and tool results without calling either.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any, Literal

import pydantic

from evalcore._util.suggest import did_you_mean
from evalcore.core.errors import ConfigError, EvalcoreError
from evalcore.core.records import Case, Contender
from evalcore.models.types import Reply
from evalcore.scoring.adapters import ChatAdapter, Context, Parsed
from evalcore.scoring.agent_tools import (
    DEFAULT_CONNECT_TIMEOUT_S,
    FunctionTool,
    McpServerModel,
    McpServers,
    ToolOutcome,
    check_command,
    python_tools,
    tool_raised,
)
from evalcore.scoring.client import Client
from evalcore.suite.code import import_suite_module

#: Why a loop ended: a final answer, or the budget it ran out of.
Stopped = Literal["answer", "max_steps", "time_budget", "token_budget"]
#: Where a tool's result is cut when the suite sets no ``result_bytes``.
DEFAULT_RESULT_BYTES = 16384


class AgentOptions(pydantic.BaseModel):
    """The ``adapter.options`` of an ``agent`` suite."""

    model_config = pydantic.ConfigDict(extra="forbid")

    #: Modules of the suite folder whose public functions are tools (``tools`` or ``tools.py``).
    tools: list[str] = []
    #: MCP servers whose tools are offered too.
    mcp: list[McpServerModel] = []
    #: Model turns at most.
    max_steps: int = pydantic.Field(10, ge=1)
    #: Wall time of the loop at most, in seconds; checked before each model turn after the first.
    time_budget_s: float | None = pydantic.Field(None, gt=0)
    #: Input plus output tokens of the model turns at most; checked before each model turn after the first.
    token_budget: int | None = pydantic.Field(None, gt=0)
    #: A tool result longer than this (UTF-8 bytes) is cut before the model sees it.
    result_bytes: int = pydantic.Field(DEFAULT_RESULT_BYTES, ge=1)
    #: How long one tool call may take, in seconds.
    tool_timeout_s: float = pydantic.Field(30.0, gt=0)
    #: How long starting or reaching an MCP server and its handshake may take, in seconds.
    mcp_connect_timeout_s: float = pydantic.Field(DEFAULT_CONNECT_TIMEOUT_S, gt=0)

    @pydantic.field_validator("tools", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


class AgentAdapter:
    """Runs the contender's model in a tool loop and records its trace (see the module)."""

    name = "agent"
    response_format = None

    def __init__(self, suite_dir: Path, **options: Any):
        """Args:
        suite_dir: the suite's folder (its tool modules, the MCP servers' working directory).
        **options: :class:`AgentOptions`.

        Raises:
            ConfigError: an unknown or invalid option, or a tool module that cannot be read.
        """
        try:
            self.options = AgentOptions.model_validate(options)
        except pydantic.ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            raise ConfigError(f"evalcore.yaml: adapter.options: {problems}") from None
        if not self.options.tools and not self.options.mcp:
            raise ConfigError("evalcore.yaml: adapter.options: the agent adapter needs `tools` (a module) or `mcp`")
        self.suite_dir = suite_dir
        self.functions = self._python_tools()
        #: The run's MCP sessions: opened by the first case that needs them, closed by :meth:`aclose`.
        self.servers = McpServers(self.options.mcp, suite_dir, self.options.mcp_connect_timeout_s)
        #: The MCP servers' tools and their parameters, once :meth:`learn_tools` listed them (``evalcore verify``).
        self._mcp_tools: dict[str, list[str]] | None = None

    def _python_tools(self) -> list[FunctionTool]:
        found: list[FunctionTool] = []
        for name in self.options.tools:
            module_name = name.removesuffix(".py")
            module = import_suite_module(module_name, self.suite_dir, "adapter.options.tools")
            found += python_tools(module, f"{self.suite_dir.name}/{module_name.replace('.', '/')}.py")
        return found

    def check_ready(self) -> None:
        """Refuse, before any call, an MCP server whose program (or script) cannot be found.

        Raises:
            ConfigError: naming the server's entry and the missing program.
        """
        for i, server in enumerate(self.options.mcp):
            check_command(server, self.suite_dir, f"evalcore.yaml: adapter.options.mcp[{i}]")

    def learn_tools(self) -> str | None:
        """Open the MCP servers (no model is called) so that :meth:`check_case` knows their tools too, then close
        them; why they could not be opened, else None (their tools are then left unchecked)."""
        if not self.options.mcp:
            return None

        async def listed() -> list[Any]:
            try:
                return await self.servers.tools()
            finally:
                await self.servers.close()

        try:
            self._mcp_tools = {t.name: list(t.schema.get("properties") or {}) for t in asyncio.run(listed())}
        except EvalcoreError as exc:
            return str(exc)
        return None

    def check_case(self, case: Case) -> str | None:
        """What is wrong with the case's ``expected.actions`` for this suite's tools: an action naming no tool,
        or an argument its tool does not take; None when nothing is. An MCP server's tools are known once
        :meth:`learn_tools` has listed them; until then an action naming no Python tool is left to the servers."""
        actions = case.expected.get("actions") if isinstance(case.expected, dict) else None
        tools = {t.name: list(t.arguments.model_fields) for t in self.functions} | (self._mcp_tools or {})
        unknown = bool(self.options.mcp) and self._mcp_tools is None
        for i, action in enumerate(actions if isinstance(actions, list) else []):
            name = action.get("name") if isinstance(action, dict) else None
            if not isinstance(name, str) or name not in tools:
                if unknown or not isinstance(name, str):
                    continue
                hint = did_you_mean(name, tools)
                return f"expected.actions[{i}].name: {name!r} is not a tool of this suite ({sorted(tools)}){hint}"
            arguments = action.get("arguments")
            for key in arguments if isinstance(arguments, dict) else []:
                if key not in tools[name]:
                    hint = did_you_mean(key, tools[name])
                    return (
                        f"expected.actions[{i}].arguments: {key!r} is not a parameter of {name} "
                        f"({', '.join(tools[name]) or 'none'}){hint}"
                    )
        return None

    def build_messages(self, case: Case, context: Context) -> list[dict[str, Any]]:
        """The instructions as the system message, the case's input as the user's."""
        return ChatAdapter().build_messages(case, context)

    async def _tools(self) -> dict[str, Any]:
        tools: dict[str, Any] = {t.name: t for t in self.functions}
        for tool in await self.servers.tools():
            if tool.name in tools:
                raise ConfigError(f"evalcore.yaml: adapter.options: two tools are named {tool.name!r}")
            tools[tool.name] = tool
        return tools

    def blocked(self) -> str | None:
        """Why no case can run any more (an MCP server gone for the rest of the run), else None: the runner
        leaves the cases left unrun."""
        return self.servers.gone()

    async def aclose(self) -> None:
        """End the run's MCP sessions (stdio servers stop); the runner calls it when the run ends, however."""
        await self.servers.close()

    async def call(self, case: Case, contender: Contender, client: Client) -> Reply:
        """Run the loop; the raw text holds the final answer, why the loop stopped and the trace."""
        content, stopped, trace = await self._loop(await self._tools(), client)
        raw = json.dumps({"content": content, "stopped": stopped, "trace": trace}, ensure_ascii=False)
        return Reply(text=raw)

    async def _loop(self, tools: dict[str, Any], client: Client) -> tuple[str, Stopped, list[dict[str, Any]]]:
        options, specs = self.options, [t.spec() for t in tools.values()]
        messages = list(client.messages)
        trace: list[dict[str, Any]] = []
        started, tokens, content = time.monotonic(), 0, ""
        for _ in range(options.max_steps):
            spent = time.monotonic() - started
            if trace and options.time_budget_s is not None and spent >= options.time_budget_s:
                return content, "time_budget", trace
            if options.token_budget is not None and tokens >= options.token_budget:
                return content, "token_budget", trace
            reply = await client.complete(messages, tools=specs)
            calls = [_call_of(c, len(trace), i) for i, c in enumerate(reply.tool_calls or [])]
            trace.append(_model_step(len(trace), reply, calls))
            tokens += (reply.usage.input_tokens or 0) + (reply.usage.output_tokens or 0)
            content = reply.text
            if not calls:
                return content, "answer", trace
            messages.append(_assistant_message(reply.text, calls))
            for call in calls:
                step = await self._run_tool(tools, call, len(trace))
                trace.append(step)
                sent = step["result"] if step["error"] is None else f"error: {step['error']}"
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": sent})
        return content, "max_steps", trace

    async def _run_tool(self, tools: dict[str, Any], call: dict[str, Any], index: int) -> dict[str, Any]:
        name, arguments = call["name"], call["arguments"]
        started = time.monotonic()
        outcome = await self._outcome(tools, name, arguments)
        full = outcome.result.encode() if outcome.result is not None else b""
        sent = full[: self.options.result_bytes].decode(errors="ignore")  # a character cut in two is left out
        return {
            "kind": "tool",
            "index": index,
            "call_id": call["id"],
            "name": name,
            "arguments": arguments,
            "result": sent if outcome.result is not None else None,
            "error": outcome.error,
            "bytes": len(full),
            "sent_bytes": len(sent.encode()),
            "latency_s": round(time.monotonic() - started, 6),
        }

    async def _outcome(self, tools: dict[str, Any], name: str, arguments: Any) -> ToolOutcome:
        tool = tools.get(name)
        if tool is None:
            return ToolOutcome(None, f"no tool named {name!r}; the tools are {sorted(tools)}")
        if not isinstance(arguments, dict):
            return ToolOutcome(None, f"the arguments of {name} are not a JSON object: {str(arguments)[:200]}")
        timeout = self.options.tool_timeout_s
        try:
            return await asyncio.wait_for(tool.run(arguments), timeout)
        except TimeoutError:
            return ToolOutcome(None, f"{name} timed out after {timeout:g} s")
        except Exception as exc:  # the tool's own fault: the model is told, and may recover
            return ToolOutcome(None, tool_raised(name, exc))

    def parse(self, raw: str, context: Context) -> Parsed:
        """The final answer as the output, and the trace; a raw text that is not the agent's JSON is unusable."""
        try:
            data = json.loads(raw)
        except ValueError as exc:
            return Parsed(output=None, problem=f"the raw reply is not the agent adapter's JSON: {exc}")
        trace = data.get("trace") if isinstance(data, dict) else None
        if not isinstance(trace, list) or not isinstance(data.get("content"), str):
            return Parsed(output=None, problem='the raw reply has no "content" text and "trace" list')
        return Parsed(output=data["content"].strip(), trace=trace)


def _call_of(call: dict[str, Any], turn: int, position: int) -> dict[str, Any]:
    """A model's tool call with its arguments parsed when they are a JSON object's text (else kept as text)."""
    text = call.get("arguments") or ""
    arguments: Any = text
    try:
        parsed = json.loads(text) if isinstance(text, str) and text.strip() else {}
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        arguments = parsed
    return {"id": call.get("id") or f"call_{turn}_{position}", "name": call.get("name"), "arguments": arguments,
            "text": text if isinstance(text, str) else json.dumps(text)}  # fmt: skip


def _model_step(index: int, reply: Reply, calls: list[dict[str, Any]]) -> dict[str, Any]:
    usage = reply.usage
    return {
        "kind": "model",
        "index": index,
        "latency_s": round(reply.latency_s, 6),
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cost_usd": usage.cost_usd,
        "content": reply.text or None,
        "tool_calls": [{"id": c["id"], "name": c["name"], "arguments": c["arguments"]} for c in calls],
    }


def _assistant_message(text: str, calls: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": text or None,
        "tool_calls": [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["text"]}} for c in calls
        ],
    }
