"""A run's results as plain NumPy columns: who, which case, failed or not, and the numbers; no pandas.

The results frame (:mod:`evalcore.storage.frames`) also carries every case's dataset, variant and metadata
as categoricals and the aggregate metrics' labels: what a leaderboard filters and groups by. A comparison
of two runs needs none of that, and building it (and importing pandas to build it) is most of what a fresh
``evalcore compare`` process would spend. :class:`ResultColumns` is the part it needs, from any source:

- a stored run: :func:`read_columns`, from the same packed numbers the frame is read from;
- a run in memory (a run file): :func:`run_columns`, from the same rows the frame is built from;
- a frame already built (the app caches them): :func:`frame_columns`, from its codes.

An aggregate metric's labels (macro-F1's expected and predicted label per result) come along, as codes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from evalcore.core import records
from evalcore.core.errors import StoreError
from evalcore.storage import frame_read
from evalcore.storage.frames import (
    TAIL_FIELDS,
    LabelRows,
    float_fields,
    row_dtype,
    rows_table,
    run_rows,
)

if TYPE_CHECKING:
    import pandas as pd

    from evalcore.storage.store import Store


@dataclass(frozen=True)
class Labels:
    """One aggregate metric's labels, one entry per result: codes into :attr:`names`, -1 for none (a failed
    call, a result without labels, or a reply with no label in :attr:`got`)."""

    want: np.ndarray
    got: np.ndarray
    names: list[str]


@dataclass(frozen=True)
class ResultColumns:
    """One entry per result in each array, in no particular order.

    ``numbers`` holds the frame's float columns by the frame's names: ``score``, ``m_<metric>`` per declared
    metric, ``cost_usd``, ``latency_s``, ``input_tokens``, ``output_tokens`` (NaN for null).
    """

    contenders: list[str]
    """Contender ids, indexed by :attr:`contender`."""
    cases: list[tuple[str, str]]
    """(dataset, case id), indexed by :attr:`case`."""
    contender: np.ndarray
    """Each result's contender, as a position in :attr:`contenders`."""
    case: np.ndarray
    """Each result's case, as a position in :attr:`cases`."""
    sample: np.ndarray
    """Each result's sample (0 for the first answer to a case)."""
    is_error: np.ndarray
    """Whether each result is an error (its call failed): never scored."""
    numbers: dict[str, np.ndarray]
    labels: dict[str, Labels] = field(default_factory=dict)
    """Each aggregate metric's labels (:func:`evalcore.core.aggregates.aggregate_metrics`), by its name."""

    def __len__(self) -> int:
        return len(self.case)


def read_columns(store: Store, run_id: str) -> ResultColumns:
    """A stored run's results as columns: its packed numbers, its cases' keys and its labels (no metadata,
    no frame).

    Raises:
        StoreError: the run is unknown, or its packed numbers do not add up (a damaged store).
    """
    with store.transaction("DEFERRED") as conn:
        declared = frame_read.declared_metrics(conn, run_id)
        if declared is None:
            raise StoreError(f"no run {run_id!r} in this store")
        metrics = [m.name for m in declared]
        contenders = frame_read.contender_ids(conn, run_id)
        cases = conn.execute("SELECT dataset, id FROM cases WHERE run_id = ? ORDER BY position", (run_id,)).fetchall()
        chunks = frame_read.number_chunks(conn, run_id, metrics)
        labels = frame_read.all_labels(conn, run_id, declared)
    dtype = row_dtype(metrics)
    columns = columns_from_tables([np.frombuffer(c, dtype=dtype) for c in chunks], contenders, cases, metrics)
    return _with_labels(columns, labels)


def run_columns(run: records.Run) -> ResultColumns:
    """An in-memory run's results as columns (the same rows :func:`evalcore.storage.frames.results_frame` reads).

    Raises:
        ValueError: a result names a contender or case the run does not hold.
    """
    rows, labels = run_rows(run)
    names = [m.name for m in run.metrics]
    columns = columns_from_tables(
        [rows_table(rows, names, len(rows))], [c.id for c in run.contenders], [c.key for c in run.cases], names
    )
    return _with_labels(columns, labels)


def columns_from_tables(
    tables: Sequence[np.ndarray], contenders: list[str], cases: Sequence[tuple[str, str]], metrics: Sequence[str]
) -> ResultColumns:
    """Columns from structured arrays of :func:`evalcore.storage.frames.row_dtype` rows."""

    def joined(field: str, dtype: Any) -> np.ndarray:
        if not tables:
            return np.empty(0, dtype=dtype)
        return np.concatenate([t[field] for t in tables]).astype(dtype, copy=False)

    return ResultColumns(
        contenders=contenders,
        cases=[(str(d), str(c)) for d, c in cases],
        contender=joined("contender_code", np.int64),
        case=joined("case_code", np.int64),
        sample=joined("sample", np.int64),
        is_error=joined("is_error", np.int64) != 0,
        numbers={name: joined(name, np.float64) for name in float_fields(metrics)},
    )


def frame_columns(frame: pd.DataFrame) -> ResultColumns:
    """A results frame's columns (:func:`evalcore.storage.frames.results_frame`'s layout), from its codes."""
    import pandas as pd

    contender = frame["contender"]
    if isinstance(contender.dtype, pd.CategoricalDtype):
        contender_codes, contenders = contender.cat.codes.to_numpy(np.int64), [str(c) for c in contender.cat.categories]
    else:
        codes, uniques = pd.factorize(contender.astype(str))
        contender_codes, contenders = np.asarray(codes, dtype=np.int64), [str(c) for c in uniques]
    case_codes, cases = _case_codes(frame["dataset"], frame["case"])
    names = ["score", *(c for c in frame.columns if c.startswith("m_")), *TAIL_FIELDS]
    numbers = {
        name: frame[name].to_numpy(dtype=float, na_value=np.nan)
        if name in frame.columns
        else np.full(len(frame), np.nan)
        for name in names
    }
    labels = {}
    for want_column in (c for c in frame.columns if c.startswith("want_")):
        got_column = f"got_{want_column.removeprefix('want_')}"
        if got_column in frame.columns:
            labels[want_column.removeprefix("want_")] = label_codes(frame[want_column], frame[got_column])
    return ResultColumns(
        contenders=contenders,
        cases=cases,
        contender=contender_codes,
        case=case_codes,
        sample=frame["sample"].to_numpy(dtype=np.int64),
        is_error=(frame["status"] == "error").to_numpy(dtype=bool),
        numbers=numbers,
        labels=labels,
    )


def _case_codes(dataset: pd.Series, case: pd.Series) -> tuple[np.ndarray, list[tuple[str, str]]]:
    """Each row's case as a code, and each code's (dataset, case id); from the categoricals' codes when the
    columns are categoricals, so each distinct case's names are read once, not once per row."""
    import pandas as pd

    if isinstance(dataset.dtype, pd.CategoricalDtype) and isinstance(case.dtype, pd.CategoricalDtype):
        width = len(case.cat.categories)
        joint = dataset.cat.codes.to_numpy(np.int64) * width + case.cat.codes.to_numpy(np.int64)
        distinct, codes = np.unique(joint, return_inverse=True)
        names = np.asarray(dataset.cat.categories, dtype=object), np.asarray(case.cat.categories, dtype=object)
        keys = [(str(names[0][j // width]), str(names[1][j % width])) for j in distinct.tolist()]
        return codes.reshape(-1).astype(np.int64), keys
    codes, uniques = pd.factorize(pd.MultiIndex.from_arrays([dataset.astype(str), case.astype(str)]))
    return np.asarray(codes, dtype=np.int64), [(str(d), str(c)) for d, c in uniques]


def _with_labels(columns: ResultColumns, found: dict[str, LabelRows]) -> ResultColumns:
    """``columns`` with each aggregate metric's labelled results (keyed by contender, case and sample) aligned
    to its rows."""
    if not found:
        return columns
    span = 1 + max(
        [int(columns.sample.max(initial=0)), *(max((k[2] for k in rows[0]), default=0) for rows in found.values())]
    )
    n_cases = max(len(columns.cases), 1)
    row_key = (columns.contender * n_cases + columns.case) * span + columns.sample
    order = np.argsort(row_key, kind="stable")
    labels = {}
    for name, (keys, want, got) in found.items():
        names = sorted({*want, *(g for g in got if g is not None)})
        code = {label: i for i, label in enumerate(names)}
        want_codes, got_codes = np.full(len(columns), -1, np.int64), np.full(len(columns), -1, np.int64)
        if len(keys) and len(row_key):
            k = np.asarray(keys, dtype=np.int64).reshape(-1, 3)
            label_key = (k[:, 0] * n_cases + k[:, 1]) * span + k[:, 2]
            found_at = order[np.minimum(np.searchsorted(row_key[order], label_key), len(order) - 1)]
            hit = row_key[found_at] == label_key
            want_codes[found_at[hit]] = np.asarray([code[w] for w in want], dtype=np.int64)[hit]
            got_codes[found_at[hit]] = np.asarray([-1 if g is None else code[g] for g in got], dtype=np.int64)[hit]
        labels[name] = Labels(want_codes, got_codes, names)
    return ResultColumns(**{**columns.__dict__, "labels": labels})


def label_codes(want: pd.Series, got: pd.Series) -> Labels:
    """A results frame's two label columns of one aggregate metric (categoricals, NaN for none) as
    :class:`Labels`: codes into the labels of both, sorted."""
    want, got = want.astype("category"), got.astype("category")
    names = sorted({str(v) for v in want.cat.categories} | {str(v) for v in got.cat.categories})
    index = {label: i for i, label in enumerate(names)}

    def codes(column: pd.Series) -> np.ndarray:
        recode = np.asarray([index[str(v)] for v in column.cat.categories] + [-1], dtype=np.int64)
        return recode[column.cat.codes.to_numpy(np.int64)]  # code -1 (no label) picks the last entry, -1

    return Labels(codes(want), codes(got), names)
