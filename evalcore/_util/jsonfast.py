"""``json.loads`` and compact ``json.dumps`` for the texts read or written once per case, reply or stored row:
the same values, texts and errors, by msgspec.

msgspec parses strict JSON faster than the standard library and gives the same Python
values for it. A text it refuses (``NaN``, a number too large for a float, an unpaired surrogate, a
BOM, a syntax error) goes to ``json.loads``, which decides it and words any error, so a caller sees
exactly what ``json.loads`` would give or raise.

msgspec writes the same compact text as ``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` for
values made of str, int, bool, None, lists, tuples, dicts with str keys and floats written without an exponent
(zero, or 1e-4 ≤ |x| < 1e16: ``1e+16`` is ``1e16`` in msgspec, and NaN its ``null``). Any other value (a set,
a date, a str subclass, NaN) is written by ``json.dumps``, which decides it and raises its own error.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

_decode = msgspec.json.Decoder().decode
_encode = msgspec.json.Encoder().encode
_encode_sorted = msgspec.json.Encoder(order="deterministic").encode
_LEAVES = frozenset({str, int, bool, type(None)})


def loads(text: str) -> Any:
    """``json.loads(text)`` for a str."""
    try:
        return _decode(text)
    except Exception:  # json.loads gives the value, or raises its own error, below
        return json.loads(text)


def dumps(value: Any, *, sort_keys: bool = False, allow_nan: bool = False, default: Any = None) -> str:
    """``json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=…, allow_nan=…, default=…)``.

    Raises:
        ValueError, TypeError: what ``json.dumps`` raises for ``value``.
    """
    try:
        same = _same_text(value)
    except RecursionError:  # nested too deep, or a cycle: json.dumps words it
        same = False
    if same:
        return (_encode_sorted if sort_keys else _encode)(value).decode()
    return json.dumps(
        value, ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys, allow_nan=allow_nan, default=default
    )


def _same_text(value: Any) -> bool:
    """Whether msgspec writes ``value`` as ``json.dumps`` does (see the module)."""
    kind = type(value)
    if kind is dict:
        items: Any = value.values()
        for key in value:
            if type(key) is not str:
                return False
    elif kind is list or kind is tuple:
        items = value
    elif kind in _LEAVES:
        return True
    elif kind is float:
        return _plain_float(value)
    else:
        return False
    for item in items:
        kind = type(item)
        if kind in _LEAVES:
            continue
        if kind is float:  # _plain_float's test, inline: a call per number of every stored row costs more
            if not (item == 0.0 or 1e-4 <= abs(item) < 1e16):
                return False
        elif not _same_text(item):
            return False
    return True


def _plain_float(value: float) -> bool:
    """Whether both write ``value`` alike: zero, or without an exponent (NaN and infinities fail both tests)."""
    return value == 0.0 or 1e-4 <= abs(value) < 1e16


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
