"""A case's image on the Cases page, in a real browser: shown from the run's suite folder, with its reference."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.browser.conftest import REPO, new_tab, screenshot, served_runs, settled
from tests.browser.test_clicks import click_cell_until
from tests.browser.test_flows import open_app

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


@pytest.fixture(scope="module")
def receipts_url(tmp_path_factory: pytest.TempPathFactory, chromium) -> Iterator[str]:  # noqa: ANN001
    """A server whose store holds one run of docs/examples/receipts, its suite folder under the app's roots."""
    folder = tmp_path_factory.mktemp("receipts")
    suite = shutil.copytree(REPO / "docs" / "examples" / "receipts", folder / "suites" / "receipts")
    bundled = folder / "bundled"
    bundled.mkdir()
    command = [sys.executable, "-m", "evalcore.cli", "run", str(suite), "--quiet", "--db", str(folder / "make.db")]
    env = {**os.environ, "EVALCORE_FAKE_LATENCY_SCALE": "0"}
    subprocess.run([*command, "-o", str(bundled / "receipts.json")], cwd=REPO, env=env, check=True, capture_output=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EVALCORE_SUITE_ROOTS", str(folder / "suites"))
        with served_runs(folder) as url:
            yield url


def test_a_case_s_image_is_shown_on_the_cases_page(chromium, receipts_url):  # noqa: ANN001
    with new_tab(chromium, 1280, 1100) as page:
        open_app(page, receipts_url, "cases")
        expect(page.get_by_text(re.compile(r"^3 results\."))).to_be_visible()
        click_cell_until(page, page.get_by_test_id("stDataFrame").first, 300, page.get_by_text("Expected", exact=True))
        settled(page)
        image = page.get_by_test_id("stImage").first
        image.scroll_into_view_if_needed()
        expect(image.locator("img")).to_be_visible()
        expect(
            page.get_by_text(re.compile(r"datasets/receipts/images/\w+\.png · image/png · [\d,]+ bytes"))
        ).to_be_visible()
        screenshot(page, "case_image")
