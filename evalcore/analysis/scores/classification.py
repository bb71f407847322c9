"""Classification metrics of a run: per-label precision, recall, F1 and support, macro-F1, the confusion matrix.

They are computed from the labels each result carries (the ``classification`` scorer's diagnostics
``{"want": ..., "got": ...}``), not averaged from per-result numbers. For each label ``L``, with ``tp`` the
results expected ``L`` and answered ``L``, ``support`` those expected ``L`` and ``predicted`` those answered
``L``: precision ``tp / predicted``, recall ``tp / support``, F1 ``2 tp / (support + predicted)``. A label never
predicted has precision null and F1 0; a label predicted but never expected has recall null and F1 0.
Macro-F1 is the mean F1 over the labels that occur (expected or predicted) in the results counted: a label
that occurs nowhere has no F1 to average. All are pure functions over label arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from evalcore.analysis.scores.formats import DASH
from evalcore.analysis.scores.results import Filters, select_results
from evalcore.core.aggregates import AggregateMetric, label_columns, labels_of
from evalcore.core.metric_set import MetricSet
from evalcore.core.records import Run
from evalcore.storage.frames import label_codes

#: How a reply with no label (unparseable, empty) shows in the confusion matrix.
NO_LABEL = "(no label)"


def result_labels(run: Run, scorer: str | None = None) -> pd.DataFrame:
    """The expected and predicted label of every scored result that has them.

    Args:
        run: a run whose results carry ``want``/``got`` diagnostics (a ``classification`` scorer's).
        scorer: with several scorers, the id the classification scorer's diagnostics are under; None finds them
            at the top level, or under the first id that has them.

    Returns:
        Columns ``contender, dataset, case, sample, want, got`` (``got`` None for a reply with no label).
    """
    rows = []
    for r in run.results:
        if r.status != "scored":
            continue
        found = labels_of(r.diagnostics, scorer)
        if found is not None:
            rows.append((r.contender, r.dataset, r.case, r.sample, *found))
    columns = ["contender", "dataset", "case", "sample", "want", "got"]
    # object columns: a missing label stays None (a string column would make it NaN).
    return pd.DataFrame({c: pd.Series([row[i] for row in rows], dtype=object) for i, c in enumerate(columns)})


@dataclass(frozen=True)
class LabelTable:
    """One contender's classification metrics over the results counted."""

    contender: str
    #: Scored results with labels.
    results: int
    accuracy: float
    macro_f1: float
    #: :func:`per_label`'s table.
    rows: pd.DataFrame


def label_tables(run: Run, filters: Filters | None = None, metric_set: MetricSet | None = None) -> list[LabelTable]:
    """Each contender's per-label precision, recall, F1 and support, accuracy and macro-F1, in lineup order;
    a contender with no labelled scored result (or none that passes ``filters``) is left out, and a run with no
    ``classification`` scorer has none (with several, the first one's labels).

    Args:
        run: a run whose results carry a ``classification`` scorer's labels.
        filters: which results count, as on the leaderboard.
        metric_set: the run's; none: derived from its metrics.
    """
    metric_set = metric_set or MetricSet.of(run.metrics)
    classified = metric_set.aggregates
    if not classified:
        return []
    labels = result_labels(run, classified[0].scorer)
    if filters is not None and filters.any() and len(labels):
        from evalcore.storage.frames import results_frame

        chosen = select_results(results_frame(run, metric_set), filters)
        keys = set(
            zip(*(chosen[k].astype(str) for k in ("contender", "dataset", "case")), chosen["sample"], strict=True)
        )
        columns = (labels["contender"], labels["dataset"], labels["case"], labels["sample"])
        mine = [k in keys for k in zip(*columns, strict=True)]
        labels = labels[mine]
    tables = []
    for contender in dict.fromkeys([*(c.id for c in run.contenders), *labels["contender"]]):
        part = labels[labels["contender"] == contender]
        if part.empty:
            continue
        want, got = list(part["want"]), list(part["got"])
        tables.append(LabelTable(contender, len(part), accuracy(want, got), macro_f1(want, got), per_label(want, got)))
    return tables


def label_rows(table: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """:func:`per_label`'s table as text cells (three decimals, ``–`` where undefined) under a header."""
    header = ["label", "precision", "recall", "F1", "support", "predicted"]

    def number(value: Any) -> str:
        return DASH if value is None or (isinstance(value, float) and np.isnan(value)) else f"{value:.3f}"

    rows = [
        [
            str(r["label"]),
            number(r["precision"]),
            number(r["recall"]),
            number(r["f1"]),
            str(r["support"]),
            str(r["predicted"]),
        ]
        for r in table.to_dict("records")
    ]
    return header, rows


def label_order(want: Sequence[Any], got: Sequence[Any], labels: Sequence[str] | None = None) -> list[str]:
    """The labels to report: ``labels`` when given, then any other expected or predicted label, sorted."""
    seen = {x for x in [*want, *got] if isinstance(x, str)}
    first = list(labels or [])
    return first + sorted(seen - set(first))


def per_label(want: Sequence[Any], got: Sequence[Any], labels: Sequence[str] | None = None) -> pd.DataFrame:
    """Precision, recall, F1, support and predicted count per label (see the module docstring for the rules).

    Args:
        want: the expected label of each result.
        got: the predicted label of each result (None, or anything but a string: no label).
        labels: labels to list first and always (declared labels); others follow, sorted.

    Returns:
        One row per label: ``label, precision, recall, f1, support, predicted`` (NaN where undefined).
    """
    order = label_order(want, got, labels)
    w, g = np.asarray(want, dtype=object), np.asarray(got, dtype=object)
    rows = []
    for label in order:
        expected, predicted = w == label, g == label
        tp, support, n_pred = int((expected & predicted).sum()), int(expected.sum()), int(predicted.sum())
        rows.append(
            {
                "label": label,
                "precision": tp / n_pred if n_pred else np.nan,
                "recall": tp / support if support else np.nan,
                "f1": 2 * tp / (support + n_pred) if support + n_pred else np.nan,
                "support": support,
                "predicted": n_pred,
            }
        )
    return pd.DataFrame(rows, columns=["label", "precision", "recall", "f1", "support", "predicted"])


def macro_f1(want: Sequence[Any], got: Sequence[Any]) -> float:
    """Mean F1 over the labels that occur (expected or predicted); NaN with no result."""
    table = per_label(want, got)
    return float(table["f1"].mean()) if len(table) else float("nan")


def accuracy(want: Sequence[Any], got: Sequence[Any]) -> float:
    """Share of results whose predicted label is the expected one; NaN with no result."""
    w, g = np.asarray(want, dtype=object), np.asarray(got, dtype=object)
    return float((w == g).mean()) if len(w) else float("nan")


def confusion_matrix(want: Sequence[Any], got: Sequence[Any], labels: Sequence[str] | None = None) -> pd.DataFrame:
    """Counts of (expected, predicted) labels: rows expected, columns predicted (``NO_LABEL`` last when any).

    Every label of :func:`label_order` is both a row and a column, so the diagonal is the right answers.
    """
    order = label_order(want, got, labels)
    columns = order + ([NO_LABEL] if any(not isinstance(x, str) for x in got) else [])
    index = {label: i for i, label in enumerate(columns)}
    counts = np.zeros((len(order), len(columns)), dtype=np.int64)
    for w, g in zip(want, got, strict=True):
        counts[index[w], index[g if isinstance(g, str) else NO_LABEL]] += 1
    return pd.DataFrame(counts, index=pd.Index(order, name="expected"), columns=pd.Index(columns, name="predicted"))


def resampled_macro_f1(
    case_index: np.ndarray, want: Sequence[Any], got: Sequence[Any], counts: np.ndarray
) -> np.ndarray:
    """Macro-F1 of each bootstrap resample, from one matrix product (no loop over resamples).

    Args:
        case_index: for each result, the column of its case in ``counts``.
        want, got: the results' labels.
        counts: (resamples, cases) how many times each case is drawn
            (:func:`evalcore.analysis.stats.resampling.resample_counts`).

    Returns:
        (resamples,) macro-F1, recomputed on each resample over the labels that occur in it; NaN for a
        resample with no result.
    """
    order = label_order(want, got)
    n_cases = counts.shape[1]
    w, g = np.asarray(want, dtype=object), np.asarray(got, dtype=object)
    # Per case and label: right answers, expected, predicted; each a sum over the case's results (samples).
    blocks = []
    for label in order:
        expected, predicted = (w == label).astype(float), (g == label).astype(float)
        for per_result in (expected * predicted, expected, predicted):
            blocks.append(np.bincount(case_index, weights=per_result, minlength=n_cases))
    folded = np.stack(blocks, axis=1) if blocks else np.zeros((n_cases, 0))
    drawn = (counts @ folded).reshape(len(counts), len(order), 3)
    tp, support, n_pred = drawn[..., 0], drawn[..., 1], drawn[..., 2]
    occurs = support + n_pred > 0
    f1 = np.divide(2 * tp, support + n_pred, out=np.zeros_like(tp), where=occurs)
    n_labels = occurs.sum(axis=1)
    return np.divide(f1.sum(axis=1), n_labels, out=np.full(len(counts), np.nan), where=n_labels > 0)


# --- macro-F1 as a leaderboard column (an aggregate metric, evalcore.core.aggregates) ---------------------


@dataclass
class FrameLabels:
    """A results frame's labels for one aggregate metric, as codes into one list of labels.

    Attributes:
        rows: positions in the frame of the results that have labels (scored, with an expected label).
        want: each such result's expected label, a code into :attr:`labels`.
        got: its predicted label's code; -1 for a reply with no label.
        labels: every label, sorted.
    """

    rows: np.ndarray
    want: np.ndarray
    got: np.ndarray
    labels: list[str]


def frame_labels(df: pd.DataFrame, metric: AggregateMetric) -> FrameLabels | None:
    """The labels ``metric`` is computed from, read from the frame's label columns; None when it has none."""
    want_column, got_column = label_columns(metric)
    if want_column not in df.columns or got_column not in df.columns:
        return None
    coded = label_codes(df[want_column], df[got_column])
    want_codes, labels = coded.want, coded.names
    scored = (df["status"] == "scored").to_numpy(bool) if "status" in df.columns else np.ones(len(df), bool)
    rows = np.flatnonzero((want_codes >= 0) & scored)
    return FrameLabels(rows, want_codes[rows], coded.got[rows], labels)


def grouped_macro_f1(labels: FrameLabels, groups: np.ndarray, n_groups: int) -> np.ndarray:
    """Macro-F1 of each group of results, from per-group label counts (no loop over groups).

    Args:
        labels: from :func:`frame_labels`.
        groups: for each row of the frame, its group (0..n_groups-1).
        n_groups: the number of groups.

    Returns:
        (n_groups,) macro-F1 over the labels that occur in each group; NaN for a group with no labelled result.
    """
    n_labels = len(labels.labels)
    g = groups[labels.rows].astype(np.int64)
    size = n_groups * n_labels
    right = labels.want == labels.got
    tp = np.bincount(g[right] * n_labels + labels.want[right], minlength=size).reshape(n_groups, n_labels)
    support = np.bincount(g * n_labels + labels.want, minlength=size).reshape(n_groups, n_labels)
    said = labels.got >= 0
    predicted = np.bincount(g[said] * n_labels + labels.got[said], minlength=size).reshape(n_groups, n_labels)
    return _macro(tp.astype(float), support.astype(float), predicted.astype(float))


def _macro(tp: np.ndarray, support: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """Mean F1 along the last axis over the labels that occur; NaN where none does."""
    occurs = support + predicted > 0
    f1 = np.divide(2 * tp, support + predicted, out=np.zeros_like(tp), where=occurs)
    n = occurs.sum(axis=-1)
    return np.divide(f1.sum(axis=-1), n, out=np.full(n.shape, np.nan), where=n > 0)


#: Below this, sums of whole numbers are exact in float32, whose products take half float64's time.
EXACT_FLOAT32 = 2**24


@dataclass
class FoldedLabels:
    """Labelled results folded per case, what a bootstrap resample multiplies (:func:`fold_labels`).

    A case has one expected label (the case's), so a label's right answers and expected count in a resample
    are sums over the cases that expect it: :attr:`by_case` needs two columns per contender, not two per
    contender and label. Predicted labels differ between contenders: :attr:`predicted` has a column per
    contender and label. Cases are kept in order of their expected label (:attr:`cases`), so each label's
    cases are one slice of a resample's gathered multiplicities.

    Attributes:
        cases: the cases with a labelled result, sorted by expected label (columns of a resample's counts).
        bounds: label ``l``'s cases are ``cases[bounds[l]:bounds[l + 1]]``.
        by_case: (len(cases), 2 x contenders): right answers, then labelled results, per case and contender.
        predicted: (len(cases), contenders x labels): how often each contender predicted each label per case.
        n_labels: the number of labels.
    """

    cases: np.ndarray
    bounds: np.ndarray
    by_case: np.ndarray
    predicted: np.ndarray
    n_labels: int

    def resampled(self, counts: np.ndarray, n_contenders: int) -> np.ndarray:
        """Macro-F1 per resample and contender from (resamples, all cases) multiplicities; NaN without labels."""
        b, n_labels = len(counts), self.n_labels
        drawn = np.take(counts, self.cases, axis=1).astype(self.by_case.dtype)
        tp, support = np.zeros((b, n_contenders, n_labels)), np.zeros((b, n_contenders, n_labels))
        for label in range(n_labels):
            start, end = self.bounds[label], self.bounds[label + 1]
            if start < end:
                sums = drawn[:, start:end] @ self.by_case[start:end]
                tp[..., label], support[..., label] = sums[:, :n_contenders], sums[:, n_contenders:]
        predicted = (drawn @ self.predicted).reshape(b, n_contenders, n_labels)
        return _macro(tp, support, predicted.astype(float))


def fold_labels(
    labels: FrameLabels,
    case_codes: np.ndarray,
    contender_codes: np.ndarray,
    n_contenders: int,
    cases: np.ndarray,
) -> FoldedLabels:
    """Fold the labelled results of some cases into per-case counts (see :class:`FoldedLabels`).

    Args:
        labels: from :func:`frame_labels`.
        case_codes, contender_codes: each frame row's case (a column of a resample's counts) and contender.
        n_contenders: the number of contenders.
        cases: the cases to fold (a macro average's dataset, or every case).

    Raises:
        ValueError: a case's results expect different labels (a results frame from one run never does).
    """
    n_labels, n_all = len(labels.labels), int(max(case_codes.max(initial=-1), cases.max(initial=-1))) + 1
    keep = np.zeros(n_all, dtype=bool)
    keep[cases] = True
    rows = keep[case_codes[labels.rows]]
    case = case_codes[labels.rows][rows].astype(np.int64)
    contender = contender_codes[labels.rows][rows].astype(np.int64)
    want, got = labels.want[rows], labels.got[rows]
    case_label = np.full(n_all, -1, dtype=np.int64)
    case_label[case] = want
    if np.any(case_label[case] != want):
        raise ValueError("a case's results expect different labels; macro-F1 resamples cases of one expected label")
    labelled = np.flatnonzero(case_label >= 0)
    ordered = labelled[np.argsort(case_label[labelled], kind="stable")]
    position = np.zeros(n_all, dtype=np.int64)
    position[ordered] = np.arange(len(ordered))
    cell, size = position[case] * n_contenders + contender, len(ordered) * n_contenders
    right = (want == got).astype(float)
    by_case = np.concatenate(
        [
            np.bincount(cell, weights=right, minlength=size).reshape(-1, n_contenders),
            np.bincount(cell, minlength=size).reshape(-1, n_contenders).astype(float),
        ],
        axis=1,
    )
    said = got >= 0
    predicted = np.bincount(cell[said] * n_labels + got[said], minlength=size * n_labels).reshape(
        len(ordered), n_contenders * n_labels
    )
    # Every sum a resample makes is at most (cases drawn) x (most results of one case): exact in float32 below 2**24.
    exact32 = len(ordered) * max(by_case.max(initial=0), 1) < EXACT_FLOAT32
    dtype = np.float32 if exact32 else np.float64
    bounds = np.searchsorted(case_label[ordered], np.arange(n_labels + 1))
    return FoldedLabels(ordered, bounds, by_case.astype(dtype), predicted.astype(dtype), n_labels)


def resampled_grouped_macro_f1(folded: Sequence[FoldedLabels], n_contenders: int, counts: np.ndarray) -> np.ndarray:
    """Macro-F1 of every contender in every bootstrap resample: (resamples, contenders).

    A resample's per-label counts are products of its case multiplicities with the per-case counts of
    :func:`fold_labels`, and macro-F1 is recomputed from them, over the labels that occur in the resample.

    Args:
        folded: one :func:`fold_labels` per group of cases computed on its own (a macro average's datasets),
            then averaged over the groups with a value; one of every case for a micro average.
        n_contenders: the number of contenders.
        counts: (resamples, cases) multiplicities (:func:`evalcore.analysis.stats.resampling.resample_counts`).
    """
    stacked = np.stack([part.resampled(counts, n_contenders) for part in folded])
    present = ~np.isnan(stacked)
    n = present.sum(axis=0)
    return np.divide(np.where(present, stacked, 0.0).sum(axis=0), n, out=np.full(n.shape, np.nan), where=n > 0)
