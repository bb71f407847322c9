"""What ``evalcore import`` and ``evalcore merge`` need besides the store: the files a path names, reading
each with a progress bar, and what is printed of an import or a merge. The commands themselves are in
:mod:`~evalcore.cli.history`, with the other commands on the store's runs."""

from __future__ import annotations

import argparse
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from evalcore.cli._shared import open_run, open_store, store_holding, store_location

if TYPE_CHECKING:
    from evalcore.core.records import Run
    from evalcore.storage.history import StoredRun
    from evalcore.storage.store import Store

#: Notes of an import printed at most (the run's settings keep them all).
NOTES_SHOWN = 5
#: Cases left out of a merge that are named one by one; the rest are counted.
UNMATCHED_SHOWN = 10
BAR_WIDTH = 24


def targets(paths: list[Path]) -> list[tuple[Path, bool]]:
    """The files to import: each path given, and the files inside each folder given (``True``: from a folder)."""
    from evalcore.runfile.importers import iter_files, records_claimed
    from evalcore.runfile.importers.lm_eval import claimed

    found: list[tuple[Path, bool]] = []
    for path in paths:
        if path.is_dir():
            files = list(iter_files(path))
            # lm-eval and Every Eval Ever samples files: read with their results file or record
            read_with_results = claimed(files) | records_claimed(files)
            found += [(f, True) for f in files if f not in read_with_results]
        else:
            found.append((path, False))
    return found


class StoreOnDemand:
    """The store ``--db`` names, opened when there is a run to write to it, so a failed import creates no file a
    user did not ask for; should no run be written after all, the file (and the folders) it created go again."""

    def __init__(self, args: argparse.Namespace):
        self._args = args
        self._store: Store | None = None
        self._created: list[Path] = []
        #: Runs written to the store; the caller counts them.
        self.written = 0

    def store(self) -> Store:
        """The store, opened (and created when missing) on the first call."""
        if self._store is None:
            path = store_location(self._args).path
            if path is not None and not path.exists():
                self._created = [path, *(p for p in path.parents if not p.exists())]
            self._store = open_store(self._args, create=True)
        return self._store

    @property
    def created(self) -> bool:
        """Whether opening the store created its file."""
        return bool(self._created)

    def close(self) -> None:
        """Close the store; remove what it created when no run was written to it."""
        if self._store is None:
            return
        self._store.close()
        if self.written or not self._created:
            return
        path, *folders = self._created
        for leftover in (path, *(path.with_name(path.name + end) for end in ("-wal", "-shm", "-journal"))):
            leftover.unlink(missing_ok=True)
        for folder in folders:  # the deepest first; each is empty once what is inside it is gone
            folder.rmdir()


def read_with_bar(path: Path, quiet: bool, selection: Any = None) -> Run:
    """The run a file holds, read with a progress bar on a terminal unless ``quiet``; ``selection`` picks the
    model calls of a traces file."""
    from evalcore.runfile.importers import read_import

    bar = None if quiet else Bar(path.name)
    try:
        return read_import(path, on_progress=bar, selection=selection)
    finally:
        if bar is not None:
            bar.close()


def import_streaming(store: Store, path: Path, replace: bool) -> tuple[StoredRun, int] | None:
    """An evalcore run file stored as it streams (:func:`~evalcore.runfile.stream.import_run_file`): the stored
    run and its count of results; None when the file must be read whole (nothing was stored)."""
    from evalcore.runfile.stream import import_run_file
    from evalcore.storage.history import StoredRun

    streamed = import_run_file(store, path, replace=replace)
    if streamed is None:
        return None
    run, count = streamed
    return StoredRun(store, run.info.id), count


def report(run: Run | StoredRun, path: Path, n: int) -> None:
    """One line for an imported run of ``n`` results (with the tool that made it), why it did not complete and
    what results it lacks (:func:`~evalcore.analysis.tables.completeness.run_notes`), and the first of its
    import notes."""
    from evalcore.analysis.tables.completeness import completeness_of, run_notes
    from evalcore.runfile.importers import import_notes, source_label
    from evalcore.storage.history import header_of

    found = completeness_of(run)
    run = header_of(run)
    label = source_label(run)
    origin = f" from {path.name}" + (f" [{label}]" if label and not label.startswith("evalcore") else "")
    print(f"imported run {run.info.id} ({run.info.suite}, {n} {'result' if n == 1 else 'results'}){origin}")
    for warning in run_notes(run, found):
        print(f"  warning: {warning}")
    notes = import_notes(run)
    for note in notes[:NOTES_SHOWN]:
        print(f"  note: {note}")
    if len(notes) > NOTES_SHOWN:
        print(f"  … {len(notes) - NOTES_SHOWN} more notes in the run's settings (import.notes)")


class Bar:
    """A progress bar on stderr for a file's rows or samples, drawn in place on a terminal; nothing when
    stderr is not one (a log gets the one line the import prints)."""

    def __init__(self, label: str, stream: TextIO | None = None, every_s: float = 0.1):
        self.label = label
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.every_s = every_s
        self.started = time.monotonic()
        self.drawn_at = 0.0
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        clock = time.monotonic()
        if not self.tty or (clock - self.drawn_at < self.every_s and done < total):
            return
        self.drawn_at = clock
        self.stream.write("\r\x1b[2K" + format_bar(self.label, done, total, clock - self.started))
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()


def format_bar(label: str, done: int, total: int, elapsed_s: float) -> str:
    """``capitals.eval [############------------]  5,000/10,000  1.2s``."""
    share = done / total if total else 1.0
    filled = int(round(share * BAR_WIDTH))
    return f"{label} [{'#' * filled}{'-' * (BAR_WIDTH - filled)}] {done:>7,}/{total:<7,} {elapsed_s:5.1f}s"


def open_whole(ref: str, args: argparse.Namespace) -> Run:
    """A run with its cases and results: a file (of any kind ``import`` reads), or a stored run."""
    path = Path(ref)
    if path.is_file():
        from evalcore.runfile.importers import read_import

        return read_import(path)
    store = store_holding(ref, args)
    return store.load_run(store.resolve_run_id(ref))


def open_run_streamed(ref: str, args: argparse.Namespace, stack: ExitStack) -> Run | StoredRun:
    """:func:`~evalcore.cli._shared.open_run`, with a run file stored as it streams into a temporary store that
    ``stack`` removes: a big file is ranked from the store's packed numbers, never held as records. A file the
    stream does not vouch for (another tool's, or a run file with a problem, which the whole reader names) is
    read whole."""
    path = Path(ref)
    if not path.is_file():
        return open_run(ref, args)
    import tempfile

    from evalcore.runfile.stream import import_run_file
    from evalcore.storage.history import StoredRun
    from evalcore.storage.store import Store

    folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="evalcore-file-")))
    store = stack.enter_context(Store(folder / "run.sqlite"))
    streamed = import_run_file(store, path)
    if streamed is None:
        return open_run(ref, args)
    store.map_memory(False)  # the run is ranked once: its pages are read once
    return StoredRun(store, streamed[0].info.id)


def print_unmatched(unmatched: list[Any]) -> None:
    """The cases a merge left out, the first few by name."""
    if not unmatched:
        return
    print(f"left out {len(unmatched)} {'case' if len(unmatched) == 1 else 'cases'} not in every run:")
    for run_id, dataset, case in unmatched[:UNMATCHED_SHOWN]:
        print(f"  {run_id}: {dataset} / {case}")
    if len(unmatched) > UNMATCHED_SHOWN:
        print(f"  … and {len(unmatched) - UNMATCHED_SHOWN} more")
