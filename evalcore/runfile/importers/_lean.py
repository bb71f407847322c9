"""A lean parse of promptfoo result files and Inspect ``.json`` logs: only the parts imported are built.

Parsing a whole file builds a Python object for every key and value, several times the file's size, and
most of it is never imported (Inspect's transcripts, promptfoo's per-assertion results and raw responses).
Here msgspec reads:

- the top-level object as ``dict[str, msgspec.Raw]``: its values are views into the bytes, not parsed, and
  a shallow copy of them is enough for :func:`~evalcore.runfile.importers.detect.kind_of_json`;
- a promptfoo file's rows into :class:`msgspec.Struct` types made from the keys the importer declares it
  reads (:data:`~evalcore.runfile.importers.promptfoo.ROW_KEYS` and the like; msgspec skips the others
  without building them), each turned into a dict of the fields present,
  so ``"key" in row`` and ``row.get`` read as on the whole tree. A nested object whose truthiness is read
  (``response``, ``gradingResult``) and that has none of the fields read keeps its keys, unparsed;
- an Inspect log's header in full, and its samples one at a time, each with every key but its transcript,
  whose events and messages are built with only the fields a trace is made from.

``NaN`` and ``Infinity`` are not JSON: before the parse each bare one becomes a sentinel string
(:data:`~evalcore.runfile.importers._source.NON_FINITE_SENTINELS`, written ``"\u0000NaN"``) that
:func:`~evalcore.runfile.importers._source.scrub` treats as the value it stands for. Where such text sits
inside a JSON string, the sentinel's opening quote ends that string and its backslash then stands outside
any string, which no JSON parser accepts: the parse fails and the file is read the standard way, so a
string's text is never changed. Three cases would defeat that and are left to the standard way: a token
right after a backslash (the quote would be escaped), a token followed by ``:`` (it would become a valid
key), and a file that already holds ``\u0000`` (a string could equal a sentinel).

Whatever this cannot read exactly as the standard path would (not a JSON object, an evalcore run file, a
promptfoo file holding ``NaN``, a value of an unexpected type, a string msgspec refuses) gives None, or
raises :class:`msgspec.DecodeError` while samples are read, and the caller reads the file the standard way.
"""

from __future__ import annotations

import keyword
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

import msgspec
from msgspec import UNSET, Raw, UnsetType

from evalcore.runfile.importers import detect, promptfoo
from evalcore.runfile.importers._common import Notes
from evalcore.runfile.importers._inspect_chat import MESSAGE_KEYS
from evalcore.runfile.importers._inspect_events import EVENT_KEYS
from evalcore.runfile.importers._source import NON_FINITE_SENTINELS, scrub
from evalcore.runfile.importers.inspect_log import NOT_HEADER, NOT_IMPORTED, NOT_READ

#: The bare tokens that stand for non-finite numbers, and the JSON text of the sentinel each becomes.
_TOKENS = {text.encode(): msgspec.json.encode(sentinel) for sentinel, text in NON_FINITE_SENTINELS.items()}
_WHITESPACE = b" \t\r\n"
_OPEN_OBJECT, _OPEN_ARRAY = ord("{"), ord("[")
_decode = msgspec.json.Decoder().decode
_decode_fields = msgspec.json.Decoder(dict[str, Raw]).decode
_decode_items = msgspec.json.Decoder(list[Raw]).decode


def _reader(name: str, keys: tuple[str, ...], unparsed: tuple[str, ...] = ()) -> type[msgspec.Struct]:
    """A struct type that builds only ``keys`` of an object (those in ``unparsed`` kept as raw bytes) and
    skips the rest; a key that is a Python keyword is read into an attribute of its name plus ``_``."""
    attrs = {key: f"{key}_" if keyword.iskeyword(key) else key for key in keys}
    fields = [(attrs[key], Raw | UnsetType if key in unparsed else Any, UNSET) for key in keys]
    return msgspec.defstruct(name, fields, rename={attr: key for key, attr in attrs.items()})


_Row = _reader("_Row", promptfoo.ROW_KEYS, unparsed=("testCase", "response", "gradingResult", "tokenUsage"))
_decode_rows = msgspec.json.Decoder(list[_Row]).decode  # type: ignore[valid-type]
_NESTED = (
    ("testCase", _reader("_TestCase", promptfoo.TEST_KEYS)),
    ("response", _reader("_Response", promptfoo.RESPONSE_KEYS)),
    ("gradingResult", _reader("_Grading", promptfoo.GRADING_KEYS)),
)
_PROMPTFOO_KEYS = frozenset(promptfoo.FILE_KEYS)
_SUMMARY_KEYS = frozenset(promptfoo.SUMMARY_KEYS)


def _names(kind: type[msgspec.Struct]) -> tuple[tuple[str, str], ...]:
    """``(attribute, JSON key)`` of each field of a struct type."""
    return tuple((f.name, f.encode_name) for f in msgspec.structs.fields(kind))


_Event = _reader("_Event", EVENT_KEYS)
_decode_events = msgspec.json.Decoder(list[_Event]).decode  # type: ignore[valid-type]
_Message = _reader("_Message", MESSAGE_KEYS)
_decode_messages = msgspec.json.Decoder(list[_Message]).decode  # type: ignore[valid-type]
_FIELDS: dict[type[msgspec.Struct], tuple[tuple[str, str], ...]] = {
    kind: _names(kind) for kind in (_Row, _Event, _Message, *(nested for _, nested in _NESTED))
}


@dataclass
class Lean:
    """A file read leanly: its kind, what the importer reads of it, and whether it held ``NaN``."""

    kind: detect.Kind
    """``promptfoo`` or ``inspect_json``."""
    tree: dict[str, Any]
    """A promptfoo file's tree (rows included), or an Inspect log's header (without its samples)."""
    lenient: bool
    """Whether the file held ``NaN`` or ``Infinity`` (then the tree holds sentinels to :func:`scrub`)."""
    samples: list[Raw | None]
    """An Inspect log's samples, unparsed (see :func:`inspect_samples`); empty for promptfoo."""


def read_lean(data: bytes) -> Lean | None:
    """A promptfoo file or Inspect ``.json`` log read leanly, or None when the standard path must read it."""
    lenient = False
    try:
        top = _decode_fields(data)
    except (msgspec.DecodeError, RecursionError):
        patched = patch_non_finite(data)
        if patched is None:
            return None
        try:
            top = _decode_fields(patched)
        except (msgspec.DecodeError, RecursionError):
            return None
        lenient = True
    try:
        return _read(top, lenient)
    except (msgspec.DecodeError, RecursionError):
        return None


def _read(top: dict[str, Raw], lenient: bool) -> Lean | None:
    outer = {k: _decode_fields(v) if _first(v) == _OPEN_OBJECT else v for k, v in top.items()}
    kind = detect.kind_of_json({k: _shallow(v) for k, v in outer.items()})
    if kind == "inspect_json":
        raw = top.get("samples")
        samples: list[Raw | None] = []
        if raw is not None:
            if _first(raw) != _OPEN_ARRAY:
                return None
            samples = cast("list[Raw | None]", _decode_items(raw))
        header = {k: _decode(v) for k, v in top.items() if k not in NOT_HEADER}
        return Lean(kind, header, lenient, samples)
    if kind != "promptfoo" or lenient:  # the standard path notes NaN anywhere in a promptfoo file
        return None
    tree = {k: _promptfoo_value(k, v, outer[k]) for k, v in top.items() if k in _PROMPTFOO_KEYS}
    return Lean(kind, tree, lenient, [])


def _shallow(value: Any) -> Any:
    """A top-level value as detection sees it: objects one level deep, lists empty (their items are never
    looked at to tell a layout), anything else parsed."""
    if isinstance(value, dict):
        return {
            k: [] if _first(v) == _OPEN_ARRAY else {} if _first(v) == _OPEN_OBJECT else _decode(v)
            for k, v in value.items()
        }
    return [] if _first(value) == _OPEN_ARRAY else _decode(value)


def _promptfoo_value(key: str, raw: Raw, fields: Any) -> Any:
    if key == "table":
        return _table(raw, fields)
    if key != "results":
        return _decode(raw)
    if not isinstance(fields, dict):  # the evaluate() summary: the rows themselves
        return _rows(raw)
    summary: dict[str, Any] = {}
    for k, v in fields.items():
        if k == "results":
            summary[k] = _rows(v)
        elif k == "table":
            summary[k] = _table(v, _decode_fields(v) if _first(v) == _OPEN_OBJECT else v)
        elif k in _SUMMARY_KEYS:
            summary[k] = _decode(v)
    return summary


def _table(raw: Raw, fields: Any) -> Any:
    """promptfoo's version 2 table: only its head (the columns) is read, never its body (every output)."""
    if not isinstance(fields, dict):
        return _decode(raw)
    return {k: _decode(v) for k, v in fields.items() if k == "head"}


def _rows(raw: Raw) -> Any:
    if _first(raw) != _OPEN_ARRAY:
        return _decode(raw)
    rows: list[Any] = _decode_rows(raw)
    for i, row in enumerate(rows):
        rows[i] = _row(row)
    return rows


def _row(struct: msgspec.Struct) -> dict[str, Any]:
    """A row as a dict of the fields read that it has."""
    row = _present(struct)
    for key, kind in _NESTED:
        if key in row:
            row[key] = _object(row[key], kind)
    if "tokenUsage" in row:
        response = row.get("response")
        own = response.get("tokenUsage") if isinstance(response, dict) else None
        if isinstance(own, dict) and own:
            del row["tokenUsage"]  # the response's own usage is read, never the row's
        else:
            row["tokenUsage"] = _decode(row["tokenUsage"])
    return row


def _object(raw: Raw, kind: type[msgspec.Struct]) -> Any:
    """A nested object as a dict of the fields read that it has; one with none of them keeps its keys
    (unparsed), so it stays as truthy as it was."""
    if _first(raw) != _OPEN_OBJECT:
        return _decode(raw)
    found = _present(msgspec.json.decode(raw, type=kind))
    return found or _decode_fields(raw)


def _present(struct: msgspec.Struct) -> dict[str, Any]:
    return {key: value for name, key in _FIELDS[type(struct)] if (value := getattr(struct, name)) is not UNSET}


def _first(raw: Raw) -> int:
    return memoryview(raw)[0]


def inspect_samples(samples: list[Raw | None], notes: Notes | None) -> Iterator[tuple[str, dict[str, Any]]]:
    """An Inspect log's samples, each with where it is, parsed one at a time without its transcript (keys the
    importer never reads); with ``notes``, each one's ``NaN`` values (in the parts that are imported) become
    null first, as :func:`~evalcore.runfile.importers.inspect_log.json_samples` does.

    Raises:
        msgspec.DecodeError: a sample holds a value msgspec refuses (then read the file the standard way).
    """
    for i, raw in enumerate(samples):
        samples[i] = None
        if raw is None or _first(raw) != _OPEN_OBJECT:
            continue
        fields = _decode_fields(raw)
        sample = {k: _decode(v) for k, v in fields.items() if k not in NOT_READ and k not in ("events", "messages")}
        if "events" in fields:  # only the fields a trace is made from
            sample["events"] = [_present(event) for event in _decode_events(fields["events"])]
        if "messages" in fields:  # only the fields a conversation's transcript is made from
            sample["messages"] = [_present(message) for message in _decode_messages(fields["messages"])]
        where = f"samples.{i}"
        yield where, scrub(sample, where, notes, NOT_IMPORTED) if notes is not None else sample


def patch_non_finite(data: bytes) -> bytearray | None:
    """``data`` with each ``NaN``, ``Infinity`` and ``-Infinity`` replaced by its sentinel string, or None when
    it has none, or when a sentinel could be misread: a ``\\u0000`` already in the text (a string equal to a
    sentinel), a token right after a backslash (an escape: the string would not end at the sentinel), or a
    token followed by ``:`` (it would become a valid key)."""
    if b"\\u0000" in data:
        return None
    hits: list[tuple[int, bytes]] = []
    for token in (b"NaN", b"Infinity"):
        at = data.find(token)
        while at >= 0:
            hits.append((at - 1, b"-Infinity") if token == b"Infinity" and data[at - 1 : at] == b"-" else (at, token))
            at = data.find(token, at + len(token))
    if not hits:
        return None
    hits.sort()
    size = len(data) + sum(len(_TOKENS[t]) - len(t) for _, t in hits)
    out, view, written, read = bytearray(size), memoryview(data), 0, 0
    for at, token in hits:
        end = at + len(token)
        if data[at - 1 : at] == b"\\" or _next_byte(data, end) == b":":
            return None
        sentinel = _TOKENS[token]
        out[written : written + at - read] = view[read:at]
        written += at - read
        out[written : written + len(sentinel)] = sentinel
        written += len(sentinel)
        read = end
    out[written:] = view[read:]
    return out


def _next_byte(data: bytes, at: int) -> bytes:
    while at < len(data) and data[at] in _WHITESPACE:
        at += 1
    return data[at : at + 1]
