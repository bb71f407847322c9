"""The run file, schema version 1: reading and writing.

The contract is the run-file spec (``docs/run-file.md``): one strict UTF-8 JSON object, optionally
gzip-compressed, holding a whole run. This module is its only reader and writer:

- :func:`read_run_file` turns bytes or a path into a :class:`evalcore.core.records.Run`, or raises
  :class:`~evalcore.errors.RunFileError` listing every problem as ``path.to.field: message``;
- :func:`dump_run` / :func:`write_run_file` write the canonical form: keys in the spec's order, one
  array element per line, so export → import → export gives byte-identical files;
- :func:`json_schema` is the JSON Schema of the models (``python -m evalcore.runfile.io --schema``).

Validation follows the spec to the letter. The pydantic models and the cross-field rules the JSON
Schema cannot express (references, uniqueness, the primary metric) live in
:mod:`evalcore.runfile.models`; they are re-exported here.
"""

from __future__ import annotations

import argparse
import gzip as gz
import io
import json
import logging
import math
import os
import sys
import tempfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import BaseModel, ValidationError

from evalcore._util.gcpause import gc_paused
from evalcore.core import records
from evalcore.core.errors import RunFileError
from evalcore.runfile import fast as runfile_fast
from evalcore.runfile import models as runfile_models
from evalcore.runfile.models import (  # noqa: F401 - the models are part of this module's API
    INT64_MAX,
    RUN_FILE_MODELS,
    CaseEntry,
    ContenderEntry,
    ErrorEntry,
    Loc,
    MetricEntry,
    ProvenanceEntry,
    RefusalEntry,
    ResultEntry,
    RunEntry,
    RunFileV1,
    ToolEntry,
    UsageEntry,
    join_loc,
    problem_lines,
    short_json,
)

logger = logging.getLogger(__name__)

FORMAT = "evalcore.run"
SCHEMA_VERSION = 1
#: Default cap on a run file's (decompressed) size: a gzip bomb stops here.
MAX_BYTES = 1 << 30
#: At most this many problems are listed; the last line counts the rest.
MAX_PROBLEMS = 1000

_GZIP_MAGIC = b"\x1f\x8b"
_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


# --- reading -------------------------------------------------------------------------------------


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
    # A canonical file (as dump_run writes it) that breaks no rule is read without pydantic models;
    # anything else goes the whole way, which names every problem.
    run = runfile_fast.read_canonical(data)
    return run if run is not None else run_from_dict(_parse_json(data, name), name=name)


def run_from_dict(data: Any, *, name: str = "run file") -> records.Run:
    """Validate a parsed run file (or a :class:`RunFileV1`) and convert it to a run.

    Raises:
        RunFileError: with one ``path.to.field: message`` line per problem.
    """
    if isinstance(data, RunFileV1):
        return _to_records(data)
    run = runfile_fast.run_from_tree(data)
    return run if run is not None else _to_records(validate_run_dict(data, name=name))


def validate_run_dict(data: Any, *, name: str = "run file") -> RunFileV1:
    """Validate a parsed run file against the model its ``schema_version`` names.

    Raises:
        RunFileError: with one ``path.to.field: message`` line per problem.
    """
    model = _model_for(data, name)
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise _invalid(name, problem_lines(e)) from None


def _invalid(name: str, problems: list[str]) -> RunFileError:
    if len(problems) > MAX_PROBLEMS:
        problems = [*problems[:MAX_PROBLEMS], f"… and {len(problems) - MAX_PROBLEMS} more problems"]
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
        raise _invalid(name, [f"(file): not valid gzip data: {e}"]) from None
    if len(data) > max_bytes:
        what = "decompressed size" if magic == _GZIP_MAGIC else "size"
        raise _invalid(name, [f"(file): {what} exceeds the limit of {max_bytes:,} bytes"])
    return data


def _parse_json(data: bytes, name: str) -> Any:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line, column = _position(data, e.start)
        bad = data[e.start : e.end]
        raise _invalid(name, [f"line {line}, byte {column}: invalid UTF-8 ({e.reason}: {bad!r})"]) from None
    suspects: list[str] = []
    try:
        value = json.loads(text, parse_constant=_bad_number(suspects), parse_float=_checked_float(suspects))
    except json.JSONDecodeError as e:
        raise _invalid(name, [f"line {e.lineno}, column {e.colno}: invalid JSON: {e.msg}"]) from None
    except RecursionError:
        raise _invalid(name, ["(file): invalid JSON: nested too deeply"]) from None
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
        problems = [f"{join_loc(loc)}: {msg}" for loc, msg in _bad_values(value, ())]
    except RecursionError:
        problems = ["(file): nested too deeply to check"]
    if problems:
        raise _invalid(name, problems)


def _bad_values(node: Any, loc: Loc) -> Iterator[tuple[Loc, str]]:
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
            yield from _bad_values(item, (*loc, key))
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from _bad_values(item, (*loc, i))


def _encodable(s: str) -> bool:
    try:
        s.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def _model_for(data: Any, name: str) -> type[RunFileV1]:
    """Pick the model from ``format`` and ``schema_version``, with a clear word when neither fits."""
    if not isinstance(data, dict):
        raise _invalid(name, [f"(top level): expected a JSON object (got {_json_type(data)})"])
    fmt, version = data.get("format"), data.get("schema_version")
    if fmt != FORMAT:
        got = "missing" if "format" not in data else f"got {short_json(fmt)}"
        raise _invalid(name, [f"format: should be {FORMAT!r} ({got}): this is not an evalcore run file"])
    if type(version) is not int or version not in RUN_FILE_MODELS:
        known = ", ".join(map(str, RUN_FILE_MODELS))
        got = "missing" if "schema_version" not in data else f"got {short_json(version)}"
        problem = f"schema_version: this evalcore reads schema version {known} ({got})"
        raise _invalid(name, [problem + ("; upgrade evalcore" if type(version) is int else "")])
    return RUN_FILE_MODELS[version]


def _json_type(value: Any) -> str:
    names = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


# --- conversion ----------------------------------------------------------------------------------


def _to_records(f: RunFileV1) -> records.Run:
    r = f.run
    info = records.RunInfo(
        id=r.id,
        suite=r.suite,
        created_at=r.created_at,
        finished_at=r.finished_at,
        status=r.status,
        weights=dict(r.weights),
        settings=r.settings,
        provenance=r.provenance.model_dump(),
    )
    return records.Run(
        info=info,
        metrics=[records.Metric(m.name, m.description, m.higher_is_better, m.primary) for m in f.metrics],
        contenders=[records.Contender(c.id, c.model, c.settings) for c in f.contenders],
        cases=[records.Case(c.dataset, c.id, c.variant, c.input, c.expected, c.metadata) for c in f.cases],
        results=[_result_record(x) for x in f.results],
        refused=[records.Refusal(x.model, x.settings, x.reason) for x in f.refused],
    )


def _result_record(x: ResultEntry) -> records.Result:
    u = x.usage
    return records.Result(
        contender=x.contender,
        dataset=x.dataset,
        case=x.case,
        sample=x.sample,
        status=x.status,
        score=x.score,
        metrics=x.metrics,
        output=x.output,
        raw=x.raw,
        error=records.ErrorInfo(x.error.kind, x.error.message) if x.error else None,
        diagnostics=x.diagnostics,
        usage=records.Usage(u.input_tokens, u.output_tokens, u.cost_usd),
        latency_s=x.latency_s,
        attempts=x.attempts,
        started_at=x.started_at,
    )


def run_to_dict(run: records.Run) -> dict[str, Any]:
    """The run as the run file's JSON object: keys in the spec's order, numbers as the spec types them."""
    return {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "run": _info_dict(run.info),
        "metrics": [
            {
                "name": m.name,
                "description": m.description,
                "higher_is_better": m.higher_is_better,
                "primary": m.primary,
            }
            for m in run.metrics
        ],
        "contenders": [{"id": c.id, "model": c.model, "settings": c.settings} for c in run.contenders],
        "cases": [_case_dict(c) for c in run.cases],
        "results": [_result_dict(r) for r in run.results],
        "refused": [{"model": x.model, "settings": x.settings, "reason": x.reason} for x in run.refused],
    }


def _info_dict(info: records.RunInfo) -> dict[str, Any]:
    return {
        "id": info.id,
        "suite": info.suite,
        "created_at": info.created_at,
        "finished_at": info.finished_at,
        "status": info.status,
        "weights": {k: _float(v) for k, v in info.weights.items()},
        "settings": info.settings,
        "provenance": _ordered(info.provenance, ("tool", "suite_hash", "dataset_hashes", "revision")),
    }


def _ordered(obj: Any, keys: tuple[str, ...]) -> Any:
    """Known keys first, in the spec's order, then the rest: the order the reader gives back."""
    if not isinstance(obj, dict):
        return obj
    head = {k: obj[k] for k in keys if k in obj}
    if "tool" in head:
        head["tool"] = _ordered(head["tool"], ("name", "version"))
    return {**head, **{k: v for k, v in obj.items() if k not in head}}


def _case_dict(c: records.Case) -> dict[str, Any]:
    return {
        "dataset": c.dataset,
        "id": c.id,
        "variant": c.variant,
        "input": c.input,
        "expected": c.expected,
        "metadata": c.metadata,
    }


def _result_dict(r: records.Result) -> dict[str, Any]:
    u = r.usage
    return {
        "contender": r.contender,
        "dataset": r.dataset,
        "case": r.case,
        "sample": r.sample,
        "status": r.status,
        "score": _float(r.score),
        "metrics": {k: _float(v) for k, v in r.metrics.items()},
        "output": r.output,
        "raw": r.raw,
        "error": {"kind": r.error.kind, "message": r.error.message} if r.error else None,
        "diagnostics": r.diagnostics,
        "usage": {
            "input_tokens": u.input_tokens,
            "output_tokens": u.output_tokens,
            "cost_usd": _float(u.cost_usd),
        },
        "latency_s": _float(r.latency_s),
        "attempts": r.attempts,
        "started_at": r.started_at,
    }


def _float(value: Any) -> Any:
    # An int where the spec says number would read back as a float and break byte-identity.
    return float(value) if type(value) is int else value


# --- writing -------------------------------------------------------------------------------------


def dump_run(run: records.Run, *, validate: bool = True) -> bytes:
    """The run file's canonical bytes (UTF-8 JSON).

    One top-level key per line and one array element per line, compact inside: deterministic, so
    export → import → export is byte-identical, and diffs of bundled runs stay readable.

    Args:
        run: the run.
        validate: check the run against the spec first (a writer never writes an invalid file).

    Raises:
        RunFileError: the run breaks the spec or holds something JSON cannot carry.
    """
    name = f"run {run.info.id!r}"
    # A dict per result, then its text: plain values, never a cycle; the collector's passes over them
    # were a third of the time at 100,000 results.
    with gc_paused():
        data = run_to_dict(run)
        if validate and not runfile_fast.tree_is_valid(data):
            validate_run_dict(data, name=name)
        try:
            return _encode(data)
        except (TypeError, ValueError) as e:
            error = e
    problems = [f"{join_loc(loc)}: {msg}" for loc, msg in _bad_values(data, ())] or [f"(top level): {error}"]
    raise _invalid(name, problems) from None


def _encode(data: dict[str, Any]) -> bytes:
    return ("{\n" + ",\n".join(_encode_section(k, v) for k, v in data.items()) + "\n}\n").encode("utf-8")


def write_run_file(run: records.Run, path: str | os.PathLike[str], gzip: bool | None = None) -> Path:
    """Write a run file, atomically (a temporary file renamed into place).

    Args:
        run: the run.
        path: where to write.
        gzip: compress; by default when the path ends with ``.gz``.

    Returns:
        The path written.
    """
    path = Path(path)
    data = dump_run(run)
    if gzip if gzip is not None else path.name.endswith(".gz"):
        data = gzipped(data)
    _write_atomic(path, data)
    logger.info("wrote run %s to %s (%d bytes)", run.info.id, path, len(data))
    return path


def write_run_file_in_parts(head: records.Run, parts: Iterable[Sequence[records.Result]],
                            path: str | os.PathLike[str], gzip: bool | None = None, *,
                            whole: Callable[[], records.Run]) -> int:
    """:func:`write_run_file` for a run whose results come in parts: the same bytes, with one part in memory.

    Each part is checked, turned into text and written (compressed as it goes for ``.gz``), so exporting
    a million results holds one part of records, not a million of them and their dicts and text.

    Args:
        head: the run without its results (``results`` empty).
        parts: its results, in order, a list at a time (:meth:`evalcore.storage.store.Store.load_run_in_parts`).
        path: where to write, atomically.
        gzip: compress; by default when the path ends with ``.gz``.
        whole: the whole run, for when the fast checks do not vouch for a part: the file is then written
            by :func:`write_run_file`, whose models say what is wrong (a writer never writes an invalid file).

    Returns:
        How many results the file holds.

    Raises:
        RunFileError: the run breaks the spec or holds something JSON cannot carry.
    """
    path = Path(path)
    compress = gzip if gzip is not None else path.name.endswith(".gz")
    try:
        with _atomic_file(path) as f:
            count = _write_in_parts(f, head, parts, compress)
    except (_Doubted, TypeError, ValueError):
        # The models decide, on the whole run: they write it, or say what breaks the spec.
        run = whole()
        write_run_file(run, path, gzip=compress)
        return len(run.results)
    finally:
        close = getattr(parts, "close", None)
        if close is not None:
            close()
    logger.info("wrote run %s to %s (%d results, in parts)", head.info.id, path, count)
    return count


def export_run(store: Any, run_id: str, path: str | os.PathLike[str], gzip: bool | None = None) -> int:
    """Write a stored run's file, as ``evalcore export`` does, a part of its results in memory at a time.

    Args:
        store: an :class:`evalcore.storage.store.Store`.
        run_id: the run.
        path: where to write (``.gz``: compressed, unless ``gzip`` says otherwise).
        gzip: compress.

    Returns:
        How many results the file holds.

    Raises:
        StoreError: the run is unknown.
        RunFileError: the stored run breaks the spec.
    """
    head, parts = store.load_run_in_parts(run_id)
    return write_run_file_in_parts(head, parts, path, gzip, whole=lambda: store.load_run(run_id))


def exported_run(store: Any, run_id: str, gzip: bool = False) -> bytes:
    """The bytes :func:`export_run` writes (for a download), made through a temporary file."""
    with tempfile.TemporaryDirectory(prefix="evalcore-export-") as tmp:
        target = Path(tmp) / "run.json"
        export_run(store, run_id, target, gzip)
        return target.read_bytes()


class _Doubted(Exception):
    """A part the fast checks do not vouch for."""


def _write_in_parts(f: BinaryIO, head: records.Run, parts: Iterable[Sequence[records.Result]], compress: bool) -> int:
    """:func:`_encode`'s text of ``head`` with ``parts`` as its results, written to ``f`` a part at a time
    (through ``gzipped()``'s deflate stream when ``compress``); returns how many results it wrote.

    Raises:
        _Doubted: the fast checks do not vouch for the header or a part.
        TypeError, ValueError: something JSON cannot carry.
    """
    tree = run_to_dict(head)
    check = runfile_fast.PartsCheck(tree)
    out = zlib.compressobj(6, zlib.DEFLATED, 31) if compress else None  # gzipped()'s settings

    def write(text: str) -> None:
        data = text.encode("utf-8")
        f.write(out.compress(data) if out is not None else data)

    sections = [_encode_section(key, value) for key, value in tree.items()]
    results_at = list(tree).index("results")
    write("{\n" + ",\n".join(sections[:results_at]) + ",\n")
    count = 0
    for part in parts:
        with gc_paused():  # a dict and a text per result: plain values, never a cycle
            dicts = [_result_dict(r) for r in part]
            if not check.add(dicts):
                raise _Doubted
            text = ",\n".join(_ENCODE(d) for d in dicts)
        write(('"results":[\n' if not count else ",\n") + text)
        count += len(dicts)
    if not check.finish():
        raise _Doubted
    write(("\n]" if count else '"results":[]') + ",\n" + ",\n".join(sections[results_at + 1:]) + "\n}\n")
    if out is not None:
        f.write(out.flush())
    return count


def _encode_section(key: str, value: Any) -> str:
    """One top-level ``"key":value`` of :func:`_encode`."""
    if isinstance(value, list) and value:
        body = ",\n".join(_ENCODE(item) for item in value)
        return f"{_ENCODE(key)}:[\n{body}\n]"
    return f"{_ENCODE(key)}:{_ENCODE(value)}"


def gzipped(data: bytes) -> bytes:
    """A run file's bytes as its ``.json.gz``: the same bytes every time (no timestamp in the header)."""
    return gz.compress(data, compresslevel=6, mtime=0)


def _write_atomic(path: Path, data: bytes) -> None:
    with _atomic_file(path) as f:
        f.write(data)


@contextmanager
def _atomic_file(path: Path) -> Iterator[BinaryIO]:
    """A temporary file beside ``path``, renamed into place when the block ends well, removed when not."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# --- schema --------------------------------------------------------------------------------------


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of run files, schema version 1.

    The cross-field rules (references, uniqueness, one primary metric, status rules) are beyond
    JSON Schema; :func:`read_run_file` checks them.
    """
    schema = RunFileV1.model_json_schema()
    # Every field's docstring as its description, as pydantic's use_attribute_docstrings would put it: a
    # field inherits its base class's, a reference drops a description its target has, and keys stay sorted.
    docs = runfile_models.attribute_docstrings()
    models = {m.__name__: m for m in vars(runfile_models).values() if isinstance(m, type) and issubclass(m, BaseModel)}
    defs = schema.get("$defs", {})
    for name, definition in [(RunFileV1.__name__, schema), *defs.items()]:
        texts = {f: t for base in reversed(models[name].__mro__) for f, t in docs.get(base.__name__, {}).items()}
        properties = definition.get("properties", {})
        for field, text in texts.items():
            prop = properties.get(field)
            target = defs.get(str(prop.get("$ref", "")).rpartition("/")[2], {}) if prop else {}
            if prop is not None and "description" not in prop and target.get("description") != text:
                properties[field] = dict(sorted({**prop, "description": text}.items()))
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def main(argv: list[str] | None = None) -> int:
    """``python -m evalcore.runfile.io --schema``: print the JSON Schema."""
    parser = argparse.ArgumentParser(prog="python -m evalcore.runfile.io", description=__doc__.splitlines()[0])
    parser.add_argument("--schema", action="store_true", help="print the run file's JSON Schema")
    args = parser.parse_args(argv)
    if not args.schema:
        parser.print_help()
        return 2
    sys.stdout.write(json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
