"""Reading a run file: bytes or a path in, a :class:`evalcore.core.records.Run` out, or every problem named.

:func:`read_run_file` refuses what the spec (``docs/run-file.md``) refuses: invalid UTF-8, invalid or
non-strict JSON (``NaN``, ``Infinity``, numbers too large for a float, unpaired surrogate escapes), and
anything the models of :mod:`evalcore.runfile.models` reject. It raises
:class:`~evalcore.core.errors.RunFileError` with one ``path.to.field: message`` line per problem.

A canonical file (as :func:`evalcore.runfile.write.dump_run` writes it) is read by
:mod:`evalcore.runfile.fast` when it breaks no rule; anything else takes the whole way here.
"""

from __future__ import annotations

import gzip as gz
import io
import json
import math
import os
import sys
import zlib
from collections.abc import Iterator
from typing import Any, BinaryIO

import msgspec
from pydantic import ValidationError

from evalcore._util import jsonfast
from evalcore.core import records
from evalcore.core.errors import RunFileError
from evalcore.runfile import fast as runfile_fast
from evalcore.runfile._records import case_of, result_of, run_of
from evalcore.runfile.models import (
    FORMAT,
    RUN_FILE_MODELS,
    Loc,
    RunFileV1,
    join_loc,
    problem_lines,
    short_json,
)
from evalcore.runfile.pairwise import verdict_of
from evalcore.runfile.ratings import rating_of

SCHEMA_VERSION = 1
#: The schema version of a run file with pairwise verdicts (``docs/run-file.md``, "Schema version 2").
PAIRWISE_VERSION = 2
#: The schema version of a run file with people's ratings (``docs/run-file.md``, "Schema version 3").
RATINGS_VERSION = 3
#: Default cap on a run file's (decompressed) size: a gzip bomb stops here.
MAX_BYTES = 1 << 30
#: At most this many problems are listed; the last line counts the rest.
MAX_PROBLEMS = 1000

_GZIP_MAGIC = b"\x1f\x8b"
#: Strict JSON only: msgspec refuses invalid UTF-8, NaN and Infinity, numbers too large for a float and
#: unpaired surrogate escapes, so a tree it returns needs no further check.
_strict_decode = msgspec.json.Decoder().decode


def read_run_file(
    source: str | os.PathLike[str] | bytes, *, name: str | None = None, max_bytes: int = MAX_BYTES
) -> records.Run:
    """Read and validate a run file.

    Args:
        source: a path, or the file's bytes (e.g. an upload). Gzip is detected by its magic bytes.
        name: what error messages call the file; defaults to the path (or ``run file``).
        max_bytes: the most (decompressed) bytes read; a larger file is refused.

    Returns:
        The run.

    Raises:
        RunFileError: the file is unreadable or invalid; ``problems`` lists every problem found.
    """
    if name is None:
        name = "run file" if isinstance(source, bytes | bytearray) else str(source)
    data = _read_bytes(source, name, max_bytes)
    # A canonical file that breaks no rule is read without pydantic models; anything else goes the
    # whole way, which names every problem.
    run = runfile_fast.read_canonical(data)
    return run if run is not None else run_from_dict(parse_json(data, name), name=name)


def run_from_dict(data: Any, *, name: str = "run file") -> records.Run:
    """Validate a parsed run file (or a :class:`RunFileV1`) and convert it to a run.

    Raises:
        RunFileError: with one ``path.to.field: message`` line per problem.
    """
    if isinstance(data, RunFileV1):
        return to_records(data)
    run = runfile_fast.run_from_tree(data)
    return run if run is not None else to_records(validate_run_dict(data, name=name))


def validate_run_dict(data: Any, *, name: str = "run file") -> RunFileV1:
    """Validate a parsed run file against the model its ``schema_version`` names.

    Raises:
        RunFileError: with one ``path.to.field: message`` line per problem.
    """
    model = _model_for(data, name)
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise invalid(name, problem_lines(e)) from None


def invalid(name: str, problems: list[str]) -> RunFileError:
    """The error for a file (or run) ``name`` with these problems, capped at :data:`MAX_PROBLEMS`."""
    if len(problems) > MAX_PROBLEMS:
        more = len(problems) - MAX_PROBLEMS
        problems = [*problems[:MAX_PROBLEMS], f"… and {more} more {'problem' if more == 1 else 'problems'}"]
    return RunFileError(f"{name}: not a valid evalcore run file", problems=problems)


def _read_bytes(source: str | os.PathLike[str] | bytes, name: str, max_bytes: int) -> bytes:
    try:
        if isinstance(source, bytes | bytearray):
            return _read_capped(io.BytesIO(source), name, max_bytes)
        with open(source, "rb") as f:
            return _read_capped(f, name, max_bytes)
    except OSError as e:
        raise RunFileError(f"{name}: cannot read the file: {e.strerror or e}") from None


def _read_capped(f: BinaryIO, name: str, max_bytes: int) -> bytes:
    magic = f.read(2)
    f.seek(0)
    try:
        stream: BinaryIO | gz.GzipFile = gz.GzipFile(fileobj=f, mode="rb") if magic == _GZIP_MAGIC else f
        data = stream.read(max_bytes + 1)
    except (OSError, EOFError, zlib.error) as e:
        raise invalid(name, [f"(file): not valid gzip data: {e}"]) from None
    if len(data) > max_bytes:
        what = "decompressed size" if magic == _GZIP_MAGIC else "size"
        raise invalid(name, [f"(file): {what} exceeds the limit of {max_bytes:,} bytes"])
    return data


def parse_json(data: bytes, name: str) -> Any:
    """The JSON tree of a run file's bytes, or :class:`RunFileError` naming where it breaks strict JSON."""
    try:
        return _strict_decode(data)
    except (msgspec.DecodeError, RecursionError):
        pass  # the standard library's parser, with hooks, says where and what
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line, column = _position(data, e.start)
        bad = data[e.start : e.end]
        raise invalid(name, [f"line {line}, byte {column}: invalid UTF-8 ({e.reason}: {bad!r})"]) from None
    suspects: list[str] = []
    try:
        value = json.loads(text, parse_constant=_bad_number(suspects), parse_float=_checked_float(suspects))
    except json.JSONDecodeError as e:
        raise invalid(name, [jsonfast.error_text(e, "invalid JSON: ")]) from None
    except ValueError:  # Python refuses to turn a very long digit string into an int
        limit = sys.get_int_max_str_digits()
        raise invalid(name, [f"(file): invalid JSON: an integer has more than {limit:,} digits"]) from None
    except RecursionError:
        raise invalid(name, ["(file): invalid JSON: nested too deeply"]) from None
    # Only a flagged number or a surrogate escape sends the whole tree through the (slow) walk.
    if suspects or "\\ud" in text or "\\uD" in text:
        _check_values(value, name)
    return value


def _bad_number(suspects: list[str]) -> Any:
    def constant(literal: str) -> _BadNumber:
        suspects.append(literal)
        return _BadNumber(literal)

    return constant


def _checked_float(suspects: list[str]) -> Any:
    def number(text: str, _float: Any = float, _isinf: Any = math.isinf) -> float:
        value = _float(text)
        if _isinf(value):
            suspects.append(text)
        return value

    return number


def _position(data: bytes, offset: int) -> tuple[int, int]:
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1


class _BadNumber(str):
    """A ``NaN`` / ``Infinity`` literal, kept so the tree walk can say where it was."""


def _check_values(value: Any, name: str) -> None:
    try:
        problems = [f"{join_loc(loc)}: {msg}" for loc, msg in bad_values(value, ())]
    except RecursionError:
        problems = ["(file): nested too deeply to check"]
    if problems:
        raise invalid(name, problems)


def bad_values(node: Any, loc: Loc) -> Iterator[tuple[Loc, str]]:
    """Yield where the tree holds what strict JSON (or UTF-8) cannot carry."""
    if isinstance(node, _BadNumber):
        yield loc, f"{node} is not allowed: strict JSON has no NaN or Infinity (use null)"
    elif isinstance(node, float) and not math.isfinite(node):
        yield loc, "number too large for a 64-bit float"
    elif isinstance(node, str) and not _encodable(node):
        yield loc, "string holds an unpaired UTF-16 surrogate escape (\\ud800-\\udfff)"
    elif isinstance(node, dict):
        for key, item in node.items():
            if not _encodable(key):
                yield (*loc, key), "key holds an unpaired UTF-16 surrogate escape (\\ud800-\\udfff)"
            yield from bad_values(item, (*loc, key))
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from bad_values(item, (*loc, i))


def _encodable(s: str) -> bool:
    try:
        s.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def _model_for(data: Any, name: str) -> type[RunFileV1]:
    """Pick the model from ``format`` and ``schema_version``, with a clear word when neither fits."""
    if not isinstance(data, dict):
        raise invalid(name, [f"(top level): expected a JSON object (got {_json_type(data)})"])
    fmt, version = data.get("format"), data.get("schema_version")
    if fmt != FORMAT:
        got = "missing" if "format" not in data else f"got {short_json(fmt)}"
        raise invalid(name, [f"format: should be {FORMAT!r} ({got}): this is not an evalcore run file"])
    if type(version) is not int or version not in RUN_FILE_MODELS:
        known = ", ".join(map(str, RUN_FILE_MODELS))
        got = "missing" if "schema_version" not in data else f"got {short_json(version)}"
        problem = f"schema_version: this evalcore reads schema version {known} ({got})"
        raise invalid(name, [problem + ("; upgrade evalcore" if type(version) is int else "")])
    return RUN_FILE_MODELS[version]


def _json_type(value: Any) -> str:
    names = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def to_records(f: RunFileV1) -> records.Run:
    """The run a validated run file holds."""
    return run_of(
        f.run,
        f.metrics,
        f.contenders,
        [case_of(c) for c in f.cases],
        [result_of(x, x.contender, x.dataset, x.case) for x in f.results],
        f.refused,
        [verdict_of(x) for x in getattr(f, "pairwise", [])],  # version 2 and later
        [rating_of(x) for x in getattr(f, "ratings", [])],  # version 3
    )
