"""``json.loads`` for the texts read once per case, reply or stored row: the same values, the same errors,
parsed by msgspec.

msgspec parses strict JSON faster than the standard library and gives the same Python
values for it. A text it refuses (``NaN``, a number too large for a float, an unpaired surrogate, a
BOM, a syntax error) goes to ``json.loads``, which decides it and words any error, so a caller sees
exactly what ``json.loads`` would give or raise.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

_decode = msgspec.json.Decoder().decode


def loads(text: str) -> Any:
    """``json.loads(text)`` for a str."""
    try:
        return _decode(text)
    except Exception:  # json.loads gives the value, or raises its own error, below
        return json.loads(text)
