"""The Cases page's list a page at a time: the results that pass the filters, picked from the run's results frame
(numbers and names only), and the texts of the shown rows only (their inputs, their error messages), read when
a page is shown; one case's input, expected answer and answers read when that case is shown.

A run of a million results lists in the time its frame takes to read: no result's input, output or expected
answer is read to list it. Where the texts come from is a :class:`CaseTexts`: the store (:class:`StoredTexts`)
or a run in memory (:class:`RunTexts`, an uploaded file). Nothing here imports streamlit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pandas as pd

from evalcore.analysis.scores.results import Filters, select_results
from evalcore.core.images import text_input
from evalcore.core.records import Case, Metric, Run
from evalcore.explorer.drilldown import HALLUCINATION_METRICS, CaseFilters, as_text, input_preview, list_columns
from evalcore.explorer.samples import disagreeing_rows

if TYPE_CHECKING:
    from evalcore.storage.store import Store

#: Rows a page lists, as the page offers them; the first is the default.
PAGE_SIZES = (100, 25, 50, 250, 1000)
#: A result's key: contender, dataset, case id, sample.
ResultKey = tuple[str, str, str, int]


class CaseTexts(Protocol):
    """Where the Cases page reads texts from, a few at a time."""

    def cases(self, keys: Sequence[tuple[str, str]]) -> list[Case]:
        """These cases (by dataset and id), with their inputs and expected answers."""
        ...

    def error_messages(self, keys: Sequence[ResultKey]) -> dict[ResultKey, str | None]:
        """The error message of each of these results."""
        ...

    def case_run(self, header: Run, contenders: Sequence[str], dataset: str, case: str) -> Run:
        """``header`` with one case and these contenders' results for it (every sample)."""
        ...


@dataclass(frozen=True)
class StoredTexts:
    """Texts read from a store, by key (each read goes through the store's unique indexes)."""

    store: Store
    run_id: str

    def cases(self, keys: Sequence[tuple[str, str]]) -> list[Case]:
        from evalcore.storage.lookup import load_cases_by_key

        return load_cases_by_key(self.store, self.run_id, keys)

    def error_messages(self, keys: Sequence[ResultKey]) -> dict[ResultKey, str | None]:
        from evalcore.storage.lookup import error_messages_of

        return error_messages_of(self.store, self.run_id, keys)

    def case_run(self, header: Run, contenders: Sequence[str], dataset: str, case: str) -> Run:
        from evalcore.storage.lookup import load_case_results

        key = [(dataset, case)]
        found = [r for c in dict.fromkeys(contenders) for r in load_case_results(self.store, self.run_id, c, key)]
        return dataclasses.replace(header, cases=self.cases([(dataset, case)]), results=found)


@dataclass(frozen=True)
class RunTexts:
    """Texts of a run held in memory (an uploaded run file)."""

    run: Run

    def cases(self, keys: Sequence[tuple[str, str]]) -> list[Case]:
        by_key = {c.key: c for c in self.run.cases}
        return [by_key[k] for k in keys if k in by_key]

    def error_messages(self, keys: Sequence[ResultKey]) -> dict[ResultKey, str | None]:
        wanted = set(keys)
        return {r.key: r.error.message if r.error else None for r in self.run.results if r.key in wanted}

    def case_run(self, header: Run, contenders: Sequence[str], dataset: str, case: str) -> Run:
        chosen = set(contenders)
        found = [r for r in self.run.results if r.contender in chosen and (r.dataset, r.case) == (dataset, case)]
        return dataclasses.replace(header, cases=self.cases([(dataset, case)]), results=found)


def input_matches(needle: str) -> Any:
    """Whether a case's input holds ``needle`` (case-insensitive), as the Cases page's search reads it."""
    folded = needle.strip().casefold()
    return lambda value: folded in as_text(value).casefold()


@dataclass(frozen=True)
class CasePage:
    """One page of the Cases page's list."""

    table: pd.DataFrame
    """The page's rows (the columns of :func:`evalcore.explorer.drilldown.cases_view`)."""
    total: int
    """How many results pass the filters, on every page."""
    page: int
    """Which page this is, from 0 (a page past the end shows the last)."""
    size: int
    """Rows a page lists."""

    @property
    def pages(self) -> int:
        """How many pages the results fill (at least one)."""
        return max(1, -(-self.total // self.size))


def case_page(
    frame: pd.DataFrame,
    metrics: Sequence[Metric],
    texts: CaseTexts,
    filters: CaseFilters | None = None,
    *,
    page: int = 0,
    size: int = PAGE_SIZES[0],
    matching: Collection[tuple[str, str]] | None = None,
    showing: ResultKey | None = None,
) -> CasePage:
    """The results that pass the filters, one page of them, in the run's order, with the texts of that page only.

    Args:
        frame: the run's results frame (:func:`evalcore.storage.frames.results_frame`), in the run's order.
        metrics: the run's metrics.
        texts: where the shown rows' inputs and error messages are read.
        filters: what is listed; its ``text`` needs ``matching``.
        page, size: which page (from 0) of how many rows.
        matching: with a search text, the (dataset, case id) of the cases whose input holds it
            (:func:`input_matches` over the run's cases).
        showing: a result to show: the page is the one that lists it, when it passes the filters.
    """
    f = filters or CaseFilters()
    frame = select_results(frame, Filters(contenders=f.among.contenders, metadata=f.among.metadata))
    rows = np.flatnonzero(_kept(frame, f, matching))
    size = max(1, int(size))
    if showing is not None:
        at = np.flatnonzero(_is(frame.iloc[rows], showing))
        page = int(at[0]) // size if len(at) else page
    page = min(max(0, int(page)), max(0, (len(rows) - 1) // size))
    shown = frame.iloc[rows[page * size : (page + 1) * size]]
    return CasePage(_table(shown, metrics, texts), len(rows), page, size)


def _kept(frame: pd.DataFrame, f: CaseFilters, matching: Collection[tuple[str, str]] | None) -> np.ndarray:
    keep = np.ones(len(frame), dtype=bool)
    if f.contender:
        keep &= (frame["contender"] == f.contender).to_numpy(bool)
    if f.datasets:
        keep &= frame["dataset"].isin(f.datasets).to_numpy(bool)
    if f.variants:
        keep &= frame["variant"].isin(f.variants).to_numpy(bool)
    failed = (frame["status"] == "error").to_numpy(bool)
    if f.failures_only:
        keep &= failed | (frame["score"].to_numpy(float) < 1)
    if f.errors_only:
        keep &= failed | frame["error_kind"].notna().to_numpy(bool)
    if f.hallucinations_only:
        invented = np.zeros(len(frame), dtype=bool)
        for column in (f"m_{name}" for name in HALLUCINATION_METRICS if f"m_{name}" in frame):
            invented |= frame[column].to_numpy(float) > 0
        keep &= invented
    if f.disagree_only:
        keep &= disagreeing_rows(frame)
    if f.text.strip():
        found = list(matching or ())
        keys = pd.MultiIndex.from_arrays([frame["dataset"].astype(object), frame["case"].astype(object)])
        keep &= keys.isin(found) if found else False
    return keep


def _is(frame: pd.DataFrame, key: ResultKey) -> np.ndarray:
    contender, dataset, case, sample = key
    return (
        (frame["contender"] == contender).to_numpy(bool)
        & (frame["dataset"] == dataset).to_numpy(bool)
        & (frame["case"] == case).to_numpy(bool)
        & (frame["sample"].to_numpy() == sample)
    )


def _table(shown: pd.DataFrame, metrics: Sequence[Metric], texts: CaseTexts) -> pd.DataFrame:
    """The listed rows, with the inputs of their cases and the messages of their errors read for them only."""
    contender, dataset, case = (shown[k].astype(object).tolist() for k in ("contender", "dataset", "case"))
    sample = shown["sample"].astype("int64").tolist()
    kinds = shown["error_kind"].astype(object).tolist()
    keys = list(zip(contender, dataset, case, sample, strict=True))
    failed = [key for key, kind in zip(keys, kinds, strict=True) if kind is not None and kind == kind]
    messages = texts.error_messages(failed) if failed else {}
    inputs = {c.key: c.input for c in texts.cases(list(dict.fromkeys(zip(dataset, case, strict=True))))}
    table = {
        "contender": contender,
        "dataset": dataset,
        "case": case,
        "variant": shown["variant"].astype(object).tolist(),
        "sample": sample,
        "score": 100.0 * shown["score"].to_numpy(float),
    }
    table.update({m.name: 100.0 * shown[f"m_{m.name}"].to_numpy(float) for m in metrics if not m.primary})
    table["error"] = [
        "" if kind is None or kind != kind else f"{kind}: {messages.get(key, '')}"
        for kind, key in zip(kinds, keys, strict=True)
    ]
    table["input"] = [input_preview(as_text(text_input(inputs[k]))) for k in zip(dataset, case, strict=True)]
    return pd.DataFrame(table, columns=list_columns(metrics))
