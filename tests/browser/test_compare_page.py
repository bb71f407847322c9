"""The Compare page in a real browser: two runs picked, the verdict shown, the address kept, and a flipped
case opened on the Cases page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from evalcore.runfile.write import write_run_file
from tests.browser.conftest import screenshot, streamlit_server
from tests.browser.test_clicks import click_cell_until
from tests.factories import binary_run

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

#: 9 of 10 right in the base, 2 of 10 in the candidate: a regression in score; "good" ties the base.
RIGHT = [1, 1, 1, 1, 1, 1, 1, 1, 1, 0] * 4
WRONG = [1, 1, 0, 0, 0, 0, 0, 0, 0, 1] * 4


@pytest.fixture(scope="module")
def compare_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of its own, seeded with three runs of one suite on three days."""
    folder = tmp_path_factory.mktemp("compare")
    bundled = folder / "bundled"
    bundled.mkdir()
    for day, (run_id, outcomes) in enumerate((("run-base", RIGHT), ("run-good", RIGHT), ("run-cand", WRONG)), 1):
        run = binary_run(run_id, {"m": outcomes})
        run.info.created_at = f"2026-11-0{day}T10:00:00.000Z"
        write_run_file(run, bundled / f"{run_id}.json")
    with streamlit_server(folder / "evalcore.db", bundled, Path(folder / "streamlit.log")) as url:
        yield url


def test_two_runs_picked_show_the_verdict_and_a_flip_opens_its_case(page, compare_url):  # noqa: ANN001
    page.goto(f"{compare_url}/compare")
    expect(page.get_by_role("heading", name="Compare")).to_be_visible()
    page.get_by_role("combobox", name="Base run").click()
    page.get_by_role("option", name=re.compile("run-base")).click()
    expect(page.get_by_text("m → m: REGRESSION in score")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/compare\?.*base=run-base.*candidate=run-cand"))
    forest = page.get_by_role("img", name=re.compile("^Forest plot"))
    expect(forest).to_be_visible()  # the forest plot, drawn: its picture has its size
    assert forest.evaluate("img => img.complete && img.naturalWidth") > 0
    screenshot(page, "compare_verdict")

    flips = page.get_by_test_id("stDataFrame").nth(1)
    flips.scroll_into_view_if_needed()
    click_cell_until(page, flips, 120, page.get_by_role("button", name="Open in Cases"))
    expect(page.get_by_text("Candidate: m")).to_be_visible()
    screenshot(page, "compare_flip")
    page.get_by_role("button", name="Open in Cases").click()
    expect(page).to_have_url(re.compile(r"/cases"))
    expect(page.get_by_role("heading", name="tax / c/002")).to_be_visible()
    expect(page.get_by_text("Want vs got")).to_be_visible()
    screenshot(page, "compare_case_opened")


def test_a_copied_address_reopens_the_same_comparison(page, compare_url):  # noqa: ANN001
    page.goto(f"{compare_url}/compare?base=run-good&candidate=run-base")
    expect(page.get_by_text("m → m: NO SIGNIFICANT CHANGE")).to_be_visible()
    expect(page.get_by_role("combobox", name="Base run")).to_have_value(re.compile("run-good"))


def test_the_runs_page_draws_the_trend_and_pins_a_baseline(page, compare_url):  # noqa: ANN001
    page.goto(f"{compare_url}/runs")
    expect(page.get_by_test_id("stPlotlyChart")).to_be_visible()
    expect(page.get_by_text("No baseline is pinned for intake")).to_be_visible()
    pin = page.get_by_role("button", name="Pin as baseline")
    click_cell_until(page, page.get_by_test_id("stDataFrame").first, 200, pin, row=1)
    pin.click()
    expect(page.get_by_text("Pinned baseline of intake: run run-good, contender m")).to_be_visible()
    expect(page.get_by_text("baseline", exact=True)).to_be_visible()  # the star's label on the chart
    screenshot(page, "runs_trend_pinned")
