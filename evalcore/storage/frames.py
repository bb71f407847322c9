"""A run's results as columns, one entry per result: the results frame every leaderboard is computed from,
and the same numbers as plain NumPy columns (:class:`ResultColumns`) for what needs no frame.

The frame's columns, in order: ``contender, dataset, case, variant, sample, status, error_kind, score``, one
``m_<metric>`` per declared metric, ``cost_usd, latency_s, input_tokens, output_tokens``, then one
``meta_<key>`` per metadata key of the run's cases (first appearance order), then, for each aggregate metric
of the run (:func:`evalcore.core.aggregates.aggregate_metrics`: a classification scorer's macro-F1), its two
label columns ``want_<metric>, got_<metric>`` (categoricals; NaN for a result with no label: an error, or a
reply with none in ``got``). Numbers are float64 with NaN for null (``sample`` is int64); names are
categoricals; rows are sorted by contender, case (both in the run's order) and sample.

:func:`results_frame` builds it from an in-memory run (an uploaded run file); ``Store.load_results_frame``
builds the same frame from SQLite (:func:`assemble`). Both start from the same packed rows
(:mod:`evalcore.storage.packed`), so their columns and dtypes cannot drift apart.

:class:`ResultColumns` holds who, which case, failed or not, the numbers and the aggregate metrics' labels
as codes, without the cases' dataset, variant and metadata as categoricals: what a comparison of two runs
reads, from a stored run (:func:`read_columns`), a run in memory (:func:`run_columns`) or a frame already
built (:func:`frame_columns`). pandas is imported by the functions that build or read a frame only, so a
comparison (``evalcore compare``) never loads it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from evalcore.core import records
from evalcore.core.errors import StoreError
from evalcore.storage import packed
from evalcore.storage.packed import (
    HEAD_FIELDS,
    TAIL_FIELDS,
    CaseRow,
    FrameParts,
    LabelRows,
    float_fields,
    row_dtype,
    rows_table,
    run_rows,
)

if TYPE_CHECKING:
    import pandas as pd

    from evalcore.core.metric_set import MetricSet
    from evalcore.storage.connection import StoreConnection

STATUSES = ("scored", "error")


def results_frame(run: records.Run, metric_set: MetricSet | None = None) -> pd.DataFrame:
    """The results of an in-memory run as a DataFrame (see the module docstring for its shape); ``metric_set``:
    the run's, when the caller holds it (none: derived from the run's metrics).

    Raises:
        ValueError: a result names a contender or case the run does not hold.
    """
    rows, labels = run_rows(run, metric_set)
    cases = [(c.dataset, c.id, c.variant, c.metadata) for c in run.cases]
    names = [m.name for m in run.metrics]
    return build_frame(rows, [c.id for c in run.contenders], cases, names, count=len(rows), labels=labels)


def _label_columns(labels: dict[str, LabelRows], ints: Any, n_cases: int) -> dict[str, Any]:
    """The label columns of each aggregate metric (see the module docstring), aligned with the sorted rows.

    Args:
        labels: aggregate metric name → its labelled results.
        ints: the frame's sorted int fields (:data:`_INT_FIELDS`): contender and case positions, sample.
        n_cases: how many cases the run has.
    """
    import pandas as pd

    contender, case, sample = ints[0], ints[1], ints[2]
    keyed = {name: np.asarray(keys, dtype=np.int64).reshape(-1, 3) for name, (keys, _, _) in labels.items()}
    span = 1 + max([int(sample.max(initial=0)), *(int(k[:, 2].max(initial=0)) for k in keyed.values())])
    row_key = (contender * n_cases + case) * span + sample
    order = np.argsort(row_key, kind="stable")
    columns = {}
    for name, (_, want, got) in labels.items():
        where = np.full(len(row_key), -1, dtype=np.int64)
        k = keyed[name]
        if len(k) and len(row_key):
            label_key = (k[:, 0] * n_cases + k[:, 1]) * span + k[:, 2]
            found = order[np.minimum(np.searchsorted(row_key[order], label_key), len(order) - 1)]
            hit = row_key[found] == label_key
            where[found[hit]] = np.flatnonzero(hit)
        for column, values in ((f"want_{name}", want), (f"got_{name}", got)):
            per_label = pd.Categorical(values)  # sorted categories; None has code -1
            codes = np.full(len(row_key), -1, dtype=np.int64)
            codes[where >= 0] = per_label.codes[where[where >= 0]]
            columns[column] = pd.Categorical.from_codes(codes, categories=per_label.categories)
    return columns


def build_frame(
    rows: Iterable[tuple],
    contenders: Sequence[str],
    cases: Sequence[CaseRow],
    metric_names: Sequence[str],
    count: int = -1,
    labels: dict[str, LabelRows] | None = None,
) -> pd.DataFrame:
    """Assemble the results frame from row tuples.

    Args:
        rows: one tuple per result (a list, or a cursor: rows are consumed one by one, never
            all held as tuples): :data:`HEAD_FIELDS`, the metric values in ``metric_names``
            order, then :data:`TAIL_FIELDS`; codes index ``contenders`` and ``cases``; an error
            kind code indexes ``records.ERROR_KINDS`` (-1: none); None for unknown numbers.
        contenders: contender ids, in the run's order.
        cases: (dataset, id, variant, metadata) per case, in the run's order.
        metric_names: the declared metrics.
        count: the number of rows, when known (saves regrowing the array).
        labels: aggregate metric name → its labelled results, for the label columns.
    """
    return frame_from_chunks([rows_table(rows, metric_names, count)], contenders, cases, metric_names, labels)


def frame_from_chunks(
    chunks: Sequence[Any],
    contenders: Sequence[str],
    cases: Sequence[CaseRow],
    metric_names: Sequence[str],
    labels: dict[str, LabelRows] | None = None,
) -> pd.DataFrame:
    """Assemble the results frame from rows of :func:`row_dtype` in several pieces, in any order.

    Args:
        chunks: structured arrays of :func:`row_dtype`, or buffers of such rows (as the store reads
            them): each is taken apart into the frame's columns as it comes, never joined into one.
        contenders, cases, metric_names, labels: as for :func:`build_frame`.
    """
    import pandas as pd

    dtype = row_dtype(metric_names)
    tables = [c if isinstance(c, np.ndarray) else np.frombuffer(c, dtype=dtype) for c in chunks]
    names = float_fields(metric_names)
    count = sum(len(t) for t in tables)
    ints, floats = np.empty((len(_INT_FIELDS), count), dtype=np.int64), np.empty((len(names), count))
    start = 0
    for t in tables:
        _take_apart(t, names, ints[:, start : start + len(t)], floats[:, start : start + len(t)])
        start += len(t)
    ints, floats = _sorted(ints, floats, len(contenders), len(cases))
    contender, case, sample, is_error, error_kind = ints
    head = {
        "contender": pd.Categorical.from_codes(contender, categories=list(contenders)),
        **_case_columns(cases, case),
        "sample": sample.copy(),
        "status": pd.Categorical.from_codes(is_error, categories=STATUSES),
        "error_kind": pd.Categorical.from_codes(error_kind, categories=records.ERROR_KINDS),
    }
    numbers = pd.DataFrame(floats.T, columns=names, copy=False)
    parts = [pd.DataFrame(head), numbers, pd.DataFrame(_metadata_columns(cases, case), index=numbers.index)]
    if labels:
        parts.append(pd.DataFrame(_label_columns(labels, ints, len(cases)), index=numbers.index))
    return pd.concat(parts, axis=1)


def assemble(parts: FrameParts, metrics: list[str]) -> pd.DataFrame:
    """The results frame from its parts (:func:`evalcore.storage.frames.frame_from_chunks`)."""
    return frame_from_chunks(parts.chunks, parts.contenders, parts.cases, metrics, parts.labels)


#: The int64 fields of a row, in order.
_INT_FIELDS = HEAD_FIELDS[:5]


def _sorted(ints: Any, floats: Any, n_contenders: int, n_cases: int) -> tuple[Any, Any]:
    """Rows by contender, case and sample, in the run's order (untouched when already so)."""
    contender, case, sample = ints[0], ints[1], ints[2]
    span = int(sample.max()) + 1 if len(sample) else 1
    if n_contenders * n_cases * span >= 2**62:  # a single sort key would overflow
        order = np.lexsort((sample, case, contender))
    else:
        key = (contender * n_cases + case) * span + sample
        if bool(np.all(key[1:] >= key[:-1])):
            return ints, floats
        order = np.argsort(key, kind="stable")
    return ints[:, order], floats[:, order]


def _take_apart(table: Any, names: list[str], ints: Any, floats: Any) -> None:
    """Copy a structured array's int fields into the rows of ``ints`` and its float fields into those of ``floats``."""
    fields = table.dtype.fields
    width = table.dtype.itemsize // 8
    packed = (
        table.flags.c_contiguous
        and table.dtype.itemsize % 8 == 0
        and all(
            fields[name][0] == np.dtype(kind) and fields[name][1] == 8 * i
            for i, (name, kind) in enumerate([*((f, "<i8") for f in _INT_FIELDS), *((f, "<f8") for f in names)])
        )
    )
    if not packed or not len(table):
        for i, name in enumerate(_INT_FIELDS):
            ints[i] = table[name]
        for i, name in enumerate(names):
            floats[i] = table[name]
        return
    # Fields lie side by side in a row: transpose a slice of rows at a time, which stays in the cache,
    # where copying a field at a time would read every row once per field.
    whole = table.view(np.int64).reshape(len(table), width)
    step = 8192
    for start in range(0, len(table), step):
        rows = whole[start : start + step]
        ints[:, start : start + step] = rows[:, : len(_INT_FIELDS)].T
        floats[:, start : start + step] = rows[:, len(_INT_FIELDS) : len(_INT_FIELDS) + len(names)].view(np.float64).T


def _case_columns(cases: Sequence[CaseRow], case: Any) -> dict[str, Any]:
    """dataset, case (id) and variant, looked up per row from the case codes."""
    return {name: _categorical([c[i] for c in cases], case) for i, name in enumerate(("dataset", "case", "variant"))}


def _categorical(per_case: list[Any], case: Any) -> Any:
    import pandas as pd

    categories = list(dict.fromkeys(v for v in per_case if v is not None))
    index = {v: i for i, v in enumerate(categories)}
    # Codes in the width pandas keeps them in: a code per row gathered once, never narrowed after.
    width = next(t for t in (np.int8, np.int16, np.int32, np.int64) if len(categories) < np.iinfo(t).max)
    codes = np.array([index.get(v, -1) if v is not None else -1 for v in per_case], dtype=width)
    return pd.Categorical.from_codes(codes[case], categories=categories)


def _metadata_columns(cases: Sequence[CaseRow], case: Any) -> dict[str, Any]:
    keys = dict.fromkeys(k for c in cases for k in c[3])
    return {f"meta_{k}": _metadata_column([c[3].get(k) for c in cases], case) for k in keys}


def _metadata_column(per_case: list[Any], case: Any) -> Any:
    """Strings become a categorical, numbers float64; anything else stays object (JSON for containers)."""
    known = [v for v in per_case if v is not None]
    if known and all(isinstance(v, str) for v in known):
        return _categorical(per_case, case)
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in known):
        return np.array([np.nan if v is None else v for v in per_case], dtype=np.float64)[case]
    cells = np.empty(len(per_case), dtype=object)
    cells[:] = [json.dumps(v, ensure_ascii=False) if isinstance(v, dict | list) else v for v in per_case]
    return cells[case]


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


def read_columns(store: StoreConnection, run_id: str) -> ResultColumns:
    """A stored run's results as columns: its packed numbers, its cases' keys and its labels (no metadata,
    no frame).

    Raises:
        StoreError: the run is unknown, or its packed numbers do not add up (a damaged store).
    """
    with store.transaction("DEFERRED") as conn:
        declared = packed.declared_metrics(conn, run_id)
        if declared is None:
            raise StoreError(f"no run {run_id!r} in this store")
        metrics = [m.name for m in declared]
        contenders = packed.contender_ids(conn, run_id)
        cases = conn.execute("SELECT dataset, id FROM cases WHERE run_id = ? ORDER BY position", (run_id,)).fetchall()
        chunks = packed.number_chunks(conn, run_id, metrics)
        labels = packed.all_labels(conn, run_id, declared)
    columns = columns_from_tables(chunks, contenders, cases, metrics)
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
    tables: list[Any], contenders: list[str], cases: Sequence[tuple[str, str]], metrics: Sequence[str]
) -> ResultColumns:
    """Columns from structured arrays of :func:`evalcore.storage.packed.row_dtype` rows, or buffers of such rows
    (as the store reads them), in order.

    The list is emptied as its pieces are copied into the columns, so that a big run's rows are never held twice
    over: a piece is let go as soon as its rows are in.
    """
    dtype = row_dtype(metrics)
    count = sum(len(t) if isinstance(t, np.ndarray) else len(t) // dtype.itemsize for t in tables)
    contender, case, sample = (np.empty(count, dtype=np.int64) for _ in range(3))
    is_error = np.empty(count, dtype=bool)
    numbers = {name: np.empty(count, dtype=np.float64) for name in float_fields(metrics)}
    tables.reverse()
    start = 0
    while tables:
        piece = tables.pop()
        rows = piece if isinstance(piece, np.ndarray) else np.frombuffer(piece, dtype=dtype)
        end = start + len(rows)
        contender[start:end], case[start:end] = rows["contender_code"], rows["case_code"]
        sample[start:end], is_error[start:end] = rows["sample"], rows["is_error"] != 0
        for name, column in numbers.items():
            column[start:end] = rows[name]
        start = end
    return ResultColumns(
        contenders=contenders,
        cases=[(str(d), str(c)) for d, c in cases],
        contender=contender,
        case=case,
        sample=sample,
        is_error=is_error,
        numbers=numbers,
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
