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
from typing import Any

import numpy as np
import pandas as pd

from evalcore.core.records import Run

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
        found = _labels_in(r.diagnostics, scorer)
        if found is not None:
            rows.append((r.contender, r.dataset, r.case, r.sample, *found))
    columns = ["contender", "dataset", "case", "sample", "want", "got"]
    # object columns: a missing label stays None (a string column would make it NaN).
    return pd.DataFrame({c: pd.Series([row[i] for row in rows], dtype=object) for i, c in enumerate(columns)})


def _labels_in(diagnostics: dict[str, Any], scorer: str | None) -> tuple[str, str | None] | None:
    places = [diagnostics.get(scorer)] if scorer is not None else [diagnostics, *diagnostics.values()]
    for place in places:
        if isinstance(place, dict) and isinstance(place.get("want"), str) and "got" in place:
            got = place["got"]
            return place["want"], got if isinstance(got, str) else None
    return None


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
            (:func:`evalcore.analysis.resampling.resample_counts`).

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
