"""Results paid for that the store could not take: kept in a file until ``evalcore run --resume`` stores them.

A run whose store went away and stayed away (:mod:`evalcore.execution.writer`) writes the rows it could not
store to ``<run id>.jsonl`` in :func:`unsaved_dir`: one JSON array per row, in the store's
:data:`~evalcore.storage.rows.RESULT_FIELDS` order, a bytes value as ``{"base64": "…"}``. The file is appended
to, so a resumed run that loses its store again adds to it; :func:`store_unsaved` stores every row (a later
row for a key replaces an earlier one, as in the store) and then deletes the file.
"""

from __future__ import annotations

import base64
import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalcore.core.errors import StoreError

if TYPE_CHECKING:
    from evalcore.storage.store import Store

logger = logging.getLogger(__name__)

#: Where the files are kept, when set; else ``$XDG_STATE_HOME/evalcore/unsaved`` (``~/.local/state/…``).
UNSAVED_DIR_ENV = "EVALCORE_UNSAVED_DIR"


def unsaved_dir() -> Path:
    """The folder of the files of unsaved results: ``$EVALCORE_UNSAVED_DIR``, else
    ``$XDG_STATE_HOME/evalcore/unsaved``, else ``~/.local/state/evalcore/unsaved``."""
    named = os.environ.get(UNSAVED_DIR_ENV)
    if named:
        return Path(named)
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "evalcore" / "unsaved"


def unsaved_path(run_id: str) -> Path:
    """The file that keeps a run's unsaved results."""
    return unsaved_dir() / f"{run_id}.jsonl"


def keep_unsaved(run_id: str, result_rows: Sequence[tuple]) -> Path:
    """Append rows the store could not take to the run's file; returns its path.

    Raises:
        OSError: the file cannot be written (the caller names the rows as lost).
    """
    path = unsaved_path(run_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(list(row), default=_encode) + "\n" for row in result_rows)
    with path.open("a", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    return path


def store_unsaved(store: Store, run_id: str) -> tuple[int, Path] | None:
    """Store the rows a run kept in its file, then delete the file; None when it has none.

    Returns:
        How many rows were stored, and the file they came from.

    Raises:
        StoreError: the store refused them, or a line of the file is not a row (the file is kept).
    """
    path = unsaved_path(run_id)
    if not path.is_file():
        return None
    kept = []
    for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        try:
            kept.append(tuple(json.loads(line, object_hook=_decode)))
        except ValueError as e:  # a write cut short (the process was killed while it wrote)
            raise StoreError(
                f"{path}: line {n} is not a result's row ({e}); move the file away to resume without its results"
            ) from None
    for start in range(0, len(kept), 1000):
        store.add_rows(kept[start : start + 1000])
    path.unlink()
    logger.info("stored %d results of run %s kept in %s", len(kept), run_id, path)
    return len(kept), path


def _encode(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"base64": base64.b64encode(value).decode("ascii")}
    raise TypeError(f"a result's row holds a {type(value).__name__}, which the file of unsaved results cannot keep")


def _decode(obj: dict[str, Any]) -> Any:
    return base64.b64decode(obj["base64"]) if set(obj) == {"base64"} else obj
