"""Rating the bundled support run in a real browser: blind pairs voted with the keyboard and a click, no name
while the queue goes on, and the Leaderboard's People panel on what was said beside the demo raters."""

from __future__ import annotations

import json

import pytest

from tests.browser.conftest import REPO, enter_rater_name, new_tab, screenshot, served_runs_fixture, settled
from tests.browser.test_flows import open_app

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

SUPPORT = REPO / "data/runs/support-demo.json"
NAMES = [c["id"] for c in json.loads(SUPPORT.read_text())["contenders"]]


support_url = served_runs_fixture("rate", SUPPORT)


def test_a_person_rates_pairs_blind_and_no_name_shows_while_the_queue_goes_on(chromium, support_url):  # noqa: ANN001
    with new_tab(chromium) as page:
        open_app(page, support_url, "rate")
        enter_rater_name(page, "ana")
        expect(page.get_by_text("0 of 40 rated")).to_be_visible()
        settled(page)
        html = page.locator('[data-testid="stMain"]').inner_html()
        assert not [name for name in NAMES if name in html]
        screenshot(page, "rate-pair")
        page.get_by_label("Your name").evaluate("element => element.blur()")
        page.keyboard.press("1")
        expect(page.get_by_text("1 of 40 rated")).to_be_visible()
        expect(page.get_by_text("Stored. Names are shown once the queue is done.")).to_be_visible()
        assert not [name for name in NAMES if name in page.locator('[data-testid="stMain"]').inner_html()]
        for rated in (2, 3):
            # Two clicks before the next pair shows are one vote on the pair shown: wait for the count first.
            page.get_by_role("button", name="Tie (3)").click()
            expect(page.get_by_text(f"{rated} of 40 rated")).to_be_visible()
            settled(page)
        open_app(page, support_url)
        page.get_by_text("People: ratings, agreement and the judge corrected").click()
        # The bundled run's 46 demo ratings (24 of pairs, by 3 demo raters) and ana's 3.
        summary = page.get_by_text("49 ratings by 4 raters. Demo data: 3 of the 4 raters (demo/…) are made up.")
        expect(summary).to_be_visible()
        expect(page.get_by_text("pairwise judge vs people: 27 items")).to_be_visible()
        summary.scroll_into_view_if_needed()
        screenshot(page, "rate-people-panel")
