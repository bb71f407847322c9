"""Results as a pandas DataFrame: one row per result, the shape every table and chart starts from.

Columns, in order: ``contender, dataset, case, variant, sample, status, error_kind, score``, one
``m_<metric>`` per declared metric, ``cost_usd, latency_s, input_tokens, output_tokens``, then one
``meta_<key>`` per metadata key of the run's cases (first appearance order), then, for each aggregate metric
of the run (:func:`evalcore.core.aggregates.aggregate_metrics`: a classification scorer's macro-F1), its two
label columns ``want_<metric>, got_<metric>`` (categoricals; NaN for a result with no label: an error, or a
reply with none in ``got``). Numbers are float64
with NaN for null (``sample`` is int64); names are categoricals; rows are sorted by contender, case
(both in the run's order) and sample.

:func:`results_frame` builds it from an in-memory run (an uploaded run file);
``Store.load_results_frame`` builds the same frame from SQLite. Both feed :func:`build_frame` with
the same row tuples, so their columns and dtypes cannot drift apart. pandas is imported inside the
functions: commands that never build a frame never pay for it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from evalcore.core import records
from evalcore.core.aggregates import aggregate_metrics, labels_of

if TYPE_CHECKING:
    import pandas as pd

#: The row tuple both sources produce: these, the metric values, then :data:`TAIL_FIELDS`.
HEAD_FIELDS = ("contender_code", "case_code", "sample", "is_error", "error_kind_code", "score")
TAIL_FIELDS = ("cost_usd", "latency_s", "input_tokens", "output_tokens")
STATUSES = ("scored", "error")
ERROR_KIND_CODES = {kind: i for i, kind in enumerate(records.ERROR_KINDS)}

#: A case's part of a row: dataset, id, variant and metadata.
CaseRow = tuple[str, str, str, dict[str, Any]]
#: One aggregate metric's labels, one entry per scored result that has them, in four aligned sequences:
#: (contender position, case position, sample) keys and (expected, predicted) labels (predicted None: none).
LabelRows = tuple[Sequence[tuple[int, int, int]], Sequence[str], Sequence[str | None]]


def results_frame(run: records.Run) -> pd.DataFrame:
    """The results of an in-memory run as a DataFrame (see the module docstring for its shape).

    Raises:
        ValueError: a result names a contender or case the run does not hold.
    """
    rows, labels = run_rows(run)
    cases = [(c.dataset, c.id, c.variant, c.metadata) for c in run.cases]
    names = [m.name for m in run.metrics]
    return build_frame(rows, [c.id for c in run.contenders], cases, names, count=len(rows), labels=labels)


def run_rows(run: records.Run) -> tuple[list[tuple], dict[str, LabelRows]]:
    """An in-memory run's row tuples (see :func:`build_frame`), and each aggregate metric's labelled results.

    Raises:
        ValueError: a result names a contender or case the run does not hold.
    """
    names = [m.name for m in run.metrics]
    contender_codes = {c.id: i for i, c in enumerate(run.contenders)}
    case_codes = {c.key: i for i, c in enumerate(run.cases)}
    try:
        rows = [
            result_row(r, contender_codes[r.contender], case_codes[(r.dataset, r.case)], names) for r in run.results
        ]
    except KeyError as e:
        raise ValueError(f"run {run.info.id!r}: a result names {e.args[0]!r}, not in the run") from None
    labels = {a.name: run_labels(run, a.scorer, contender_codes, case_codes) for a in aggregate_metrics(run.metrics)}
    return rows, labels


def run_labels(
    run: records.Run, scorer: str | None, contenders: dict[str, int], cases: dict[tuple[str, str], int]
) -> LabelRows:
    """The labelled scored results of an in-memory run for one aggregate metric (see :data:`LabelRows`)."""
    keys, want, got = [], [], []
    for r in run.results:
        found = labels_of(r.diagnostics, scorer) if r.status == "scored" else None
        if found is not None:
            keys.append((contenders[r.contender], cases[(r.dataset, r.case)], r.sample))
            want.append(found[0])
            got.append(found[1])
    return keys, want, got


def result_row(r: records.Result, contender: int, case: int, names: list[str]) -> tuple:
    """A result's row tuple (see :func:`build_frame`): codes, status, score, metric values, usage."""
    kind = ERROR_KIND_CODES.get(r.error.kind, -1) if r.error else -1
    u = r.usage
    values = [r.metrics.get(n) for n in names]
    head = (contender, case, r.sample, r.status == "error", kind, r.score)
    return (*head, *values, u.cost_usd, r.latency_s, u.input_tokens, u.output_tokens)


def _label_columns(labels: dict[str, LabelRows], ints: Any, n_cases: int) -> dict[str, Any]:
    """The label columns of each aggregate metric (see the module docstring), aligned with the sorted rows.

    Args:
        labels: aggregate metric name → its labelled results.
        ints: the frame's sorted int fields (:data:`_INT_FIELDS`): contender and case positions, sample.
        n_cases: how many cases the run has.
    """
    import numpy as np
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


def row_dtype(metric_names: Sequence[str]) -> Any:
    """The NumPy structured dtype of one row: int64 :data:`HEAD_FIELDS` (score excepted), then float64.

    Little-endian and unpadded, so the store can keep each row's numbers as bytes of this layout.
    """
    import numpy as np

    ints = [(f, "<i8") for f in HEAD_FIELDS[:5]]
    return np.dtype(ints + [(f, "<f8") for f in float_fields(metric_names)])


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
    import numpy as np
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


#: The int64 fields of a row, in order.
_INT_FIELDS = HEAD_FIELDS[:5]


def rows_table(rows: Iterable[tuple], metric_names: Sequence[str], count: int) -> Any:
    """The rows as one structured array: from a list at once, from a cursor row by row."""
    import numpy as np

    dtype = row_dtype(metric_names)
    if isinstance(rows, list):
        return np.array(rows, dtype=dtype)
    return np.fromiter(rows, dtype=dtype, count=count)


def _sorted(ints: Any, floats: Any, n_contenders: int, n_cases: int) -> tuple[Any, Any]:
    """Rows by contender, case and sample, in the run's order (untouched when already so)."""
    import numpy as np

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


def float_fields(metric_names: Sequence[str]) -> list[str]:
    """The float64 fields of a row: ``score``, ``m_<metric>`` per declared metric, then :data:`TAIL_FIELDS`."""
    return ["score", *(f"m_{n}" for n in metric_names), *TAIL_FIELDS]


def _take_apart(table: Any, names: list[str], ints: Any, floats: Any) -> None:
    """Copy a structured array's int fields into the rows of ``ints`` and its float fields into those of ``floats``."""
    import numpy as np

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
    import numpy as np
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
    import numpy as np

    known = [v for v in per_case if v is not None]
    if known and all(isinstance(v, str) for v in known):
        return _categorical(per_case, case)
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in known):
        return np.array([np.nan if v is None else v for v in per_case], dtype=np.float64)[case]
    cells = np.empty(len(per_case), dtype=object)
    cells[:] = [json.dumps(v, ensure_ascii=False) if isinstance(v, dict | list) else v for v in per_case]
    return cells[case]
