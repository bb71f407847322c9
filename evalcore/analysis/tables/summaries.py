"""A run's leaderboard summary, kept in the store: open a run of a million results without reading them.

What the leaderboard of a whole run needs before any weight is applied (the aggregates and bootstrap
resamples of :func:`evalcore.analysis.tables.view.prepare_view`, and the values each filter offers) depends on the
results alone. Reading and resampling every result is most of what opening a big run costs; its summary
is a few megabytes of numbers. :func:`write_summary` computes and saves it when a run finishes or is
imported; :func:`read_summary` returns it while the run's results are still the ones it was computed from
(the store counts every change, see :meth:`evalcore.storage.store.Store.save_summary`), else None, and the
leaderboard is computed from the results.

The summary is what :func:`~evalcore.analysis.tables.view.prepare_view` returned, every array and column kept
as its raw bytes (a test ranks both under many weights and compares): on the machine that computed it, a
number on a page is the same whichever path it took (another machine may differ in the last bits, see
:mod:`evalcore.analysis.stats.resampling`). It is stored as a JSON header and raw arrays of numbers
(:func:`pack`): reading one builds numbers and text, never objects, so a store from elsewhere cannot run
code. :func:`evalcore.analysis.tables.runs.prepare_run` decides between a summary and the results.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from evalcore.analysis.ranking.leaderboard import Prepared, PreparedView
from evalcore.analysis.stats.resampling import Resampled
from evalcore.analysis.tables.view import filter_options, prepare_view
from evalcore.core.errors import EvalcoreError
from evalcore.core.metric_set import MetricSet
from evalcore.core.version import __version__

if TYPE_CHECKING:
    from evalcore.storage.store import Store

logger = logging.getLogger(__name__)

B = 1000
#: The summary's kind in the store: what it holds, its layout's version, the bootstrap's settings and
#: evalcore's version (a release never reads an older one's). Change the layout's version whenever what
#: :func:`prepare_view` computes changes between releases.
KIND = f"leaderboard/7/B={B}/seed=0/evalcore={__version__}"


@dataclass
class Summary:
    """A whole run's prepared leaderboard (no filters) and the values each filter offers."""

    #: What :func:`~evalcore.analysis.tables.view.prepare_view` returns for the whole run, with intervals.
    prepared: PreparedView
    #: :func:`~evalcore.analysis.tables.view.filter_options` of the run's results.
    options: dict[str, Any]


def summarize(frame: pd.DataFrame, metric_set: MetricSet) -> Summary:
    """The summary of a run's results frame."""
    return Summary(prepare_view(frame, metric_set, ci=True, B=B), filter_options(frame))


def write_summary(store: Store, run_id: str, *, wait: float | None = None) -> Summary | None:
    """Compute a stored run's summary and save it; returns it, or None when the run has no results.

    Saving is skipped (and logged) when results arrived while it was computed or the store stayed busy
    for ``wait`` seconds: the summary would not be the run's.

    Raises:
        StoreError: the run is unknown.
    """
    frame, changes = store.load_results_frame_and_changes(run_id)
    if frame.empty:
        return None
    from evalcore.analysis.ranking.leaderboard import samples_in

    header = store.load_run(run_id, results=False)
    asked = header.info.settings.get("samples")  # as evalcore.analysis.tables.runs.samples_of reads it
    samples = asked if isinstance(asked, int) and not isinstance(asked, bool) and asked >= 1 else samples_in(frame)
    summary = summarize(frame, MetricSet.of(header.metrics, samples))
    save_summary(store, run_id, changes, summary, wait=wait)
    return summary


def refresh_summary(store: Store, run_id: str) -> None:
    """:func:`write_summary` at the end of a run or an import: a failure is logged, never raised (the run
    is stored either way, and a page computes the leaderboard from the results without a summary)."""
    try:
        write_summary(store, run_id)
    except EvalcoreError as e:
        logger.warning("summary of run %s not written: %s", run_id, e)


def save_summary(store: Store, run_id: str, changes: int, summary: Summary, *, wait: float | None = None) -> bool:
    """Save a summary computed from a run's results at ``changes`` (see :meth:`Store.save_summary`)."""
    saved = store.save_summary(run_id, KIND, changes, pack(summary), wait=wait)
    if not saved:
        logger.info("summary of run %s not saved: its results changed, or the store was busy", run_id)
    return saved


def read_summary(store: Store, run_id: str) -> Summary | None:
    """The run's saved summary while its results are unchanged; None when there is none to trust."""
    data = store.load_summary(run_id, KIND)
    if data is None:
        return None
    try:
        return unpack(data)
    except (ValueError, KeyError, TypeError, IndexError) as e:
        logger.warning("summary of run %s is unreadable (%s): computing the leaderboard from the results", run_id, e)
        return None


# --- the format -----------------------------------------------------------------------------------

#: A packed summary starts with this, then the header's length (8 bytes, little-endian), the header (JSON:
#: the layout, text columns, and each array's dtype, shape and place) and the arrays' bytes.
MAGIC = b"evalcore-summary/1\n"
#: The only dtypes an array may have: numbers, never objects.
DTYPES = frozenset({"<f8", "<i8", "|b1"})


def pack(summary: Summary) -> bytes:
    """A summary as bytes: a JSON header saying how the arrays fit together, then the arrays' raw bytes."""
    arrays: list[np.ndarray] = []
    layout = {
        "options": summary.options,
        "ci": summary.prepared.ci,
        "overall": _pack_prepared(summary.prepared.overall, arrays),
        "by_dataset": _pack_prepared(summary.prepared.by_dataset, arrays),
    }
    places, offset = [], 0
    for array in arrays:
        places.append({"dtype": array.dtype.str, "shape": list(array.shape), "offset": offset})
        offset += array.nbytes
    header = json.dumps({"layout": layout, "arrays": places}).encode()
    return b"".join([MAGIC, len(header).to_bytes(8, "little"), header, *(a.tobytes() for a in arrays)])


def unpack(data: bytes) -> Summary:
    """The summary :func:`pack` packed.

    Raises:
        ValueError, KeyError, TypeError: not such a summary, or a damaged one.
    """
    if not data.startswith(MAGIC):
        raise ValueError("not an evalcore summary")
    start = len(MAGIC) + 8
    size = int.from_bytes(data[len(MAGIC) : start], "little")
    header = json.loads(data[start : start + size])
    body = memoryview(data)[start + size :]
    arrays = []
    for place in header["arrays"]:
        if place["dtype"] not in DTYPES:
            raise ValueError(f"array of dtype {place['dtype']!r}")
        dtype, shape = np.dtype(place["dtype"]), tuple(place["shape"])
        arrays.append(np.frombuffer(body, dtype, int(np.prod(shape)), place["offset"]).reshape(shape))
    layout = header["layout"]
    prepared = PreparedView(
        _unpack_prepared(layout["overall"], arrays), _unpack_prepared(layout["by_dataset"], arrays), bool(layout["ci"])
    )
    return Summary(prepared, layout["options"])


def _pack_prepared(prepared: Prepared, arrays: list[np.ndarray]) -> dict[str, Any]:
    def add(array: np.ndarray) -> int:
        arrays.append(np.ascontiguousarray(array))
        return len(arrays) - 1

    columns = []
    for name, column in prepared.table.items():
        numeric = pd.api.types.is_numeric_dtype(column.dtype)
        entry = {"name": name, "dtype": str(column.dtype)}
        # Text (contender, dataset) goes in the header: a leaderboard table has no missing name.
        entry.update({"array": add(column.to_numpy())} if numeric else {"text": [str(v) for v in column]})
        columns.append(entry)
    resampled = [
        {
            "dataset": dataset,
            "contenders": [str(c) for c in part.contenders],
            "tables": {name: add(table) for name, table in part.tables.items()},
            "binomial": {name: add(bounds) for name, bounds in part.binomial.items()},
            "cases": {name: add(numbers) for name, numbers in part.cases.items()},
        }
        for dataset, part in prepared.resampled
    ]
    return {"columns": columns, "rows": len(prepared.table), "resampled": resampled}


def _unpack_prepared(layout: dict[str, Any], arrays: list[np.ndarray]) -> Prepared:
    table = pd.DataFrame(
        {
            c["name"]: pd.Series(c["text"] if "text" in c else arrays[c["array"]], dtype=c["dtype"])
            for c in layout["columns"]
        },
        index=pd.RangeIndex(layout["rows"]),
    )
    resampled = [
        (
            part["dataset"],
            Resampled(
                np.array(part["contenders"], dtype=object),
                {name: arrays[i] for name, i in part["tables"].items()},
                {name: arrays[i] for name, i in part["binomial"].items()},
                {name: arrays[i] for name, i in part["cases"].items()},
            ),
        )
        for part in layout["resampled"]
    ]
    return Prepared(table, resampled)
