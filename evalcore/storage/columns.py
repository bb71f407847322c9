"""A run's results as plain NumPy columns: who, which case, failed or not, and the numbers; no pandas.

The results frame (:mod:`evalcore.storage.frames`) also carries every case's dataset, variant and metadata
as categoricals and the aggregate metrics' labels: what a leaderboard filters and groups by. A comparison
of two runs needs none of that, and building it (and importing pandas to build it) is most of what a fresh
``evalcore compare`` process would spend. :class:`ResultColumns` is the part it needs, from any source:

- a stored run: :func:`read_columns`, from the same packed numbers the frame is read from;
- a run in memory (a run file): :func:`run_columns`, from the same rows the frame is built from;
- a frame already built (the app caches them): :func:`frame_columns`, from its codes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from evalcore.core import records
from evalcore.core.errors import StoreError
from evalcore.storage import frame_read
from evalcore.storage.frames import TAIL_FIELDS, float_fields, result_row, row_dtype, rows_table

if TYPE_CHECKING:
    import pandas as pd

    from evalcore.storage.store import Store


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
    is_error: np.ndarray
    """Whether each result is an error (its call failed): never scored."""
    numbers: dict[str, np.ndarray]

    def __len__(self) -> int:
        return len(self.case)


def read_columns(store: Store, run_id: str) -> ResultColumns:
    """A stored run's results as columns: its packed numbers and its cases' keys, nothing else.

    Raises:
        StoreError: the run is unknown, or its packed numbers do not add up (a damaged store).
    """
    with store.transaction("DEFERRED") as conn:
        declared = conn.execute("SELECT metrics FROM runs WHERE id = ?", (run_id,)).fetchone()
        if declared is None:
            raise StoreError(f"no run {run_id!r} in this store")
        metrics = [m["name"] for m in json.loads(declared[0])]
        contenders = [
            r[0] for r in conn.execute("SELECT id FROM contenders WHERE run_id = ? ORDER BY position", (run_id,))
        ]
        cases = conn.execute("SELECT dataset, id FROM cases WHERE run_id = ? ORDER BY position", (run_id,)).fetchall()
        chunks = frame_read.number_chunks(conn, run_id, metrics)
    dtype = row_dtype(metrics)
    return columns_from_tables([np.frombuffer(c, dtype=dtype) for c in chunks], contenders, cases, metrics)


def run_columns(run: records.Run) -> ResultColumns:
    """An in-memory run's results as columns (the same rows :func:`evalcore.storage.frames.results_frame` reads).

    Raises:
        ValueError: a result names a contender or case the run does not hold.
    """
    names = [m.name for m in run.metrics]
    contenders = {c.id: i for i, c in enumerate(run.contenders)}
    cases = {c.key: i for i, c in enumerate(run.cases)}
    try:
        rows = [result_row(r, contenders[r.contender], cases[(r.dataset, r.case)], names) for r in run.results]
    except KeyError as e:
        raise ValueError(f"run {run.info.id!r}: a result names {e.args[0]!r}, not in the run") from None
    table = rows_table(rows, names, len(rows))
    return columns_from_tables([table], list(contenders), list(cases), names)


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
    return ResultColumns(
        contenders=contenders,
        cases=cases,
        contender=contender_codes,
        case=case_codes,
        is_error=(frame["status"] == "error").to_numpy(dtype=bool),
        numbers=numbers,
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
