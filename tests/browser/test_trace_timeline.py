"""An agent's trace on the Cases page in a real browser: the bundled agent demo's first failed refund opened by a
click,
its timeline's steps and expected actions shown, a tool call unfolded to its arguments and result."""

from __future__ import annotations

import pytest

from tests.browser.conftest import REPO, new_tab, screenshot, served_runs_fixture
from tests.browser.test_clicks import click_cell_until
from tests.browser.test_flows import open_app

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

AGENT = REPO / "data/runs/agent-demo.json"


agent_url = served_runs_fixture("trace", AGENT)


def test_a_clicked_agent_case_shows_its_trace_and_a_tool_call_unfolds(chromium, agent_url):  # noqa: ANN001
    with new_tab(chromium) as page:
        open_app(page, agent_url, "cases")
        page.get_by_label("Search the inputs").fill("refund")
        page.get_by_label("Search the inputs").press("Enter")
        page.get_by_text("Failures only").click()
        table = page.get_by_test_id("stDataFrame").first
        click_cell_until(page, table, 300, page.get_by_text("Trace", exact=True))
        expect(page.get_by_text("Expected actions (order:")).to_be_visible()
        tool = page.get_by_test_id("stExpander").filter(has_text="Tool ").first
        tool.locator("summary").click()
        expect(tool.get_by_text("Arguments")).to_be_visible()
        expect(tool.get_by_text("Result")).to_be_visible()
        result = tool.get_by_test_id("stCode").last
        result.scroll_into_view_if_needed()
        expect(result).to_be_in_viewport(ratio=1)  # unfolded all the way, wherever the page has scrolled it
        page.get_by_text("Trace", exact=True).scroll_into_view_if_needed()
        screenshot(page, "case_trace_timeline")
