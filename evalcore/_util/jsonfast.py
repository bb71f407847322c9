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


#: ``json``'s messages that stop where its ``str()`` adds the position, as sentences of their own.
_WHOLE = {
    # The string's closing quote is missing only when the text ends first: a line break or tab stops it sooner.
    "Unterminated string starting at": "a string starts here and the text ends inside it (cut short?)",
    "Invalid control character at": "a raw line break or tab inside a string; write it as \\n or \\t",
}


def error_text(e: json.JSONDecodeError, label: str = "", line: int | None = None) -> str:
    """Where and why a text is not JSON: ``line 15, column 76: a string starts here and the text ends inside
    it (cut short?)``.

    ``json``'s own message stops mid-sentence ("Unterminated string starting at"), as its ``str()`` adds the
    position; this gives the line and column first and says when the text ended too soon.

    Args:
        e: the error.
        label: words between the place and the reason, e.g. ``"invalid JSON: "``.
        line: the line of the file, when the text parsed was that one line of it (JSON Lines).
    """
    text = f"line {line or e.lineno}, column {e.colno}: {label}{_WHOLE.get(e.msg, e.msg)}"
    if e.msg not in _WHOLE and e.pos >= len(e.doc.rstrip()):
        text += " where the text ends (cut short?)"
    return text
