"""An application's own trace: the actions its agent reports in a JSON reply, read as ``tool`` steps of the trace
contract (docs/run-file.md "trace"), so the ``trajectory`` scorer scores a team's agent behind an endpoint as it
scores evalcore's own. The ``http`` adapter's ``trace`` option says where they are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from evalcore.scoring.paths import JsonPath, Missing


@dataclass(frozen=True)
class TraceReader:
    """Reads an application's list of actions as ``tool`` steps of the trace contract."""

    path: JsonPath
    parts: dict[str, JsonPath]

    def steps(self, data: Any) -> list[dict[str, Any]] | None:
        """The reply's actions as ``tool`` steps; None when the reply has no list at the path."""
        try:
            actions = self.path.pick(data)
        except Missing:
            return None
        if not isinstance(actions, list):
            return None
        return [self._step(i, action) for i, action in enumerate(actions)]

    def _step(self, index: int, action: Any) -> dict[str, Any]:
        part = {name: self._pick(name, action) for name in self.parts}
        result = part["result"]
        if result is not None and not isinstance(result, str):
            result = json.dumps(result, ensure_ascii=False)
        size = len(result.encode()) if result is not None else None
        latency = part["latency_s"]
        return {
            "kind": "tool",
            "index": index,
            "call_id": None,
            "name": part["name"] if isinstance(part["name"], str) else None,
            "arguments": read_arguments(part["arguments"]),
            "result": result,
            "error": None if part["error"] is None else str(part["error"]),
            "bytes": size,
            "sent_bytes": size,
            "latency_s": latency if isinstance(latency, int | float) and not isinstance(latency, bool) else None,
        }

    def _pick(self, name: str, action: Any) -> Any:
        try:
            return self.parts[name].pick(action)
        except Missing:
            return None


def read_arguments(value: Any) -> Any:
    """An action's arguments: a JSON text of them parsed when it parses (as a model's are), else as given."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return {} if value is None else value
