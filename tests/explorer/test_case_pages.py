"""The Cases page's list a page at a time (:mod:`evalcore.explorer.case_pages`): the same rows, values and order as
the list built from every result's record, cut into pages, with texts read for the shown rows only."""

from __future__ import annotations

import itertools

import pandas as pd
import pytest

from evalcore.analysis.scores.results import Filters, select_results
from evalcore.core.records import Run
from evalcore.explorer.case_pages import RunTexts, case_page, input_matches
from evalcore.explorer.drilldown import CaseFilters, cases_view
from evalcore.storage.frames import results_frame
from tests.factories import make_run


class CountedTexts(RunTexts):
    """A run's texts that count what is read."""

    def __init__(self, run: Run) -> None:
        super().__init__(run)
        object.__setattr__(self, "read", [])

    def cases(self, keys):  # noqa: ANN001, ANN201
        self.read.extend(keys)
        return super().cases(keys)


def _matching(run: Run, f: CaseFilters) -> list[tuple[str, str]] | None:
    return [c.key for c in run.cases if input_matches(f.text)(c.input)] if f.text.strip() else None


def _listed(run: Run, frame: pd.DataFrame, f: CaseFilters, size: int) -> tuple[pd.DataFrame, int]:
    """Every page of the list, one after another, and the total each page gives."""
    first = case_page(frame, run.metrics, RunTexts(run), f, size=size, matching=_matching(run, f))
    pages = [
        case_page(frame, run.metrics, RunTexts(run), f, page=i, size=size, matching=_matching(run, f))
        for i in range(first.pages)
    ]
    assert {p.total for p in pages} == {first.total}
    return pd.concat([p.table for p in pages], ignore_index=True), first.total


@pytest.mark.parametrize("samples", [1, 2])
def test_the_pages_of_the_list_are_the_list_from_the_records(samples: int) -> None:
    """Every filter, alone and together: the same rows, in the same order, with the same values."""
    run = make_run(4, 9, samples=samples)
    frame = results_frame(run)
    for contender, datasets, variants, failures, errs, hallucinations, text in itertools.product(
        [None, run.contenders[3].id],
        [[], ["roofing"]],
        [[], ["partial"]],
        [False, True],
        [False, True],
        [False, True],
        ["", "CLIENT 3", "nobody"],
    ):
        f = CaseFilters(contender, datasets, variants, failures, errs, hallucinations, text)
        want = cases_view(run, f)
        for size in (5, 1000):
            got, total = _listed(run, frame, f, size)
            assert total == len(want)
            pd.testing.assert_frame_equal(got, want, check_dtype=False)


@pytest.mark.parametrize(
    "among",
    [
        Filters(contenders=["fake/perfect · t=0.0", "fake/lazy · t=0.0"]),
        Filters(metadata={"difficulty": ["hard", "easy"]}),
        Filters(metadata={"words": ["13", "15"]}),
        Filters(contenders=["fake/guesser · t=0.0"], metadata={"difficulty": ["medium"]}),
    ],
)
def test_the_cases_list_keeps_only_what_the_leaderboards_filters_count(among: Filters) -> None:
    run = make_run(4, 9)
    frame = results_frame(run)
    want = select_results(frame, among)
    table = cases_view(run, CaseFilters(among=among))
    assert list(zip(table["contender"], table["case"], strict=True)) == list(
        zip(want["contender"].astype(str), want["case"].astype(str), strict=True)
    )
    got, total = _listed(run, frame, CaseFilters(among=among), 1000)
    assert total == len(table)
    pd.testing.assert_frame_equal(got, table, check_dtype=False)


def test_a_page_reads_the_inputs_of_its_own_cases_only() -> None:
    run = make_run(4, 9)
    texts = CountedTexts(run)
    page = case_page(results_frame(run), run.metrics, texts, page=1, size=10)
    assert len(page.table) == 10 and page.pages == 4 and page.page == 1
    assert texts.read == list(dict.fromkeys(zip(page.table["dataset"], page.table["case"], strict=True)))


def test_a_page_past_the_end_shows_the_last_and_a_shown_result_opens_its_page() -> None:
    run = make_run(4, 9)
    frame = results_frame(run)
    last = case_page(frame, run.metrics, RunTexts(run), page=99, size=10)
    assert last.page == 3 and len(last.table) == 36 - 30
    key = run.results[25].key
    shown = case_page(frame, run.metrics, RunTexts(run), size=10, showing=key)
    assert shown.page == 2 and key in set(
        zip(*(shown.table[c] for c in ("contender", "dataset", "case", "sample")), strict=True)
    )
