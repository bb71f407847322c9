"""Untrusted text in a real browser: a run file full of HTML, scripts and Markdown links is shown as text.

The server gets its own store, seeded from one bundled run file (``tests/untrusted.py``) whose contender
ids, suite name, dataset names, case ids, inputs, outputs, metadata, error messages and metric
descriptions all carry payloads that set ``window.__pwned`` or load an image named ``x`` if rendered.
"""

from __future__ import annotations

import re

import pytest

from evalcore.runfile.write import write_run_file
from tests.browser.conftest import screenshot, streamlit_server
from tests.untrusted import PAYLOADS, untrusted_run

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

#: Everything on the page that an injected payload would have created.
INJECTED = """() => {
  const all = [...document.querySelectorAll('*')];
  return {
    pwned: typeof window.__pwned === 'undefined' ? null : String(window.__pwned),
    images: [...document.querySelectorAll('img')].map(i => i.src).filter(s => /\\/x$|^javascript:/i.test(s)),
    scripts: [...document.querySelectorAll('script')].filter(s => s.textContent.includes('__pwned')).length,
    handlers: all.filter(e => [...e.attributes].some(a => /^on/i.test(a.name) && a.value.includes('__pwned')))
                 .map(e => e.tagName),
    links: [...document.querySelectorAll('[href], [src]')]
             .map(e => e.getAttribute('href') || e.getAttribute('src')).filter(h => /^\\s*javascript:/i.test(h)),
    tags: [...document.querySelectorAll('#pwned, svg circle[r="9"]')].map(e => e.tagName),
  };
}"""
CLEAN = {"pwned": None, "images": [], "scripts": 0, "handlers": [], "links": [], "tags": []}


@pytest.fixture(scope="module")
def untrusted_url(tmp_path_factory):  # noqa: ANN001, ANN201
    folder = tmp_path_factory.mktemp("untrusted")
    bundled = folder / "bundled"
    write_run_file(untrusted_run(), bundled / "untrusted.json")
    with streamlit_server(folder / "evalcore.db", bundled, folder / "streamlit.log") as url:
        yield url


def assert_nothing_injected(page) -> None:  # noqa: ANN001
    assert page.evaluate(INJECTED) == CLEAN


def hover_sidebar_help_icons(page, at_least: int) -> int:  # noqa: ANN001
    """Open each tooltip of the sidebar (they render Markdown; the weight sliders' hold the metric
    descriptions), checking the page after each one.

    Waits (up to 10 s) for ``at_least`` of them first: on a busy machine the main area's table can be
    on screen while the sidebar's sliders are still arriving.
    """
    icons = page.get_by_test_id("stSidebar").get_by_test_id("stTooltipHoverTarget")
    for _ in range(100):
        if icons.count() >= at_least:
            break
        page.wait_for_timeout(100)
    count = icons.count()
    for i in range(count):
        icons.nth(i).hover(timeout=5_000)
        page.wait_for_timeout(100)
        assert_nothing_injected(page)
    return count


def test_the_leaderboard_shows_injected_names_as_text(browser, untrusted_url):
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    try:
        page.goto(untrusted_url)
        expect(page.get_by_text(re.compile(r"^Winner: "))).to_be_visible()
        expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
        # The suite name and the winner's id appear literally, tags and all.
        expect(page.get_by_text(f"{PAYLOADS[1]} {PAYLOADS[3]} suite").first).to_be_visible()
        assert_nothing_injected(page)
        assert hover_sidebar_help_icons(page, at_least=4) >= 4
        page.get_by_role("button", name="Help for score").hover()  # field_accuracy is the primary metric: the score
        expect(page.get_by_test_id("stTooltipContent")).to_contain_text("![tracker](x) metric field_accuracy")
        page.get_by_text("Filters").click()
        expect(page.get_by_text("metadata: ![tracker](x) meta key")).to_be_visible()
        assert_nothing_injected(page)
        for tab in ["Metrics", "Contender × dataset", "Score vs time"]:
            page.get_by_role("tab", name=tab).click()
            expect(page.get_by_test_id("stPlotlyChart").first).to_be_visible()
            assert_nothing_injected(page)
        page.get_by_text("Glossary").click()
        assert_nothing_injected(page)
        page.mouse.wheel(0, -10_000)
        screenshot(page, "untrusted_leaderboard")
    finally:
        page.close()


def test_a_case_with_injected_input_and_output_is_shown_as_text(browser, untrusted_url):
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    try:
        page.goto(f"{untrusted_url}/cases")
        table = page.get_by_test_id("stDataFrame").first
        expect(table).to_be_visible()
        box = table.bounding_box()
        page.mouse.click(box["x"] + 18, box["y"] + 35 + 17)  # the first row's selection box (a canvas)
        expect(page.get_by_text("Want vs got")).to_be_visible()
        expect(page.get_by_text(PAYLOADS[0] + " input").first).to_be_visible()  # the input, verbatim
        assert_nothing_injected(page)
        page.get_by_text("Raw reply").click()
        expect(page.get_by_text(PAYLOADS[6] + " raw").first).to_be_visible()
        assert_nothing_injected(page)
        page.get_by_text("Input", exact=True).scroll_into_view_if_needed()
        screenshot(page, "untrusted_case")
    finally:
        page.close()


def test_the_history_and_an_upload_show_injected_names_as_text(browser, untrusted_url, tmp_path):
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    try:
        page.goto(f"{untrusted_url}/runs")
        table = page.get_by_test_id("stDataFrame").first
        expect(table).to_be_visible()
        box = table.bounding_box()
        page.mouse.click(box["x"] + 18, box["y"] + 35 + 17)
        # The Open button, not a selectbox's arrow (also named "Open" for screen readers).
        expect(page.locator("[data-testid^=stBaseButton]").filter(has_text="Open")).to_be_visible()
        assert_nothing_injected(page)

        path = write_run_file(untrusted_run("run-uploaded"), tmp_path / "untrusted.json")
        page.get_by_test_id("stSidebarNavLink").filter(has_text="Upload").click()
        page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(path))
        expect(page.get_by_text("Valid run file")).to_be_visible()
        expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
        assert_nothing_injected(page)
        screenshot(page, "untrusted_upload")
    finally:
        page.close()
