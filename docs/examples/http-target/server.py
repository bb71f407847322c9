"""A tiny FAQ service for the http-target example: ``POST /ask`` with ``{"question": ..., "top_k": n}``.

It stands in for an application under test (a RAG endpoint): it finds the ``top_k`` FAQ entries that share the
most words with the question and answers with them, reporting made-up token counts like an LLM app would::

    {"answer": {"text": "...", "sources": ["hours"]}, "usage": {"prompt_tokens": 42, "completion_tokens": 17}}

Run it with ``python docs/examples/http-target/server.py [--port 8765]``; it needs only the standard library.
Requests must carry ``Authorization: Bearer <any token>`` (the suite sends ``${FAQ_TOKEN:-demo-token}``).
"""

from __future__ import annotations

import argparse
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAQ = {
    "hours": ("open opening hours close closing when", "We are open Monday to Friday, 9am to 5pm."),
    "shipping": (
        "ship shipping deliver delivery canada abroad long",
        "We ship to the US and Canada; delivery takes 3 to 5 business days.",
    ),
    "returns": (
        "return returns refund money back",
        "Returns are free within 30 days; refunds reach your card in 5 days.",
    ),
    "payment": ("pay payment card paypal visa", "We accept Visa, Mastercard and PayPal."),
    "warranty": ("warranty broken repair replace", "Every product has a 2-year warranty: we repair or replace it."),
}


def answer(question: str, top_k: int) -> dict[str, Any]:
    """The reply to a question: the best ``top_k`` entries that share a word with it, or "I don't know"."""
    words = set(re.findall(r"[a-z]+", question.lower()))
    scored = sorted(((len(words & set(keys.split())), name) for name, (keys, _) in FAQ.items()), reverse=True)
    sources = [name for hits, name in scored[: max(1, top_k)] if hits > 0]
    text = " ".join(FAQ[name][1] for name in sources) or "Sorry, I don't know."
    return {
        "answer": {"text": text, "sources": sources},
        "usage": {"prompt_tokens": 30 + len(question.split()), "completion_tokens": len(text.split())},
    }


class Handler(BaseHTTPRequestHandler):
    """``POST /ask``; anything else is a 404."""

    def do_POST(self) -> None:
        if self.path != "/ask":
            return self._send(404, {"error": f"no route {self.path}"})
        if not self.headers.get("Authorization", "").startswith("Bearer "):
            return self._send(401, {"error": "missing Authorization: Bearer <token>"})
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            question, top_k = str(body["question"]), int(body.get("top_k", 1))
        except (ValueError, KeyError, TypeError) as exc:
            return self._send(400, {"error": f"send {{question, top_k}}: {exc}"})
        self._send(200, answer(question, top_k))

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def start(port: int = 8765) -> ThreadingHTTPServer:
    """Serve on 127.0.0.1:``port`` (0: any free port) in a background thread; ``.shutdown()`` stops it."""
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    port = parser.parse_args().port
    print(f"FAQ service on http://127.0.0.1:{port}/ask (Ctrl-C stops it)")
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
