"""Writing a run file: the canonical bytes of a run, written atomically, whole or a part at a time.

The canonical form has the spec's key order, one top-level key per line and one array element per
line, compact inside, so export → import → export gives byte-identical files and diffs of bundled runs
stay readable. A writer never writes an invalid file: the run is checked against the spec first.
"""

from __future__ import annotations

import gzip as gz
import logging
import os
import tempfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

from evalcore._util import jsonfast
from evalcore._util.files import atomic_file
from evalcore.core import records
from evalcore.runfile import fast as runfile_fast
from evalcore.runfile import ratings as runfile_ratings
from evalcore.runfile._entries import entry_maker
from evalcore.runfile.models import (
    CONVERSATION_VERSION,
    TRACE_VERSION,
    CaseEntry,
    ContenderEntry,
    MetricEntry,
    RefusalEntry,
    ResultEntry,
    ResultEntryV4,
    RunEntry,
    join_loc,
)
from evalcore.runfile.pairwise import KEY, PairwiseEntry
from evalcore.runfile.read import (
    FORMAT,
    PAIRWISE_VERSION,
    RATINGS_VERSION,
    SCHEMA_VERSION,
    bad_values,
    invalid,
    validate_run_dict,
)
from evalcore.storage.pairs import load_pairs
from evalcore.storage.ratings import load_ratings

logger = logging.getLogger(__name__)

#: The compact JSON text of one value, as ``json.JSONEncoder(ensure_ascii=False, allow_nan=False,
#: separators=(",", ":")).encode`` writes it (NaN and infinities refused with its ValueError).
_ENCODE = jsonfast.dumps


_RUN = entry_maker(RunEntry)
_METRIC = entry_maker(MetricEntry)
_CONTENDER = entry_maker(ContenderEntry)
_CASE = entry_maker(CaseEntry)
_RESULT = entry_maker(ResultEntry)
_TRACED_RESULT = entry_maker(ResultEntryV4)
_REFUSAL = entry_maker(RefusalEntry)
_VERDICT = entry_maker(PairwiseEntry)


def run_to_dict(run: records.Run) -> dict[str, Any]:
    """The run as the run file's JSON object: keys in the spec's order, numbers as the spec types them."""
    traced = any(r.trace is not None for r in run.results)
    # The oldest version that holds the run: a reader of an older schema reads every file that needs no more.
    version = RATINGS_VERSION if run.ratings else PAIRWISE_VERSION if run.pairwise else SCHEMA_VERSION
    if traced:
        version = CONVERSATION_VERSION if any(_talked(r) for r in run.results) else TRACE_VERSION
    result = _TRACED_RESULT if traced else _RESULT
    return {
        "format": FORMAT,
        "schema_version": version,
        "run": _RUN(run.info),
        "metrics": [_METRIC(m) for m in run.metrics],
        "contenders": [_CONTENDER(c) for c in run.contenders],
        "cases": [_CASE(c) for c in run.cases],
        "results": [result(r) for r in run.results],
        "refused": [_REFUSAL(x) for x in run.refused],
        **({KEY: [_VERDICT(v) for v in run.pairwise]} if run.pairwise else {}),
        **({runfile_ratings.KEY: [runfile_ratings.entry_data(r) for r in run.ratings]} if run.ratings else {}),
    }


def _talked(result: records.Result) -> bool:
    """Whether the result's trace is a conversation's transcript (schema version 5)."""
    return result.trace is not None and any(s.get("kind") == "user" for s in result.trace)


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
    data = run_to_dict(run)
    if validate and not runfile_fast.tree_is_valid(data):
        validate_run_dict(data, name=name)
    try:
        return _encode(data)
    except (TypeError, ValueError) as e:
        error = e
    problems = [f"{join_loc(loc)}: {msg}" for loc, msg in bad_values(data, ())] or [f"(top level): {error}"]
    raise invalid(name, problems) from None


def _encode(data: dict[str, Any]) -> bytes:
    return ("{\n" + ",\n".join(_encode_section(k, v) for k, v in data.items()) + "\n}\n").encode("utf-8")


def _encode_section(key: str, value: Any) -> str:
    """One top-level ``"key":value`` of :func:`_encode`."""
    if isinstance(value, list) and value:
        body = ",\n".join(_ENCODE(item) for item in value)
        return f"{_ENCODE(key)}:[\n{body}\n]"
    return f"{_ENCODE(key)}:{_ENCODE(value)}"


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
    with _atomic_file(path) as f:
        f.write(data)
    logger.info("wrote run %s to %s (%d bytes)", run.info.id, path, len(data))
    return path


def write_run_file_in_parts(
    head: records.Run,
    parts: Iterable[Sequence[records.Result]],
    path: str | os.PathLike[str],
    gzip: bool | None = None,
    *,
    whole: Callable[[], records.Run],
) -> int:
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
    head.pairwise = load_pairs(store, run_id)
    head.ratings = load_ratings(store, run_id)
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
    traced = tree["schema_version"] >= TRACE_VERSION
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
        # The header is written before the results are read: a trace in a run whose head has none (an export
        # from the store) needs schema version 4, which the whole run's writer picks.
        if not traced and any(r.trace is not None for r in part):
            raise _Doubted
        if tree["schema_version"] < CONVERSATION_VERSION and any(_talked(r) for r in part):
            raise _Doubted  # a conversation needs schema version 5, which the whole run's writer picks
        dicts = [(_TRACED_RESULT if traced else _RESULT)(r) for r in part]
        if not check.add(dicts):
            raise _Doubted
        text = ",\n".join(_ENCODE(d) for d in dicts)
        write(('"results":[\n' if not count else ",\n") + text)
        count += len(dicts)
    if not check.finish():
        raise _Doubted
    write(("\n]" if count else '"results":[]') + ",\n" + ",\n".join(sections[results_at + 1 :]) + "\n}\n")
    if out is not None:
        f.write(out.flush())
    return count


def gzipped(data: bytes) -> bytes:
    """A run file's bytes as its ``.json.gz``: the same bytes every time (no timestamp in the header)."""
    return gz.compress(data, compresslevel=6, mtime=0)


@contextmanager
def _atomic_file(path: Path) -> Iterator[BinaryIO]:
    """A temporary file beside ``path`` (its folder made if need be), renamed into place when the block ends
    well, removed when not; with the user's umask (:func:`evalcore._util.files.atomic_file`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(path) as f:
        yield f
