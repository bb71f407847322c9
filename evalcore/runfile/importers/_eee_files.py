"""Which files make one Every Eval Ever record: the aggregate ``<uuid>.json`` and the ``<uuid>_samples.jsonl``
it names (``detailed_evaluation_results``), beside it in a folder or a zip; and the lines that refuse a samples
file read alone or a samples file that is not the one the record was written with.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evalcore.core import records
from evalcore.core.errors import RunFileError
from evalcore.runfile.importers import _common as common
from evalcore.runfile.importers import eee
from evalcore.runfile.importers._source import ZipArchive, json_entries
from evalcore.runfile.importers.detect import UnknownLayoutError, describe_zip, unknown_layout

Progress = Callable[[int, int], None]
Reader = Callable[[Any, str, int], bytes]


def read_record(
    tree: dict[str, Any],
    folder: Path | None,
    name: str,
    max_bytes: int,
    stamp: common.Stamp,
    on_progress: Progress | None,
    read: Reader,
) -> records.Run:
    """An aggregate record read with the samples file beside it in ``folder`` (None: an upload of the record
    alone, imported aggregate only)."""
    eee.check_record(tree, name)
    notes = common.Notes()
    wanted = eee.samples_name(tree, stamp.file_name)
    samples = None
    path = folder / wanted if folder is not None else None
    if path is not None and path.is_file():
        samples = (wanted, read(path, str(path), max_bytes))
    else:
        _note_missing(tree, wanted, folder is None, notes)
    return _import(tree, samples, name, stamp, notes, on_progress)


def read_record_zip(
    archive: ZipArchive, entries: list[str], name: str, stamp: common.Stamp, on_progress: Progress | None
) -> records.Run:
    """A zip of a record's folder: its one aggregate record and the samples file beside it."""
    found = json_entries(archive, entries, name, eee.is_record)
    if not found:
        raise unknown_layout(name, describe_zip(archive.names()))
    if len(found) != 1:
        shown = ", ".join(e for e, _ in found[:5]) or ", ".join(entries[:5])
        raise RunFileError(
            f"{name}: not one Every Eval Ever record",
            problems=[
                f"(file): found {len(found)} records ({shown}); a zip holds one record and its samples file: "
                "zip each record's folder alone, or import the folder on the command line"
            ],
        )
    entry, tree = found[0]
    eee.check_record(tree, f"{name}: {entry}")
    notes = common.Notes()
    folder, _, file_name = entry.rpartition("/")
    wanted = eee.samples_name(tree, file_name)
    inside = f"{folder}/{wanted}" if folder else wanted
    samples = (wanted, archive.read(inside)) if inside in archive.names() else None
    if samples is None:
        _note_missing(tree, wanted, False, notes)
    stamp.file_name = file_name
    return _import(tree, samples, name, stamp, notes, on_progress)


def _import(
    tree: dict[str, Any],
    samples: tuple[str, bytes] | None,
    name: str,
    stamp: common.Stamp,
    notes: common.Notes,
    on_progress: Progress | None,
) -> records.Run:
    if samples is not None:
        _check_sum(tree, samples, name)
        whole = hashlib.sha256(stamp.digest.encode())
        whole.update(hashlib.sha256(samples[1]).digest())
        stamp.digest = whole.hexdigest()
    stamp.tool, stamp.version = eee.TOOL, str(tree.get("schema_version"))
    stamp.layout = eee.layout_of(tree, samples is not None)
    stamp.original_id = str(tree.get("evaluation_id")) if tree.get("evaluation_id") is not None else None
    return eee.import_eee(tree, samples, stamp, notes, on_progress)


def _note_missing(tree: dict[str, Any], wanted: str, upload: bool, notes: common.Notes) -> None:
    """A note when the record names a samples file that is not here: its results are imported aggregate only."""
    if not common.obj(tree.get("detailed_evaluation_results")):
        return
    how = "upload a zip of the folder holding both" if upload else "keep it beside the record"
    notes.add(
        f"detailed_evaluation_results: {wanted} is not beside the record; its results are imported as aggregates "
        f"only ({how} to import the per-item results)"
    )


def _check_sum(tree: dict[str, Any], samples: tuple[str, bytes], name: str) -> None:
    """Refuse a samples file whose checksum is not the one the record states: its items are not the record's."""
    details = common.obj(tree.get("detailed_evaluation_results"))
    algorithm, stated = details.get("hash_algorithm"), details.get("checksum")
    if algorithm not in ("sha256", "md5") or not isinstance(stated, str) or not stated:
        return
    actual = hashlib.new(str(algorithm), samples[1]).hexdigest()
    if actual.lower() != stated.lower():
        raise RunFileError(
            f"{name}: its samples file {samples[0]} is not the one it was written with",
            problems=[
                f"detailed_evaluation_results.checksum: the record states {algorithm} {stated}, the file has "
                f"{actual}; put the record's own samples file beside it (or write both again)"
            ],
        )


def records_claimed(paths: list[Any]) -> set[Any]:
    """The samples files among ``paths`` (of a folder) read with the aggregate record beside them."""
    names = {(p.parent, p.name) for p in paths}
    return {
        p
        for p in paths
        if p.name.endswith(eee.SAMPLES_SUFFIX) and (p.parent, p.name[: -len(eee.SAMPLES_SUFFIX)] + ".json") in names
    }


def record_entries(names: list[str]) -> list[str]:
    """A zip's ``.json`` entries that may be EEE records: those beside a samples file, else every ``.json``."""
    beside = [n[: -len(eee.SAMPLES_SUFFIX)] + ".json" for n in names if n.endswith(eee.SAMPLES_SUFFIX)]
    found = [n for n in beside if n in names]
    return found or [n for n in names if n.endswith(".json")]


def samples_refused(name: str) -> UnknownLayoutError:
    """The error for a samples file read on its own: the model and the metrics are in its aggregate record."""
    return UnknownLayoutError(
        f"{name}: an Every Eval Ever samples file on its own",
        problems=[
            "(file): found instance-level records (JSON Lines with sample_id); the model's details and the "
            "metrics' directions and ranges are in the aggregate <uuid>.json written with it: import that file, "
            "or the folder holding both (evalcore import FOLDER)"
        ],
    )
