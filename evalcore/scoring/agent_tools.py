"""The tools an ``agent`` suite offers its model: Python functions in the suite folder, and MCP servers' tools.

A Python tool is a public function of a module in the suite folder; its JSON schema is derived from its
signature and its docstring (the first paragraph describes the tool, a Google-style ``Args:`` section its
parameters) by a pydantic model made with ``create_model``, which also validates the model's arguments before
the call. An MCP server (the official ``mcp`` package) is started over stdio (``command`` and ``args``) or
reached at a ``url`` (streamable HTTP); its tools are listed once the session opens.

A tool that raises, times out or is given arguments its schema refuses gives an error result (the loop sends
it back to the model, which may recover); only a configuration problem raises :class:`ConfigError`.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pydantic

from evalcore.core.errors import ConfigError

#: A Google-style docstring's parameter line: ``name (type): text`` or ``name: text``.
_ARG_LINE = re.compile(r"^\s{2,}(\w+)(?:\s*\([^)]*\))?:\s*(.*)$")


@dataclass(frozen=True)
class ToolOutcome:
    """What one tool call gave: its result text, or why it failed (then ``result`` is None)."""

    result: str | None
    error: str | None = None


@dataclass
class FunctionTool:
    """A Python function offered as a tool, with the pydantic model of its arguments."""

    name: str
    description: str
    function: Callable[..., Any]
    arguments: type[pydantic.BaseModel]

    def spec(self) -> dict[str, Any]:
        """The tool in OpenAI's format, its parameters the arguments model's JSON schema."""
        schema = self.arguments.model_json_schema()
        schema.pop("title", None)
        function = {"name": self.name, "description": self.description, "parameters": schema}
        return {"type": "function", "function": function}

    async def run(self, arguments: dict[str, Any]) -> ToolOutcome:
        """Validate the arguments, then call the function (a plain one in a worker thread)."""
        try:
            values = self.arguments.model_validate(arguments)
        except pydantic.ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors())
            return ToolOutcome(None, f"invalid arguments for {self.name}: {problems}")
        kwargs = {name: getattr(values, name) for name in type(values).model_fields}
        if inspect.iscoroutinefunction(self.function):
            value = await self.function(**kwargs)
        else:
            value = await asyncio.to_thread(self.function, **kwargs)
        return ToolOutcome(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str))


def function_tool(function: Callable[..., Any], where: str) -> FunctionTool:
    """A function as a tool: its name, its docstring's first paragraph, and a pydantic model of its parameters
    (their annotations, defaults and ``Args:`` descriptions).

    Raises:
        ConfigError: a parameter without a type annotation, or of a kind a tool cannot take (``*args``).
    """
    signature = inspect.signature(function, eval_str=True)
    described = _argument_docs(inspect.getdoc(function) or "")
    fields: dict[str, Any] = {}
    for name, parameter in signature.parameters.items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise ConfigError(f"{where}: tool {function.__name__}: *{name} cannot be a tool's parameter; name each")
        if parameter.annotation is parameter.empty:
            raise ConfigError(
                f"{where}: tool {function.__name__}: parameter {name!r} has no type annotation; "
                "add one (e.g. `order_id: str`) so its schema can be derived"
            )
        default = ... if parameter.default is parameter.empty else parameter.default
        fields[name] = (parameter.annotation, pydantic.Field(default, description=described.get(name)))
    config = pydantic.ConfigDict(extra="forbid")
    model = pydantic.create_model(f"{function.__name__}_arguments", __config__=config, **fields)
    summary = (inspect.getdoc(function) or function.__name__).split("\n\n")[0].strip()
    return FunctionTool(function.__name__, summary, function, model)


def _argument_docs(doc: str) -> dict[str, str]:
    """The parameter descriptions of a Google-style ``Args:`` section."""
    found: dict[str, str] = {}
    inside = False
    for line in doc.splitlines():
        if line.strip() in ("Args:", "Arguments:", "Parameters:"):
            inside = True
            continue
        if inside and line and not line.startswith(" "):
            break
        match = _ARG_LINE.match(line) if inside else None
        if match:
            found[match.group(1)] = match.group(2).strip()
    return found


def python_tools(module: Any, where: str) -> list[FunctionTool]:
    """The public functions a module defines (not those it imports), as tools."""
    functions = [
        value
        for name, value in vars(module).items()
        if inspect.isfunction(value) and not name.startswith("_") and value.__module__ == module.__name__
    ]
    if not functions:
        raise ConfigError(f"{where}: defines no public function to offer as a tool")
    return [function_tool(f, where) for f in functions]


class McpServerModel(pydantic.BaseModel):
    """An MCP server a suite names: a command to start over stdio, or a URL (streamable HTTP)."""

    model_config = pydantic.ConfigDict(extra="forbid")

    #: The program to start (``python``, ``npx`` …); ``python`` is the Python evalcore runs on.
    command: str | None = None
    #: Its arguments; a relative path in them is read from the suite folder (the server's working directory).
    args: list[str] = []
    #: Extra environment variables for the server.
    env: dict[str, str] = {}
    #: A streamable HTTP endpoint, e.g. ``http://127.0.0.1:8000/mcp``.
    url: str | None = None

    @pydantic.model_validator(mode="after")
    def _one_way(self) -> McpServerModel:
        if (self.command is None) == (self.url is None):
            raise ValueError("give exactly one of `command` (with `args`) or `url`")
        return self


@dataclass
class McpTool:
    """A tool of an open MCP session."""

    name: str
    description: str
    schema: dict[str, Any]
    session: Any

    def spec(self) -> dict[str, Any]:
        """The tool in OpenAI's format."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.schema},
        }

    async def run(self, arguments: dict[str, Any]) -> ToolOutcome:
        """Call the tool on its server; a result the server marks as an error is the call's error."""
        result = await self.session.call_tool(self.name, arguments)
        text = "\n".join(getattr(block, "text", None) or json.dumps(block.model_dump()) for block in result.content)
        if result.is_error:
            return ToolOutcome(None, text or f"{self.name} failed")
        return ToolOutcome(text)


@asynccontextmanager
async def mcp_tools(servers: list[McpServerModel], suite_dir: Path) -> AsyncIterator[list[McpTool]]:
    """Open a session with each server, and yield their tools; the sessions close (and stdio servers stop) after.

    Raises:
        ConfigError: a server cannot be started or reached.
    """
    import mcp

    async with AsyncExitStack() as stack:
        tools: list[McpTool] = []
        for server in servers:
            target: Any = server.url
            if server.command is not None:
                command = sys.executable if server.command == "python" else server.command
                target = mcp.StdioServerParameters(command=command, args=server.args, env=server.env, cwd=suite_dir)
            where = server.url or " ".join([server.command or "", *server.args])
            try:
                session = await stack.enter_async_context(mcp.Client(target))
                listed = await session.list_tools()
            except Exception as exc:  # a spawn, a connection or a handshake that failed, maybe inside a task group
                cause = _leaf(exc)
                problem = f"cannot open MCP server {where}: {type(cause).__name__}: {cause}"
                raise ConfigError(f"evalcore.yaml: adapter.options.mcp: {problem}") from None
            for tool in listed.tools:
                tools.append(McpTool(tool.name, tool.description or "", dict(tool.input_schema), session))
        yield tools


def _leaf(exc: BaseException) -> BaseException:
    """The first exception a task group's error holds (itself when it is not a group)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc
