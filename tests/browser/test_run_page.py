"""The Run page in a real browser: launching an adaptive run of the intake suite raced by fake/skill, and
watching the race (who is still in, calls saved, why each stopped contender stopped)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.browser.conftest import screenshot, streamlit_server
from tests.suites import skill_suite

expect = pytest.importorskip("playwright.sync_api").expect


@pytest.fixture(scope="module")
def race_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of its own whose suite folders hold the intake suite with a fake/skill lineup."""
    folder = tmp_path_factory.mktemp("race")
    skill_suite(folder / "suites" / "intake-skill", race={"seed": 1, "confidence": 0.95})
    bundled = folder / "bundled"
    bundled.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EVALCORE_SUITE_ROOTS", str(folder / "suites"))
        with streamlit_server(folder / "evalcore.db", bundled, folder / "streamlit.log") as url:
            yield url


@pytest.fixture
def page(chromium, race_url):  # noqa: ANN001, ANN201
    context = chromium.new_context(viewport={"width": 1280, "height": 1400})
    context.set_default_timeout(20_000)
    tab = context.new_page()
    tab.goto(f"{race_url}/run")
    yield tab
    context.close()


def test_launching_an_adaptive_run_shows_the_race_then_the_stopped_contenders(page):
    page.get_by_test_id("stSelectbox").first.click()
    page.get_by_role("option", name=re.compile("intake-skill")).click()
    switch = page.get_by_text("Adaptive: stop contenders that cannot win")
    expect(switch).to_be_visible()
    expect(page.get_by_role("spinbutton", name="Confidence")).to_have_value("0.950")
    expect(page.get_by_text(re.compile(r"Adaptive: at most 144 calls"))).to_be_visible()
    expect(page.get_by_test_id("stMetric").filter(has_text="Results")).to_contain_text("144")
    screenshot(page, "run_plan")
    page.get_by_role("button", name="Launch").click()
    expect(page.get_by_test_id("stProgress").first).to_be_visible()
    expect(page.get_by_text("The run is complete.")).to_be_visible(timeout=60_000)
    race = re.compile(r"Race: 2 of 3 still in, \d+ calls saved \(the cases ran out\)")
    expect(page.get_by_text(race)).to_be_visible()
    expect(page.get_by_text(re.compile(r"skill=0\.3: \d+/48 .* stopped after \d+ of 48 cases"))).to_be_visible()
    page.get_by_text(re.compile(r"^Race: ")).scroll_into_view_if_needed()
    screenshot(page, "run_adaptive")
