"""A small OpenAI-compatible chat server on 127.0.0.1 for tests, with scriptable faults.

Each call to ``POST /v1/chat/completions`` takes the next script from :attr:`OpenAIServer.scripts`
(``ok`` once the queue is empty). Scripts:

- ``ok`` or ``ok:<content>``: a normal chat completion with ``usage``.
- ``status:<code>`` or ``status:<code>:<retry-after>``: an error reply, e.g. ``status:429:0.2``.
- ``slow:<seconds>``: sleep, then ``ok``.
- ``drop``: close the connection without a reply.
- ``malformed``: 200 with a body that is not JSON.
- ``no_choices``: 200 with ``choices: []``.
- ``bad_content``: 200 with content that is not JSON.
- ``echo_auth`` or ``echo_auth:<code>``: an error reply (401 by default) whose message quotes the
  request's ``Authorization`` header, as a careless provider might.

A request that offers ``tools`` gets, when :attr:`OpenAIServer.tool_calls` is set, a reply that calls them:
``message.tool_calls`` from that list of ``{"name", "arguments"}`` (or a function of the request's body
returning one; an empty list answers in text), with ``content`` null.

:meth:`OpenAIServer.inject` adds seeded random faults: each call with no queued script gets a fault
drawn from a list with a given probability; :attr:`OpenAIServer.served` records what every call got.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.local_server import LocalServer
from tests.openai_batches import BatchService

Content = str | Callable[[dict[str, Any]], str]


class OpenAIServer(LocalServer):
    """An OpenAI-compatible server; ``base_url`` is what litellm takes as ``api_base``."""

    def __init__(self, content: Content = '{"answer": 42}'):
        self.content: Content = content
        #: The calls a request that offers tools gets: ``[{"name", "arguments"}]`` (arguments a dict, or text
        #: sent as it is), or a function of the request's body returning them; None: a text reply.
        self.tool_calls: list[dict[str, Any]] | Callable[[dict[str, Any]], list[dict[str, Any]]] | None = None
        self.scripts: deque[str] = deque()
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        #: The script each call got, in the order the calls arrived.
        self.served: list[str] = []
        self._fault_rate = 0.0
        self._faults: tuple[str, ...] = ()
        self._random = random.Random(0)
        self._exact = False
        self._deck: list[str] = []
        self._lock = threading.Lock()
        #: The batch API's routes (``/v1/files``, ``/v1/batches``), their turnaround and faults.
        self.batch = BatchService(lambda body: self._content_for(body))

    @property
    def calls(self) -> int:
        """Chat completion requests received so far."""
        return len(self.requests)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, *scripts: str) -> None:
        """Queue fault scripts, consumed one per call in order."""
        self.scripts.extend(scripts)

    def inject(self, rate: float, faults: Sequence[str], seed: int = 0, exact: bool = False) -> None:
        """From now on, a call with no queued script gets one of ``faults`` (uniformly) with probability
        ``rate``, else ``ok``. The draws are seeded: the n-th call to arrive always gets the same script.

        With ``exact``, every block of 100 calls holds exactly ``round(100 * rate)`` faults, in shuffled
        places, cycling through ``faults`` in order (so a list of 30 transient faults and one other
        fault, at ``rate=0.31``, gives 30% transient faults and 1% of the other).
        """
        with self._lock:
            self._fault_rate, self._faults, self._random = rate, tuple(faults), random.Random(seed)
            self._exact, self._deck = exact, []

    def handler(self) -> type[BaseHTTPRequestHandler]:
        return _handler_for(self)

    def _record(self, body: dict[str, Any], headers: dict[str, str]) -> str:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            script = self.scripts.popleft() if self.scripts else self._draw()
            self.served.append(script)
            return script

    def _draw(self) -> str:
        if self._exact and self._faults:
            if not self._deck:
                count = round(100 * self._fault_rate)
                self._deck = [self._faults[i % len(self._faults)] for i in range(count)] + ["ok"] * (100 - count)
                self._random.shuffle(self._deck)
            return self._deck.pop()
        if self._faults and self._random.random() < self._fault_rate:
            return self._random.choice(self._faults)
        return "ok"

    def _content_for(self, body: dict[str, Any]) -> str:
        return self.content(body) if callable(self.content) else self.content


def completion(body: dict[str, Any], content: str) -> dict[str, Any]:
    """A chat completion reply; token counts are words, so tests can predict them."""
    prompt = " ".join(str(m.get("content", "")) for m in body.get("messages", []))
    prompt_tokens, completion_tokens = len(prompt.split()), len(content.split())
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "test-model"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def tool_completion(body: dict[str, Any], calls: list[dict[str, Any]]) -> dict[str, Any]:
    """A chat completion that calls tools (no text); tokens count words of the messages and of the calls."""
    reply = completion(body, "")
    tool_calls = [
        {
            "id": f"call_{i}",
            "type": "function",
            "function": {
                "name": call["name"],
                "arguments": call["arguments"] if isinstance(call["arguments"], str) else json.dumps(call["arguments"]),
            },
        }
        for i, call in enumerate(calls)
    ]
    reply["choices"][0]["message"] = {"role": "assistant", "content": None, "tool_calls": tool_calls}
    reply["choices"][0]["finish_reason"] = "tool_calls"
    words = len(" ".join(c["function"]["arguments"] for c in tool_calls).split()) + len(tool_calls)
    reply["usage"]["completion_tokens"] = words
    reply["usage"]["total_tokens"] = reply["usage"]["prompt_tokens"] + words
    return reply


def _handler_for(server: OpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            data = self.rfile.read(length)
            if self.path.rstrip("/").endswith(("/files", "/batches")):
                self._answer_batch(*server.batch.post(self.path.rstrip("/"), self.headers, data))
                return
            body = json.loads(data or b"{}")
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            self._run(server._record(body, dict(self.headers)), body)

        def do_GET(self) -> None:
            self._answer_batch(*server.batch.get(self.path.partition("?")[0]))

        def _answer_batch(self, code: int, payload: Any) -> None:
            self._send_raw(code, payload) if isinstance(payload, bytes) else self._send(code, payload)

        def _run(self, script: str, body: dict[str, Any]) -> None:
            name, _, arg = script.partition(":")
            if name == "ok" and server.tool_calls is not None and body.get("tools"):
                calls = server.tool_calls(body) if callable(server.tool_calls) else server.tool_calls
                self._send(200, tool_completion(body, calls) if calls else completion(body, "No tool is needed."))
            elif name == "ok":
                self._send(200, completion(body, arg or server._content_for(body)))
            elif name == "slow":
                time.sleep(float(arg))
                self._send(200, completion(body, server._content_for(body)))
            elif name == "status":
                self._status(arg)
            elif name == "drop":
                self.close_connection = True
                self.connection.close()
            elif name == "malformed":
                self._send_raw(200, b'{"id": "chatcmpl-test", "choices": [')
            elif name == "no_choices":
                self._send(200, {**completion(body, ""), "choices": []})
            elif name == "bad_content":
                self._send(200, completion(body, "this is not json {"))
            elif name == "echo_auth":
                message = f"Incorrect API key provided: {self.headers.get('Authorization')}"
                self._send(int(arg or 401), {"error": {"message": message, "type": "invalid_request_error"}})
            else:
                raise ValueError(f"unknown script {script!r}")

        def _status(self, arg: str) -> None:
            code, _, retry_after = arg.partition(":")
            headers = {"Retry-After": retry_after} if retry_after else {}
            error = {"error": {"message": f"scripted {code}", "type": "test_error", "code": code}}
            self._send(int(code), error, headers)

        def _send(self, code: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            self._send_raw(code, json.dumps(payload).encode(), headers)

        def _send_raw(self, code: int, data: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

    return Handler
