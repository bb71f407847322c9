"""The OpenAI batch routes of :class:`tests.openai_server.OpenAIServer`, which litellm's batch API calls.

``POST /v1/files`` (multipart, ``purpose=batch``), ``POST /v1/batches``, ``GET /v1/batches/{id}`` and
``GET /v1/files/{id}/content``. A batch is answered :attr:`BatchService.turnaround` seconds after it is created
(each line a chat completion of :func:`tests.openai_server.completion`, with the server's content). Faults, set
on :attr:`BatchService.fault` before the batch is created:

- ``refuse``: ``POST /v1/batches`` answers 500 (nothing is sent);
- ``never``: the batch stays ``in_progress``;
- ``garbage``: its output file is not JSON lines;
- ``missing:N``: its output file lacks its last N lines;
- ``fail:N``: its first N requests fail (an ``error`` line each);
- ``expire``: it expires with its first half answered.

:attr:`BatchService.paid` counts the requests answered with a completion: what a provider would bill.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from typing import Any


class BatchService:
    """The batches and files one server holds."""

    def __init__(self, content: Any):
        self.content = content
        self.turnaround = 0.0
        self.fault: str | None = None
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.created = 0
        self.paid = 0
        self._lock = threading.Lock()

    def post(self, path: str, headers: Any, data: bytes) -> tuple[int, Any]:
        if path.endswith("/files"):
            return 200, self._file(_multipart_file(headers.get("Content-Type", ""), data))
        if path.endswith("/batches"):
            if self.fault == "refuse":
                return 500, {"error": {"message": "scripted 500", "type": "server_error"}}
            return 200, self._create(json.loads(data))
        return 404, {"error": {"message": f"no route {path}"}}

    def get(self, path: str) -> tuple[int, Any]:
        parts = path.strip("/").split("/")
        if len(parts) == 3 and parts[1] == "batches" and parts[2] in self.batches:
            return 200, self._advance(self.batches[parts[2]])
        if len(parts) == 4 and parts[1] == "files" and parts[3] == "content" and parts[2] in self.files:
            return 200, self.files[parts[2]]
        return 404, {"error": {"message": f"no route {path}"}}

    def _file(self, content: bytes) -> dict[str, Any]:
        file_id = f"file-{uuid.uuid4().hex[:12]}"
        self.files[file_id] = content
        return {"id": file_id, "object": "file", "bytes": len(content), "created_at": int(time.time()),
                "filename": "batch.jsonl", "purpose": "batch", "status": "processed"}  # fmt: skip

    def _create(self, body: dict[str, Any]) -> dict[str, Any]:
        lines = [json.loads(x) for x in self.files[body["input_file_id"]].decode().splitlines() if x.strip()]
        batch_id = f"batch_{uuid.uuid4().hex[:12]}"
        with self._lock:
            self.created += 1
        self.batches[batch_id] = {
            "id": batch_id, "object": "batch", "endpoint": body["endpoint"], "errors": None,
            "input_file_id": body["input_file_id"], "completion_window": body["completion_window"],
            "status": "in_progress", "output_file_id": None, "error_file_id": None, "created_at": int(time.time()),
            "request_counts": {"total": len(lines), "completed": 0, "failed": 0}, "metadata": None,
            "_lines": lines, "_due": time.monotonic() + self.turnaround, "_fault": self.fault,
        }  # fmt: skip
        return self._public(self.batches[batch_id])

    def _advance(self, batch: dict[str, Any]) -> dict[str, Any]:
        fault = batch["_fault"] or ""
        if batch["status"] == "in_progress" and fault != "never" and time.monotonic() >= batch["_due"]:
            lines = batch["_lines"]
            answered = lines[: len(lines) // 2] if fault == "expire" else lines
            failing = int(fault.partition(":")[2]) if fault.startswith("fail:") else 0
            out = [self._answer(line, i < failing) for i, line in enumerate(answered)]
            with self._lock:
                self.paid += sum(1 for line in out if line["error"] is None)
            if fault.startswith("missing:"):
                out = out[: len(out) - int(fault.partition(":")[2])]
            data = b"this is not JSON\n{" if fault == "garbage" else "\n".join(map(json.dumps, out)).encode()
            file_id = f"file-{uuid.uuid4().hex[:12]}"
            self.files[file_id] = data
            batch["output_file_id"] = file_id
            batch["status"] = "expired" if fault == "expire" else "completed"
            batch["request_counts"] = {"total": len(lines), "completed": len(answered) - failing, "failed": failing}
        return self._public(batch)

    def _answer(self, line: dict[str, Any], fail: bool) -> dict[str, Any]:
        from tests.openai_server import completion  # the server imports this module

        if fail:
            error = {"code": "invalid_request", "message": "scripted failure of this request"}
            return {"id": "r", "custom_id": line["custom_id"], "response": None, "error": error}
        content = self.content(line["body"]) if callable(self.content) else self.content
        response = {"status_code": 200, "request_id": "r", "body": completion(line["body"], content)}
        return {"id": "r", "custom_id": line["custom_id"], "response": response, "error": None}

    @staticmethod
    def _public(batch: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in batch.items() if not k.startswith("_")}


def _multipart_file(content_type: str, data: bytes) -> bytes:
    """The bytes of the ``file`` part of a multipart/form-data body."""
    boundary = content_type.partition("boundary=")[2].strip('"').encode()
    for part in data.split(b"--" + boundary):
        head, _, body = part.partition(b"\r\n\r\n")
        if b'name="file"' in head:
            return body.rstrip(b"\r\n")
    raise ValueError("no file part in the upload")
