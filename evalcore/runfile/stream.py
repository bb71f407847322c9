"""A run file read as it streams: a chunk of its lines at a time, from disk or through gzip, never whole.

:func:`evalcore.runfile.fast.read_canonical` reads a canonical file (the layout
:func:`evalcore.runfile.write.dump_run` writes: one array element per line) without the models, but from its
bytes in memory, and keeps every result as a record. :class:`RunFileStream` runs the same checks
(:mod:`evalcore.runfile.fast`'s header, case and result checks, which are the models' rules) on a file
object read a chunk of lines at a time, and hands the results on a part at a time, so a caller can store
them and let them go: a million results hold a part of records, not the file and a million of them.

Like the fast path it only ever *accepts*: anything it does not vouch for (a rule broken, a layout it does
not know, bytes that are not strict JSON, a file cut short, a damaged gzip stream, a file over its size
cap) raises :class:`NotStreamable`, and the caller reads the file the whole way
(:func:`evalcore.runfile.read.read_run_file`), which refuses it with every problem named, or reads it.
"""

from __future__ import annotations

import gzip as gz
import os
import zlib
from collections.abc import Iterator
from contextlib import nullcontext
from typing import Any, BinaryIO

from evalcore.core import records
from evalcore.core.errors import StoreError
from evalcore.runfile import fast
from evalcore.runfile._records import run_of
from evalcore.runfile.models import SECTIONS
from evalcore.runfile.read import MAX_BYTES

#: The sections before the big ones, in the canonical order.
_HEADER = SECTIONS[: SECTIONS.index("cases")]
_GZIP_MAGIC = b"\x1f\x8b"


class OverResultCap(Exception):
    """A file holds more results than the cap its reader was given (``args[0]``)."""


class NotStreamable(Exception):
    """The stream does not vouch for the file: read it the whole way, which says what is wrong with it."""


class RunFileStream:
    """A canonical run file read from ``f`` as it streams.

    Read :attr:`head` (the run without its results, refusals, verdicts and ratings: those come after the
    results), then every part of :meth:`parts`, then :meth:`tail` (the run with its refusals, verdicts
    and ratings, still without results). Each step raises :class:`NotStreamable` when it does not vouch
    for what it read.

    Args:
        f: the file, opened in binary mode; gzip is told by its magic bytes.
        max_bytes: the most (decompressed) bytes read; a larger file is not streamed.
    """

    def __init__(self, f: BinaryIO, max_bytes: int):
        self._lines = _Lines(f, max_bytes)
        self._header: Any = None
        self._cases: Any = None
        self._results: Any = None
        self.count = 0
        """Results handed on so far."""
        self._more = True  # whether the last top-level part read ended with a comma
        with _doubted():
            self.head = self._read_head()

    def _read_head(self) -> records.Run:
        if self._lines.readline(2) != b"{\n":  # not a canonical file: no more of it is read
            raise NotStreamable
        tree: dict[str, Any] = {}
        for key in _HEADER:
            tree[key] = self._value(key)
        self._header = fast._Header(tree)
        self._cases = fast._Cases()
        self._section("cases", self._cases.add, fast._CASES)
        self._results = fast._Results(self._header, self._cases, keep=True)
        self.head = run_of(self._header.info, self._header.metrics, self._header.contenders, [], [], [], [], [])
        self.head.cases = self._cases.records
        return self.head

    def parts(self) -> Iterator[list[records.Result]]:
        """The results, a chunk at a time, each checked against every rule before it is handed on."""
        results = self._results

        def add(items: list[Any]) -> None:
            results.add(items)

        with _doubted():
            for _ in self._section_parts("results", add, self._header.results):
                part, results.records = results.records, []
                self.count += len(part)
                yield part

    def tail(self) -> records.Run:
        """The run without its results, with the refusals, verdicts and ratings after them (the file's end)."""
        with _doubted():
            self._header.tree["refused"] = self._value("refused", last=True)
            for key in fast.OPTIONAL:
                if self._more and self._lines.peek().startswith(f'"{key}":'.encode()):
                    self._header.tree[key] = self._value(key, last=True)
            if self._more or self._lines.readline() != b"}\n" or self._lines.readline() != b"":
                raise NotStreamable
            # the verdicts' and ratings' rules check what they name against the results, which are gone by
            # now: a run with either is read whole
            if fast.PAIRWISE in self._header.tree or fast.RATINGS in self._header.tree:
                raise NotStreamable
            run = self._header.run(self._cases.records, [])
        return run

    # --- the layout ---------------------------------------------------------------------------------

    def _value(self, key: str, last: bool = False) -> Any:
        """A ``"key":value`` part: on its line, or (an array) one element per line up to its ``]`` line."""
        prefix = f'"{key}":'.encode()
        line = self._lines.readline()
        if not line.startswith(prefix):
            raise NotStreamable
        body = line[len(prefix) :]
        if body == b"[\n":
            lines = []
            while not (line := self._lines.readline()).startswith(b"]"):
                if not line:
                    raise NotStreamable
                lines.append(line)
            body = b"[" + b"".join(lines) + line
        self._more = body.endswith(b",\n")
        return fast._one(fast._loads(b"[" + _ended(body, last) + b"]"))

    def _section(self, key: str, add: Any, kind: Any) -> None:
        for _ in self._section_parts(key, add, kind):
            pass

    def _section_parts(self, key: str, add: Any, kind: Any) -> Iterator[None]:
        """The elements of a big array, a chunk of lines at a time, decoded as ``kind`` and fed to ``add``."""
        prefix = f'"{key}":'.encode()
        if not self._lines.peek().startswith(prefix + b"[\n"):  # an empty array is written inline
            add(fast._convert(self._value(key), kind))
            yield
            return
        self._lines.readline()
        decode = fast._DECODERS[kind]
        while True:
            chunk, closed = self._lines.chunk_until_close(fast.CHUNK_BYTES)
            if not chunk.endswith(b"\n" if closed else b",\n"):
                raise NotStreamable  # a trailing comma before "]", or a file cut short
            add(fast._loads(b"[" + chunk[: -1 if closed else -2] + b"]", decode))
            yield
            if closed:
                break
        if self._lines.readline() != b"],\n":
            raise NotStreamable


def _ended(body: bytes, last: bool) -> bytes:
    """A top-level part's value without its line end: ``,\\n`` between parts, ``\\n`` after the last one.

    A part the optional keys may follow ends either way; :meth:`RunFileStream.tail` checks what comes next.
    """
    if body.endswith(b",\n"):
        return body[:-2]
    if last and body.endswith(b"\n"):
        return body[:-1]
    raise NotStreamable


class _doubted:
    """Turns whatever the fast path doubts into :class:`NotStreamable`."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
        if error is not None and isinstance(error, fast._DOUBT + _BROKEN):
            raise NotStreamable from None


#: A damaged gzip stream.
_BROKEN = (OSError, EOFError, zlib.error)


class _Lines:
    """Lines of a (gzipped) file, a line or a chunk of whole lines at a time, within a size cap."""

    def __init__(self, f: BinaryIO, max_bytes: int):
        magic = f.read(2)
        f.seek(0)
        self._f: Any = gz.GzipFile(fileobj=f, mode="rb") if magic == _GZIP_MAGIC else f
        self._left = max_bytes
        self._next: bytes | None = None

    def readline(self, limit: int = -1) -> bytes:
        if self._next is None and limit >= 0:
            return self._count(self._f.readline(limit))
        line = self.peek()
        self._next = None
        return line

    def peek(self) -> bytes:
        if self._next is None:
            self._next = self._count(self._f.readline())
        return self._next

    def chunk_until_close(self, size: int) -> tuple[bytes, bool]:
        """Whole lines of about ``size`` bytes up to (not with) a line that starts with ``]``, and whether it came.

        No array element's line starts with ``]``, so the first such line closes the array.
        """
        head = self.readline() if self._next is not None else b""
        if head.startswith(b"]"):
            self._next = head
            return b"", True
        block = head + self._count(self._f.read(size))
        if block and not block.endswith(b"\n"):
            block += self._count(self._f.readline())
        close = (b"\n" + block).find(b"\n]")
        if close == -1:
            if not block:
                raise NotStreamable  # the file ends inside the array
            # the array's last element may end the block: then its closing line comes next
            return block, not block.endswith(b",\n") and self.peek().startswith(b"]")
        self._next = block[close:]  # the closing line: a canonical file ends it "],\n" with its own line
        nl = self._next.find(b"\n")
        if nl != len(self._next) - 1:  # more lines after it were read along: keep only the closing one
            rest = self._next[nl + 1 :]
            self._next = self._next[: nl + 1]
            self._left += len(rest)  # counted again when read from the front
            self._f = _Prefixed(rest, self._f)
        return block[:close], True

    def _count(self, data: bytes) -> bytes:
        self._left -= len(data)
        if self._left < 0:
            raise NotStreamable
        return data


class _Prefixed:
    """A file object with some bytes read ahead put back in front."""

    def __init__(self, ahead: bytes, f: Any):
        self._ahead, self._f = ahead, f

    def readline(self) -> bytes:
        if self._ahead:
            nl = self._ahead.find(b"\n")
            if nl != -1:
                line, self._ahead = self._ahead[: nl + 1], self._ahead[nl + 1 :]
                return line
            line, self._ahead = self._ahead, b""
            return line + self._f.readline()
        return self._f.readline()

    def read(self, size: int) -> bytes:
        if self._ahead:
            data, self._ahead = self._ahead[:size], self._ahead[size:]
            return data
        return self._f.read(size)


def import_run_file(
    store: Any,
    source: str | os.PathLike[str] | BinaryIO,
    *,
    replace: bool = False,
    max_bytes: int = MAX_BYTES,
    max_results: int | None = None,
) -> tuple[records.Run, int] | None:
    """Store the run file at ``source`` as it streams, in one transaction
    (:meth:`~evalcore.storage.store.Store.import_run_in_parts`).

    Args:
        store: an :class:`~evalcore.storage.store.Store`.
        source: the run file's path, or the file opened in binary mode (gzip told by its magic bytes).
        replace: overwrite a run already stored under the same id.
        max_bytes: the most (decompressed) bytes read.
        max_results: the most results stored (None: no cap).

    Returns:
        The stored run without its results and how many results it holds, or None when the stream does not
        vouch for the file, or its run is already stored and ``replace`` is not asked for: nothing was stored,
        and the caller reads the file the whole way (:func:`evalcore.runfile.importers.read_import`), which
        says what is wrong with it.

    Raises:
        StoreError: the store refuses the run. OverResultCap: more results than ``max_results`` (nothing stored).
    """
    ended: list[records.Run] = []

    def tail(stream: RunFileStream) -> records.Run:
        ended.append(stream.tail())
        return ended[0]

    def capped(parts: Iterator[list[records.Result]]) -> Iterator[list[records.Result]]:
        for part in parts:
            if max_results is not None and stream.count > max_results:
                raise OverResultCap(max_results)
            yield part

    try:
        with open(source, "rb") if isinstance(source, str | os.PathLike) else nullcontext(source) as f:
            stream = RunFileStream(f, max_bytes)
            if not replace and _stored(store, stream.head.info.id):
                return None
            count = store.import_run_in_parts(
                stream.head, capped(stream.parts()), lambda: tail(stream), replace=replace
            )
    except (NotStreamable, OSError):
        return None
    return ended[0], count


def _stored(store: Any, run_id: str) -> bool:
    try:
        store.load_run(run_id, results=False)
    except StoreError:
        return False
    return True
