"""Which files make one lm-evaluation-harness run, told from their names as lm-eval writes them, and the
lines that refuse a part read without the rest.

A results file ``results_<time>.json`` and the samples files ``samples_<task>_<time>.jsonl`` of the same time
are one run (:mod:`~evalcore.runfile.importers.lm_eval` reads them). A folder holding them is imported one run
per results file (:func:`claimed` names the samples files a results file reads); a zip of such a folder is an
upload of it; a results file or a samples file alone is refused with a line saying what to send instead.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from typing import Any

from evalcore.core.errors import RunFileError
from evalcore.runfile.importers.detect import UnknownLayoutError

#: ``samples_<task>_<time>.jsonl``; lm-eval's time is ``2026-01-16T16-59-59.899345``.
SAMPLES_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<time>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.jsonl$")
#: The time at the end of a results file's name (``results_<time>.json``, or a renamed ``<anything>_<time>.json``).
RESULTS_TIME = re.compile(r"_(?P<time>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.json$")


def is_results(tree: Any) -> bool:
    """Whether a parsed JSON file is an lm-evaluation-harness results file."""
    return (
        isinstance(tree, dict)
        and isinstance(tree.get("results"), dict)
        and isinstance(tree.get("config"), dict)
        and ("configs" in tree or "versions" in tree)
    )


def is_samples_name(name: str) -> bool:
    """Whether a file's name is that of an lm-evaluation-harness samples file."""
    return SAMPLES_NAME.match(name) is not None


def samples_time(name: str) -> str | None:
    """The time in a samples file's name, or None."""
    found = SAMPLES_NAME.match(name)
    return found["time"] if found else None


def results_time(name: str) -> str | None:
    """The time at the end of a results file's name (the samples files of its run carry the same), or None."""
    found = RESULTS_TIME.search(name)
    return found["time"] if found else None


def samples_for(tree: dict[str, Any], results_name: str, names: Iterable[str]) -> dict[str, str]:
    """Which of ``names`` are the samples files of a results file: task → file name.

    A samples file belongs to it when its task is one of the file's tasks and its time is the results file's;
    when the results file's name holds no time (renamed), a task's only samples file is taken.
    """
    tasks = set(tasks_of(tree))
    time = results_time(results_name)
    found: dict[str, list[str]] = {}
    for name in sorted(names):
        match = SAMPLES_NAME.match(name)
        if match and match["task"] in tasks and (time is None or match["time"] == time):
            found.setdefault(match["task"], []).append(name)
    return {task: files[0] for task, files in found.items() if len(files) == 1 or time is not None}


def claimed(paths: list[Any]) -> set[Any]:
    """The samples files among ``paths`` (of a folder) that a results file among them reads: a folder is
    imported one run per results file, never one per samples file."""
    times = {(p.parent, results_time(p.name)) for p in paths if p.name.endswith(".json") and results_time(p.name)}
    return {p for p in paths if is_samples_name(p.name) and (p.parent, samples_time(p.name)) in times}


def is_samples_data(data: bytes) -> bool:
    """Whether a file's bytes are an lm-evaluation-harness samples file (JSON Lines whose first record has a
    ``doc_id`` and the requests or replies of a document)."""
    if b'"doc_id"' not in data[:256]:  # lm-eval writes doc_id first; other files are not parsed twice
        return False
    end = data.find(b"\n")
    try:
        record = json.loads(data[: end if end >= 0 else len(data)])
    except (json.JSONDecodeError, UnicodeDecodeError):
        return False
    return isinstance(record, dict) and "doc_id" in record and ("resps" in record or "arguments" in record)


def samples_refused(name: str) -> UnknownLayoutError:
    """The error for a samples file read on its own: the model and the task's config are in its results file."""
    return UnknownLayoutError(
        f"{name}: an lm-evaluation-harness samples file on its own",
        problems=[
            "(file): found one task's per-document samples (JSON Lines with doc_id); the model and the metrics' "
            "directions are in the results_<time>.json written with it: import that file, or the folder holding "
            "both (evalcore import FOLDER)"
        ],
    )


def alone_refused(name: str) -> RunFileError:
    """The error for a results file whose samples files cannot be reached (an upload of the file alone)."""
    return RunFileError(
        f"{name}: an lm-evaluation-harness results file without its samples",
        problems=[
            "(file): the per-document samples are in the samples_<task>_<time>.jsonl files written beside it "
            "(lm_eval --log_samples); upload a zip of the folder holding them, or import the folder on the "
            "command line: evalcore import FOLDER"
        ],
    )


def results_entries(names: list[str]) -> list[str]:
    """A zip's ``.json`` entries that sit beside lm-evaluation-harness samples files (results files, perhaps)."""
    folders = {n.rpartition("/")[0] for n in names if is_samples_name(n.rpartition("/")[2])}
    return [n for n in names if n.endswith(".json") and n.rpartition("/")[0] in folders]


def zip_refused(name: str, entries: list[str]) -> RunFileError:
    """The error for a zip holding no lm-eval results file, or several (one run per upload)."""
    shown = ", ".join(entries[:5]) + (f" and {len(entries) - 5} more" if len(entries) > 5 else "")
    what = (
        f"{len(entries)} lm-evaluation-harness results files ({shown})"
        if len(entries) > 1
        else f"no results file ({shown})"
    )
    return RunFileError(
        f"{name}: not one lm-evaluation-harness run",
        problems=[f"(file): found {what} beside samples files; a zip holds one run: zip each results folder alone"],
    )


def digest_of_files(results_digest: str, samples: dict[str, tuple[str, bytes]]) -> str:
    """The SHA-256 that names a run read from several files: of the results file's hash and each samples file's."""
    whole = hashlib.sha256(results_digest.encode())
    for task in sorted(samples):
        file_name, data = samples[task]
        whole.update(f"\n{task}\n{file_name}\n".encode())
        whole.update(hashlib.sha256(data).digest())
    return whole.hexdigest()


def tasks_of(tree: dict[str, Any]) -> list[str]:
    """The tasks of a results file: its ``configs``, else its ``results`` that are not groups."""
    configs, results, groups = (_object(tree.get(key)) for key in ("configs", "results", "groups"))
    return list(configs) or [t for t in results if t not in groups]


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
