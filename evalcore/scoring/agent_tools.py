"""The tools an ``agent`` suite offers its model: Python functions in the suite folder, and MCP servers' tools.

A Python tool is a public function of a module in the suite folder; its JSON schema is derived from its
signature and its docstring (the first paragraph describes the tool, a Google-style ``Args:`` section its
parameters) by a pydantic model made with ``create_model``, which also validates the model's arguments before
the call. An MCP server (the official ``mcp`` package) is started over stdio (``command`` and ``args``) or
reached at a ``url`` (streamable HTTP); its session opens on a run's first use and is shared by the run's
cases (:class:`McpServers`) until the run closes it. Starting or reaching a server and its handshake have a
time limit (``mcp_connect_timeout_s``): a server that cannot be opened fails the run with what went wrong, one
that is gone midway (it failed again after a restart) stops each case left before any model call
(:class:`CallNotStarted`: the run leaves them unrun).

A tool that raises (anything, ``SystemExit`` and ``KeyboardInterrupt`` included: they are the tool's, not the
process's), times out or is given arguments its schema refuses gives an error result (the loop sends
it back to the model, which may recover); only a configuration problem raises :class:`ConfigError`.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import math
import os
import re
import shutil
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pydantic

from evalcore._util.groups import first_leaf
from evalcore.core.errors import CallNotStarted, ConfigError

logger = logging.getLogger(__name__)

#: How long closing a server's session may take before the run stops waiting for it, in seconds.
CLOSE_WAIT_S = 10.0
#: How long starting or reaching an MCP server and its handshake may take when the suite sets no
#: ``mcp_connect_timeout_s``, in seconds: room for a server fetched on first use (``npx``, ``uvx``).
DEFAULT_CONNECT_TIMEOUT_S = 30.0
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
        """Validate the arguments, then call the function (a plain one in a thread of its own)."""
        try:
            values = self.arguments.model_validate(arguments)
        except pydantic.ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors())
            return ToolOutcome(None, f"invalid arguments for {self.name}: {problems}")
        kwargs = {name: getattr(values, name) for name in type(values).model_fields}
        try:
            if inspect.iscoroutinefunction(self.function):
                value = await self.function(**kwargs)
            else:
                value = await in_own_thread(self.function, kwargs)
        except asyncio.CancelledError:  # the run stopped (Ctrl-C) or the tool's timeout: not the tool's doing
            raise
        except (SystemExit, KeyboardInterrupt) as exc:
            # The tool's own exit (argparse inside it) or interrupt, not the process's: escaping here, it would
            # end the event loop and the run with it.
            return ToolOutcome(None, tool_raised(self.name, exc))
        return ToolOutcome(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str))


def tool_raised(name: str, exc: BaseException) -> str:
    """The error the model is sent when tool ``name`` raised ``exc``."""
    return f"{name} raised {type(exc).__name__}: {exc}"


async def in_own_thread(function: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    """Call a plain function in a daemon thread of its own and await its value.

    Not the event loop's shared executor: a tool that hangs would hold one of its few workers (starving the
    other tools and anything else sent there), and the end of ``asyncio.run`` waits for them all. Cancelling the
    wait (a tool's timeout) abandons the thread; it ends when the function returns, or with the process.
    """
    loop = asyncio.get_running_loop()
    done: asyncio.Future[Any] = loop.create_future()

    def settle(value: Any, error: BaseException | None) -> None:
        if done.done():
            return  # the wait was cancelled (timed out): nobody wants the value
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(value)

    def work() -> None:
        try:
            value, error = function(**kwargs), None
        except BaseException as exc:  # handed to the awaiting task, which reports it as the tool's error
            value, error = None, exc
        try:
            loop.call_soon_threadsafe(settle, value, error)
        except RuntimeError:  # the run's event loop has ended while the tool ran: nobody waits for it
            pass

    threading.Thread(target=work, name=f"tool {function.__name__}", daemon=True).start()
    return await done


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


def check_command(server: McpServerModel, suite_dir: Path, where: str) -> None:
    """Refuse a stdio server whose program cannot be found (on the ``PATH`` it gets, or as a file), or whose
    script, when the program is ``python``, is not in the suite folder; nothing for a ``url``.

    Raises:
        ConfigError: the program or the script is missing, quoted with where it was looked for.
    """
    command = server.command
    if command is None:
        return
    if command != "python" and _program(command, suite_dir, server.env) is None:
        looked = "from the suite folder" if os.sep in command else "on PATH"
        raise ConfigError(
            f"{where}.command: {command!r} is not found {looked}; install it, or give its full path "
            "(`python` is the Python evalcore runs on)"
        )
    script = next((a for a in server.args if not a.startswith("-")), None)
    is_python = command == "python" or Path(command).name.startswith("python")
    if is_python and script is not None and script.endswith(".py") and not (suite_dir / script).is_file():
        raise ConfigError(
            f"{where}.args: {script!r} is not a file of the suite folder {suite_dir}; the server starts there"
        )


def _program(command: str, suite_dir: Path, env: dict[str, str]) -> str | None:
    """Where the program a stdio server starts is, as the spawn finds it (a path is read from the server's
    working directory, the suite folder); None when it is nowhere."""
    if os.sep in command:
        path = suite_dir / command
        return str(path) if path.is_file() and os.access(path, os.X_OK) else None
    return shutil.which(command, path=env.get("PATH", os.environ.get("PATH")))


@dataclass
class McpTool:
    """A tool of an MCP server of the run."""

    name: str
    description: str
    schema: dict[str, Any]
    server: McpServer

    def spec(self) -> dict[str, Any]:
        """The tool in OpenAI's format."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.schema},
        }

    async def run(self, arguments: dict[str, Any]) -> ToolOutcome:
        """Call the tool on its server (see :meth:`McpServer.call`)."""
        return await self.server.call(self.name, arguments)


class McpServer:
    """One MCP server of a run: its session opened on first use and shared by the run's cases.

    The ``mcp`` client session matches each reply to its request by id, so concurrent cases call tools on one
    session. The session lives in a task of its own (an ``mcp.Client`` must be left in the task that entered
    it), which :meth:`close` ends; a session left open when the event loop ends is closed by the loop's
    cancellation of its tasks. Opening it (the start or connection and the handshake) may take
    ``connect_timeout_s``. A server that fails mid-run gives the call an error result and is reopened once,
    for the next call; when that fails too, it is gone: every later call of its tools gets the error, and every
    case that asks for the tools afterwards stops before calling its model (:class:`CallNotStarted`).
    """

    def __init__(self, server: McpServerModel, suite_dir: Path, connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S):
        self.server, self.suite_dir, self.connect_timeout_s = server, suite_dir, connect_timeout_s
        self.where = server.url or " ".join([server.command or "", *server.args])
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = asyncio.Lock()
        self._session: Any = None
        self._tools: list[McpTool] = []
        self._closing: asyncio.Event | None = None
        self._owner: asyncio.Task[None] | None = None
        self._reopened = False
        self._gone: str | None = None
        #: The handshake in progress (its deadline), which closing the server cancels.
        self._opening: anyio.CancelScope | None = None

    @property
    def gone(self) -> str | None:
        """Why the server's tools are unavailable for the rest of the run (it failed again after a restart)."""
        return self._gone

    async def tools(self) -> list[McpTool]:
        """The server's tools, opening its session on first use (and after it failed, once).

        Raises:
            ConfigError: the server cannot be started or reached on its first use.
            CallNotStarted: the server failed during the run and cannot be restarted.
        """
        if self._gone is not None and self._loop is asyncio.get_running_loop():
            raise CallNotStarted(self._gone)
        try:
            await self._session_now()
        except ConfigError as exc:
            if not self._reopened:
                raise
            if self._gone is None:
                self._gone = f"the MCP server {self.where} failed and could not be restarted: {exc}"
                logger.warning("%s; the cases left are not called", self._gone)
            raise CallNotStarted(self._gone) from None
        return self._tools

    async def _session_now(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # a new event loop (another run): the old one's session is gone with it
            self._loop, self._lock, self._session, self._owner = loop, asyncio.Lock(), None, None
            self._reopened, self._gone = False, None
        async with self._lock:
            if self._gone is not None:  # it went while this case waited: no third start
                raise ConfigError(self._gone)
            if self._session is None:
                await self._open()
            return self._session

    async def _open(self) -> None:
        ready: asyncio.Future[tuple[Any, Any]] = asyncio.get_running_loop().create_future()
        self._closing = asyncio.Event()
        self._owner = asyncio.create_task(self._own(ready, self._closing), name=f"mcp {self.where}")
        self._session, listed = await ready
        self._tools = [McpTool(t.name, t.description or "", dict(t.input_schema), self) for t in listed.tools]

    async def _own(self, ready: asyncio.Future[tuple[Any, Any]], closing: asyncio.Event) -> None:
        """Hold the session open until :meth:`close` (or a newer session) asks it to end."""
        import mcp

        target: Any = self.server.url
        if self.server.command is not None:
            command = sys.executable if self.server.command == "python" else self.server.command
            target = mcp.StdioServerParameters(
                command=command, args=self.server.args, env=self.server.env, cwd=self.suite_dir
            )
        # An anyio scope, not asyncio's timeout: the transport's own shutdown (a stdio server's stop) is shielded
        # from anyio's cancellation only. Its deadline covers the start and the handshake, then is lifted.
        opening = anyio.CancelScope(deadline=anyio.current_time() + self.connect_timeout_s)
        self._opening = opening
        try:
            with opening:
                async with mcp.Client(target) as session:
                    listed = await session.list_tools()
                    opening.deadline = math.inf
                    if ready.done():  # the caller stopped waiting (a tool's timeout): nobody uses this session
                        return
                    ready.set_result((session, listed))
                    await closing.wait()
        except Exception as exc:  # a spawn, a connection or a handshake that failed, maybe inside a task group
            cause = first_leaf(exc)
            if ready.done():
                logger.warning("MCP server %s ended: %s", self.where, cause)
            self._fail(ready, f"{type(cause).__name__}: {cause}")
        finally:
            if self._opening is opening:
                self._opening = None
        if opening.cancelled_caught:
            self._fail(ready, f"no answer within {self.connect_timeout_s:g} s (adapter.options.mcp_connect_timeout_s)")

    def _fail(self, ready: asyncio.Future[tuple[Any, Any]], why: str) -> None:
        """Tell the caller waiting for the session why it cannot be opened (nothing when nobody waits)."""
        if not ready.done():
            fix = "check that it runs and is reachable, then run again"
            problem = f"cannot open MCP server {self.where}: {why}; {fix}"
            ready.set_exception(ConfigError(f"evalcore.yaml: adapter.options.mcp: {problem}"))

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Call a tool; a result the server marks as an error is the call's error, and so is a server that
        failed (it is reopened for the next call, once)."""
        if self._gone is not None:
            return ToolOutcome(None, self._gone)
        try:
            session = await self._session_now()
        except ConfigError as exc:
            self._gone = self._gone or f"{name}: the MCP server failed and could not be restarted: {exc}"
            return ToolOutcome(None, self._gone)
        try:
            result = await session.call_tool(name, arguments)
        except Exception as exc:  # the server died or broke the protocol: the model is told, the run goes on
            cause = first_leaf(exc)
            await self._drop(session)
            return ToolOutcome(None, f"{name}: the MCP server {self.where} failed: {type(cause).__name__}: {cause}")
        text = "\n".join(getattr(block, "text", None) or json.dumps(block.model_dump()) for block in result.content)
        if result.is_error:
            return ToolOutcome(None, text or f"{name} failed")
        return ToolOutcome(text)

    async def _drop(self, session: Any) -> None:
        """Forget a failed session (once: a second failure leaves the server gone), so the next call reopens it."""
        async with self._lock:
            if self._session is not session:
                return  # another case dropped it already
            if self._reopened:
                self._gone = f"the MCP server {self.where} failed again after a restart; its tools are unavailable"
                logger.warning("%s; the cases left are not called", self._gone)
            else:
                logger.warning("MCP server %s failed during the run; it is restarted for the next call", self.where)
            self._reopened = True
            self._session = None
            owner, self._owner = self._owner, None
            if self._closing is not None:
                self._closing.set()
        if owner is not None:
            await asyncio.wait([owner], timeout=CLOSE_WAIT_S)

    async def close(self) -> None:
        """End the session (a stdio server stops), or its handshake in progress; nothing when it was never opened."""
        owner, self._owner, self._session = self._owner, None, None
        if self._closing is not None:
            self._closing.set()
        if self._opening is not None:
            self._opening.cancel()
        if owner is not None and self._loop is asyncio.get_running_loop():
            await asyncio.wait([owner], timeout=CLOSE_WAIT_S)


class McpServers:
    """The MCP servers of a run, each opened on first use and shared by its cases; :meth:`close` ends them."""

    def __init__(
        self, servers: list[McpServerModel], suite_dir: Path, connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S
    ):
        self.servers = [McpServer(s, suite_dir, connect_timeout_s) for s in servers]

    async def tools(self) -> list[McpTool]:
        """Every server's tools, in the suite's order.

        Raises:
            ConfigError: a server cannot be started or reached on its first use.
            CallNotStarted: a server failed during the run and cannot be restarted.
        """
        found: list[McpTool] = []
        for server in self.servers:
            found += await server.tools()
        return found

    def gone(self) -> str | None:
        """Why the run's cases cannot have their tools any more (a server that failed again after a restart)."""
        return next((s.gone for s in self.servers if s.gone is not None), None)

    async def close(self) -> None:
        """Close every server's session."""
        for server in self.servers:
            await server.close()
