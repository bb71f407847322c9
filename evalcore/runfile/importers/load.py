"""Reading any file evalcore can import: its kind told from its content, then the matching reader.

:func:`read_import` takes a path or bytes and returns a :class:`~evalcore.core.records.Run`: an evalcore
run file as :func:`~evalcore.runfile.read.read_run_file` reads it, a promptfoo result file or an Inspect
log through its importer. A file of no known layout, a damaged zip or a zip bomb raises
:class:`~evalcore.core.errors.RunFileError` with one line, and nothing is returned.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from evalcore.core import records
from evalcore.core.errors import RunFileError
from evalcore.runfile.importers import _common as common
from evalcore.runfile.importers import _eee_files, detect, eee, inspect_log, lm_eval, otlp, promptfoo
from evalcore.runfile.importers import _lm_eval_files as lm_eval_files
from evalcore.runfile.importers._lean import Lean, inspect_samples, read_lean
from evalcore.runfile.importers._source import ZIP_MAGIC, ZipArchive, decode_json, json_entries, load, refused, scrub
from evalcore.runfile.read import MAX_BYTES, read_run_file, run_from_dict

#: How the badge names each tool.
TOOL_NAMES = {
    "promptfoo": "promptfoo",
    "inspect_ai": "Inspect",
    "evalcore": "evalcore",
    "lm_eval": "lm-eval",
    "otlp": "OpenTelemetry traces",
    "every_eval_ever": "Every Eval Ever",
}
Progress = Callable[[int, int], None]


def read_import(
    source: str | os.PathLike[str] | bytes,
    *,
    name: str | None = None,
    max_bytes: int = MAX_BYTES,
    on_progress: Progress | None = None,
    imported_at: str | None = None,
    selection: otlp.Selection | None = None,
) -> records.Run:
    """Read a run file, a promptfoo result file, an Inspect log, an lm-eval results file (with its samples
    files) or OTLP JSON traces, told apart by content.

    Args:
        source: a path, or the file's bytes (e.g. an upload). Gzip is undone whatever the file's name.
        name: what messages call the file; defaults to the path (or ``the file``).
        max_bytes: the most bytes the file, or all its decompressed content, may hold.
        on_progress: called with (items done, items in all) while rows or samples are read.
        imported_at: the import's time (RFC 3339 UTC); now by default.
        selection: which traced model calls of an OTLP file to import (``--sample``, ``--since``, ``--where``).

    Returns:
        The run. An imported one's id comes from the file's SHA-256: the same file gives the same id.

    Raises:
        RunFileError: the file is unreadable, too large, of no known layout, or (a run file) invalid.
    """
    if name is None:
        name = "the file" if isinstance(source, bytes | bytearray) else str(source)
    file_name = name if isinstance(source, bytes | bytearray) else Path(source).name
    loaded = load(_read(source, name, max_bytes), name, max_bytes)
    data = loaded.data
    if b'"evalcore.run"' in data[:512]:
        return read_run_file(data, name=name, max_bytes=max_bytes)
    stamp = common.Stamp("", "", "", loaded.digest, file_name, None, imported_at or common.now())
    if data[:4] == ZIP_MAGIC:
        return _read_zip(data, name, max_bytes, stamp, on_progress)
    if data.lstrip()[:1] not in (b"{", b"["):
        raise detect.unknown_layout(name, "a file that is neither JSON nor a zip archive" if data else "an empty file")
    lean = read_lean(data)
    if lean is not None:
        try:
            return _import_lean(lean, stamp, on_progress)
        except (msgspec.DecodeError, RecursionError):  # a sample msgspec refuses: read the file as it is
            lean = None  # its parts (and any patched copy of the bytes) go before the whole tree is built
    notes = common.Notes()
    if lm_eval_files.is_samples_data(data):
        raise lm_eval_files.samples_refused(name)
    if b'"resourceSpans"' in data[:256]:
        return _read_otlp(data, name, stamp, selection, on_progress)
    if b'"sample_id"' in data[:4096] and eee.is_instance_line(data):
        raise _eee_files.samples_refused(name)
    tree, lenient = decode_json(data, name)
    kind = detect.kind_of_json(tree)
    if kind == "evalcore":  # a run file with NaN is refused, with where, by the run file's reader
        return read_run_file(data, name=name, max_bytes=max_bytes) if lenient else run_from_dict(tree, name=name)
    if kind == "promptfoo":
        tree = scrub(tree, "", notes) if lenient else tree
        stamp.tool, stamp.version = promptfoo.TOOL, promptfoo.promptfoo_version(tree)
        stamp.layout, stamp.original_id = promptfoo.layout_of(tree), promptfoo.original_id(tree)
        return promptfoo.import_promptfoo(tree, stamp, notes, on_progress)
    if kind == "inspect_json":
        header = {k: v for k, v in tree.items() if k not in inspect_log.NOT_HEADER}
        header = scrub(header, "", notes) if lenient else header
        samples = tree.get("samples") if isinstance(tree.get("samples"), list) else []
        _stamp_inspect(stamp, header, "json")
        pairs = inspect_log.json_samples(tree, notes if lenient else None)
        return inspect_log.import_inspect(header, pairs, len(samples), stamp, notes, on_progress)
    if lm_eval_files.is_results(tree):
        folder = None if isinstance(source, bytes | bytearray) else Path(source).parent
        return _read_lm_eval(tree, folder, name, max_bytes, stamp, on_progress)
    if eee.is_record(tree):
        folder = None if isinstance(source, bytes | bytearray) else Path(source).parent
        return _eee_files.read_record(tree, folder, name, max_bytes, stamp, on_progress, _read)
    logs = detect.inspect_listing(tree)
    if logs is not None:
        raise detect.listing_refused(name, logs)
    raise detect.unknown_layout(name, detect.describe_json(tree))


def _import_lean(lean: Lean, stamp: common.Stamp, on_progress: Progress | None) -> records.Run:
    """Import a file read leanly (``_lean``), as the standard path below imports its whole tree."""
    notes, tree = common.Notes(), lean.tree
    if lean.kind == "promptfoo":  # never lenient: a promptfoo file holding NaN is read the standard way
        stamp.tool, stamp.version = promptfoo.TOOL, promptfoo.promptfoo_version(tree)
        stamp.layout, stamp.original_id = promptfoo.layout_of(tree), promptfoo.original_id(tree)
        return promptfoo.import_promptfoo(tree, stamp, notes, on_progress)
    header = scrub(tree, "", notes) if lean.lenient else tree
    _stamp_inspect(stamp, header, "json")
    pairs = inspect_samples(lean.samples, notes if lean.lenient else None)
    return inspect_log.import_inspect(header, pairs, len(lean.samples), stamp, notes, on_progress)


def _read_otlp(
    data: bytes, name: str, stamp: common.Stamp, selection: otlp.Selection | None, on_progress: Progress | None
) -> records.Run:
    """OTLP JSON: one export, or one per line (a collector's file exporter)."""
    try:
        trees = [decode_json(data, name)[0]]
    except RunFileError:
        trees = [
            decode_json(line, name, where=f"line {i}: ")[0]
            for i, line in enumerate(data.splitlines(), 1)
            if line.strip()
        ]
    bad = next((i for i, tree in enumerate(trees, 1) if not otlp.is_otlp(tree)), None)
    if bad is not None:
        where = f"line {bad}" if len(trees) > 1 else "(file)"
        raise refused(name, "not OTLP JSON traces", f"{where}: not an object with a resourceSpans list")
    if selection is not None:
        stamp.digest = hashlib.sha256(f"{stamp.digest}\n{selection.key()}".encode()).hexdigest()
    stamp.tool, stamp.version, stamp.layout = otlp.TOOL, "unknown", "OTLP JSON traces (GenAI semantic conventions)"
    return otlp.import_otlp(trees, stamp, common.Notes(), selection, on_progress)


def _read_lm_eval(
    tree: dict[str, Any],
    folder: Path | None,
    name: str,
    max_bytes: int,
    stamp: common.Stamp,
    on_progress: Progress | None,
) -> records.Run:
    """An lm-evaluation-harness results file read with the samples files beside it (in ``folder``)."""
    if folder is None:
        raise lm_eval_files.alone_refused(name)
    chosen = lm_eval_files.samples_for(tree, stamp.file_name, [p.name for p in folder.iterdir() if p.is_file()])
    samples, budget = {}, max_bytes
    for task, file_name in chosen.items():
        data = _read(folder / file_name, str(folder / file_name), budget)
        budget -= len(data)
        samples[task] = (file_name, data)
    stamp.digest = lm_eval_files.digest_of_files(stamp.digest, samples)
    return _stamped_lm_eval(tree, samples, stamp, on_progress)


def _stamped_lm_eval(
    tree: dict[str, Any], samples: dict[str, tuple[str, bytes]], stamp: common.Stamp, on_progress: Progress | None
) -> records.Run:
    stamp.tool, stamp.version = lm_eval.TOOL, lm_eval.lm_eval_version(tree)
    stamp.layout, stamp.original_id = lm_eval.layout_of(tree), None
    return lm_eval.import_lm_eval(tree, samples, stamp, common.Notes(), on_progress)


def _read_zip(data: bytes, name: str, max_bytes: int, stamp: common.Stamp, on_progress: Progress | None) -> records.Run:
    archive = ZipArchive(data, name, max_bytes)
    names = archive.names()
    if detect.kind_of_zip(names) is None:
        found = lm_eval_files.results_entries(names)
        records_found = _eee_files.record_entries(names)
        if records_found and not found:
            return _eee_files.read_record_zip(archive, records_found, name, stamp, on_progress)
        if found:
            return _read_lm_eval_zip(archive, found, name, stamp, on_progress)
        raise detect.unknown_layout(name, detect.describe_zip(names))
    return _read_eval(archive, name, stamp, on_progress)


def _read_lm_eval_zip(
    archive: ZipArchive, entries: list[str], name: str, stamp: common.Stamp, on_progress: Progress | None
) -> records.Run:
    """A zip of an lm-evaluation-harness output folder: its one results file and the samples beside it."""
    runs = json_entries(archive, entries, name, lm_eval_files.is_results)
    if len(runs) != 1:
        raise lm_eval_files.zip_refused(name, [entry for entry, _ in runs] or entries)
    entry, tree = runs[0]
    folder, _, file_name = entry.rpartition("/")
    siblings = {n.rpartition("/")[2]: n for n in archive.names() if n.rpartition("/")[0] == folder}
    chosen = lm_eval_files.samples_for(tree, file_name, siblings)
    samples = {task: (file, archive.read(siblings[file])) for task, file in chosen.items()}
    return _stamped_lm_eval(tree, samples, stamp, on_progress)


def _read_eval(archive: ZipArchive, name: str, stamp: common.Stamp, on_progress: Progress | None) -> records.Run:
    names = archive.names()
    notes = common.Notes()
    entry = "header.json" if "header.json" in names else "_journal/start.json"
    header, lenient = decode_json(archive.read(entry), name, where=f"{entry}: ")
    header = scrub(header, entry, notes) if lenient else header
    if not isinstance(header, dict):
        raise refused(name, "not an Inspect log", f"{entry}: not a JSON object; an Inspect log's header is one")
    if entry != "header.json":  # the eval was still running, or was killed, when the file was copied
        header.setdefault("status", "started")
    _stamp_inspect(stamp, header, "eval")
    entries = inspect_log.sample_entries(names)

    def samples() -> Any:
        for sample_entry in entries:
            sample, lenient = decode_json(archive.read(sample_entry), name, where=f"{sample_entry}: ")
            if lenient:
                sample = scrub(sample, sample_entry, notes, inspect_log.NOT_IMPORTED)
            if isinstance(sample, dict):
                yield sample_entry, sample
            else:
                notes.add(f"{sample_entry}: not a JSON object; left out")

    return inspect_log.import_inspect(header, samples(), len(entries), stamp, notes, on_progress)


def _stamp_inspect(stamp: common.Stamp, header: dict[str, Any], log_format: str) -> None:
    stamp.tool, stamp.version = inspect_log.TOOL, inspect_log.inspect_version(header)
    stamp.layout = f"Inspect .{log_format} log (format version {header.get('version', '?')})"
    stamp.original_id = inspect_log.original_id(header)


def _read(source: str | os.PathLike[str] | bytes, name: str, max_bytes: int) -> bytes:
    if isinstance(source, bytes | bytearray):
        return bytes(source)
    try:
        with open(source, "rb") as f:
            raw = f.read(max_bytes + 1)
    except OSError as e:
        raise RunFileError(f"{name}: cannot read the file: {e.strerror or e}") from None
    if len(raw) > max_bytes:
        raise refused(name, "too large", f"(file): size exceeds the limit of {max_bytes:,} bytes; nothing was read")
    return raw


def source_label(run: records.Run) -> str | None:
    """What made a run, for a badge: ``promptfoo 0.121.20``, ``Inspect 0.3.95``; None when unknown."""
    tool = run.info.provenance.get("tool")
    if not isinstance(tool, dict) or not tool.get("name"):
        return None
    label = TOOL_NAMES.get(str(tool["name"]), str(tool["name"]))
    version = str(tool.get("version") or "")
    return f"{label} {version}" if version and version != "unknown" else label


def import_notes(run: records.Run) -> list[str]:
    """What an import changed or left out (NaN read as null, cancelled samples …); empty for a run file."""
    found = run.info.settings.get(common.IMPORT_KEY)
    notes = found.get("notes") if isinstance(found, dict) else None
    return [str(n) for n in notes] if isinstance(notes, list) else []
