"""``json.loads`` for the texts read once per case or reply: the same values, the same errors, less overhead."""

from __future__ import annotations

import json
from typing import Any

_scan = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def loads(text: str) -> Any:
    """``json.loads(text)`` for a str.

    A text that is one JSON value with nothing around it (a JSONL line, most replies) is scanned
    directly, skipping ``json.loads``'s argument checks and the two whitespace matches around the
    value. Anything else (spaces, a BOM, a problem) goes to ``json.loads``, which decides it and
    words any error.
    """
    try:
        value, end = _scan(text, 0)
    except Exception:  # noqa: BLE001 - json.loads raises its own error for it, below
        return json.loads(text)
    return value if end == len(text) else json.loads(text)
