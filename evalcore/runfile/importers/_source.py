"""Reading a file to import, under caps: its bytes (gzip undone), its JSON, or the entries of a zip.

Every read is capped as run files are (:data:`evalcore.runfile.read.MAX_BYTES` unless told otherwise):
a gzip or zip entry that decompresses past the cap is refused, and so is a zip whose entries claim more
than the cap in all, before anything is decompressed. A zip entry that decompresses to more than it
claims is refused too (a forged size is how a zip bomb slips past a check of the declared sizes).

Inspect's newer ``.eval`` logs compress their entries with Zstandard (zip method 93), which
:mod:`zipfile` cannot read: those entries' raw bytes are taken from the archive (:class:`zipfile.ZipInfo`
gives their offsets and sizes) and decompressed with the ``zstandard`` package.

JSON is decoded strictly first; a file holding ``NaN`` or ``Infinity`` (older Inspect logs, and scores
that were NaN) is decoded again, and those values in the parts that are imported become null, each one
named in a note. (promptfoo files and Inspect ``.json`` logs are first tried by ``_lean``, which builds only
the parts imported; this is the path for the rest, and for what ``_lean`` leaves to it.)
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import math
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any, BinaryIO

import msgspec

from evalcore._util import jsonfast
from evalcore.core.errors import RunFileError
from evalcore.runfile.importers._common import Notes

GZIP_MAGIC = b"\x1f\x8b"
ZIP_MAGIC = b"PK\x03\x04"
#: The zip compression method number of Zstandard (APPNOTE 4.4.5).
ZIP_ZSTANDARD = 93
#: A zip with more entries than this is refused (an Inspect log has one per sample and epoch, plus a few).
MAX_ZIP_ENTRIES = 2_000_000
_LOCAL_HEADER = struct.Struct("<4s22xHH")
_strict_decode = msgspec.json.Decoder().decode


def refused(name: str, headline: str, problem: str) -> RunFileError:
    """The error for a file that cannot be imported: a headline naming the file, and the one line that says
    what is wrong (``where: what``), as a run file's problems are listed."""
    return RunFileError(f"{name}: {headline}", problems=[problem])


@dataclass
class Loaded:
    """A file's bytes as read, and its content once gzip is undone."""

    raw: bytes
    """The bytes as read (hashed for the run's id)."""
    data: bytes
    """The content: ``raw`` itself, or its gzip content."""

    @cached_property
    def digest(self) -> str:
        """The SHA-256 of ``raw``: computed only for a file that is imported (a run file keeps its own id)."""
        return hashlib.sha256(self.raw).hexdigest()


def load(raw: bytes, name: str, max_bytes: int) -> Loaded:
    """A file's bytes, with gzip undone under the cap.

    Raises:
        RunFileError: the file is over the cap, or not valid gzip.
    """
    if raw[:2] != GZIP_MAGIC:
        if len(raw) > max_bytes:
            raise refused(
                name,
                "too large",
                f"(file): size exceeds the limit of {max_bytes:,} bytes ({len(raw):,} bytes); nothing was read",
            )
        return Loaded(raw, raw)
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw), mode="rb") as stream:
            data = stream.read(max_bytes + 1)
    except (OSError, EOFError, zlib.error) as e:
        raise refused(name, "not valid gzip data", f"(file): truncated or damaged: {e}") from None
    if len(data) > max_bytes:
        raise refused(
            name, "too large", f"(file): decompressed size exceeds the limit of {max_bytes:,} bytes; nothing was read"
        )
    return Loaded(raw, data)


class _NonFinite(str):
    """Where a ``NaN`` or ``Infinity`` literal stood, until :func:`scrub` turns it into null."""


#: The strings a lean parse puts where a bare ``NaN`` / ``Infinity`` / ``-Infinity`` stood (``_lean``), and the
#: literal each stands for: :func:`scrub` turns them into null as it does the literals. Their ``\x00`` marks
#: them; a file that already holds one is never read leanly.
NON_FINITE_SENTINELS = {"\x00NaN": "NaN", "\x00Infinity": "Infinity", "\x00-Infinity": "-Infinity"}


def decode_json(data: bytes, name: str, where: str = "") -> tuple[Any, bool]:
    """The JSON value of ``data``, and whether it may hold ``NaN`` or ``Infinity`` (then :func:`scrub` the parts
    that are kept: a log's transcript, never imported, is not walked).

    Raises:
        RunFileError: the bytes are not JSON (with the line and column), or not UTF-8.
    """
    try:
        return _strict_decode(data), False
    except (msgspec.DecodeError, RecursionError):
        pass  # the standard library's parser takes NaN and says where anything else breaks
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise refused(name, "not UTF-8 text", f"{where or '(file): '}byte {e.start:,}: {e.reason}") from None
    try:
        return json.loads(text, parse_constant=_NonFinite), True
    except json.JSONDecodeError as e:
        raise refused(name, "not valid JSON", f"{where}{jsonfast.error_text(e)}") from None
    except (ValueError, RecursionError) as e:
        raise refused(name, "not valid JSON", f"{where or '(file): '}{e}") from None


def json_entries(
    archive: ZipArchive, entries: list[str], name: str, keep: Callable[[Any], bool]
) -> list[tuple[str, Any]]:
    """The entries of a zip (of ``entries``) whose JSON value ``keep`` takes, each with that value, in order.

    Raises:
        RunFileError: an entry is not JSON (named, with the line and column).
    """
    found = []
    for entry in entries:
        tree, _ = decode_json(archive.read(entry), name, where=f"{entry}: ")
        if keep(tree):
            found.append((entry, tree))
    return found


def scrub(value: Any, path: str, notes: Notes, skip: frozenset[str] = frozenset()) -> Any:
    """The tree with every ``NaN`` / ``Infinity`` replaced by null, each noted with where it was; the root's
    keys in ``skip`` are left as they are (parts that are not imported)."""
    if _non_finite(value):
        notes.add(f"{path or '(file)'}: {_shown(value)} is not a JSON number; imported as null")
        return None
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        node, at = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, item in items:
            if node is value and key in skip:
                continue
            if _non_finite(item):
                node[key] = None
                notes.add(f"{_join(at, key)}: {_shown(item)} is not a JSON number; imported as null")
            elif isinstance(item, dict | list):
                stack.append((item, _join(at, key)))
    return value


def _non_finite(value: Any) -> bool:
    if isinstance(value, str):
        return isinstance(value, _NonFinite) or value in NON_FINITE_SENTINELS
    return isinstance(value, float) and not math.isfinite(value)


def _shown(value: Any) -> Any:
    return NON_FINITE_SENTINELS.get(value, value) if isinstance(value, str) else value


def _join(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)


class ZipArchive:
    """The entries of a zip (an Inspect ``.eval`` log), read one at a time under a shared cap."""

    def __init__(self, data: bytes, name: str, max_bytes: int):
        self.name = name
        self.data = data
        try:
            self.zip = zipfile.ZipFile(io.BytesIO(data))
            infos = self.zip.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as e:
            raise refused(name, "a zip archive that cannot be read", f"(file): truncated or damaged: {e}") from None
        if len(infos) > MAX_ZIP_ENTRIES:
            raise refused(
                name, "too large", f"(file): {len(infos):,} zip entries, over the limit of {MAX_ZIP_ENTRIES:,}"
            )
        claimed = sum(i.file_size for i in infos)
        if claimed > max_bytes:
            raise refused(
                name,
                "too large",
                f"(file): its entries would decompress to {claimed:,} bytes, over the limit of {max_bytes:,} bytes",
            )
        self.infos = {i.filename: i for i in infos}
        #: Bytes that may still be decompressed.
        self.budget = max_bytes

    def names(self) -> list[str]:
        """The entries' names, in the archive's order."""
        return list(self.infos)

    def read(self, entry: str) -> bytes:
        """An entry's content, checked against its size and CRC.

        Raises:
            RunFileError: the entry is damaged, uses an unknown compression, or decompresses past its size.
        """
        info = self.infos[entry]
        limit = min(info.file_size, self.budget)
        try:
            if info.compress_type == ZIP_ZSTANDARD:
                content = self._read_zstd(info, limit)
            else:
                with self.zip.open(info) as stream:
                    content = stream.read(limit + 1)
        except NotImplementedError:
            raise refused(
                self.name,
                "an unreadable zip entry",
                f"{entry}: compression method {info.compress_type} is not supported",
            ) from None
        except (zipfile.BadZipFile, OSError, EOFError, zlib.error, ValueError) as e:
            raise refused(self.name, "a zip entry that cannot be read", f"{entry}: truncated or damaged: {e}") from None
        if len(content) > limit:
            raise refused(
                self.name,
                "a zip bomb",
                f"{entry}: decompresses to more than the {info.file_size:,} bytes it declares; refused",
            )
        self.budget -= len(content)
        return content

    def _read_zstd(self, info: zipfile.ZipInfo, limit: int) -> bytes:
        import zstandard

        offset = info.header_offset
        header = self.data[offset : offset + _LOCAL_HEADER.size]
        if len(header) < _LOCAL_HEADER.size:
            raise EOFError("the entry's header is cut off")
        magic, name_length, extra_length = _LOCAL_HEADER.unpack(header)
        if magic != ZIP_MAGIC:
            raise zipfile.BadZipFile("bad local file header")
        start = offset + _LOCAL_HEADER.size + name_length + extra_length
        raw = memoryview(self.data)[start : start + info.compress_size]
        if len(raw) < info.compress_size:
            raise EOFError("the entry's data is cut off")
        try:
            content = _capped_zstd(zstandard.ZstdDecompressor(), raw, limit)
        except zstandard.ZstdError as e:
            raise zipfile.BadZipFile(f"invalid Zstandard data: {e}") from None
        if len(content) <= limit and zlib.crc32(content) != info.CRC:
            raise zipfile.BadZipFile("CRC check failed")
        return content


def _capped_zstd(decompressor: Any, raw: memoryview, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of a (possibly multi-frame) Zstandard stream."""
    reader: BinaryIO = decompressor.stream_reader(raw, read_across_frames=True)
    parts: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = reader.read(min(limit + 1 - size, 1 << 24))
        if not chunk:
            break
        parts.append(chunk)
        size += len(chunk)
    return b"".join(parts)


def iter_files(root: Any) -> Iterator[Any]:
    """The regular files under a folder, sorted, hidden ones (``.name``) left out."""
    for path in sorted(root.rglob("*")):
        if path.is_file() and not any(part.startswith(".") for part in path.relative_to(root).parts):
            yield path
