"""The app asks nothing of any host but its own server: opened with no network, it looks and works the same."""

from __future__ import annotations

import pytest

from tests.browser.conftest import screenshot
from tests.browser.test_flows import open_app

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

PAGES = {"leaderboard": "", "cases": "cases", "runs": "runs", "compare": "compare", "upload": "upload"}


def test_no_page_requests_anything_from_another_host(page, app_url):
    elsewhere: list[str] = []
    own = (app_url, "data:", "blob:")  # blobs and inline data are made in the page itself
    page.on("request", lambda request: None if request.url.startswith(own) else elsewhere.append(request.url))
    for name, path in PAGES.items():
        open_app(page, app_url, path)
        expect(page.get_by_role("heading", name=name.capitalize())).to_be_visible()
        if name == "leaderboard":
            chart = page.get_by_test_id("stPlotlyChart").first  # charts follow the tables: Plotly is loaded too
            chart.scroll_into_view_if_needed()
            expect(chart).to_be_visible()
        screenshot(page, f"offline_{name}")
    assert elsewhere == []
