"""The flows a person uses, in a real browser against ``streamlit run app.py``."""

from __future__ import annotations

import re

import pytest

from evalcore.core.metric_set import MetricSet
from tests.browser.conftest import screenshot, settled

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


def winner(page) -> str:  # noqa: ANN001
    alert = page.get_by_text(re.compile(r"^Winner: "))
    expect(alert).to_be_visible()
    return alert.inner_text().removeprefix("Winner: ").strip()


def open_app(page, url: str, path: str = "") -> None:  # noqa: ANN001
    page.goto(f"{url}/{path}")
    expect(page.get_by_test_id("stSidebarNavLink").first).to_be_visible()
    settled(page)


def click_first_row(page, table) -> None:  # noqa: ANN001
    """The dataframe is a canvas: click the selection box of its first data row by coordinates."""
    expect(table).to_be_visible()
    settled(page)
    box = table.bounding_box()
    page.mouse.click(box["x"] + 18, box["y"] + 35 + 17)


def test_the_leaderboard_opens_on_the_bundled_demo_run(page, app_url):
    open_app(page, app_url)
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    expect(page.get_by_text("intake ·").first).to_be_visible()
    assert winner(page)
    screenshot(page, "leaderboard")
    chart = page.get_by_test_id("stPlotlyChart").first
    chart.scroll_into_view_if_needed()
    expect(chart).to_be_visible()
    expect(chart.get_by_text("Pareto frontier")).to_be_visible()
    screenshot(page, "leaderboard_charts")


def expected_winner(run_file, **changes) -> str:  # noqa: ANN001
    from evalcore.analysis.tables.view import leaderboard_view
    from evalcore.runfile.read import read_run_file
    from evalcore.storage.frames import results_frame

    run = read_run_file(run_file)
    view = leaderboard_view(results_frame(run), MetricSet.of(run.metrics), {**run.info.weights, **changes}, ci=False)
    return view.winner


def slider(page, name: str):  # noqa: ANN001, ANN201
    return page.get_by_test_id("stSlider").filter(has=page.get_by_text(name, exact=True))


def test_moving_a_weight_re_ranks_and_the_address_bar_shares_it(page, app_url, browser, demo_run_file):
    cheap_wins = expected_winner(demo_run_file, cost=-1.0)
    open_app(page, app_url)
    assert winner(page).startswith(expected_winner(demo_run_file))
    assert not winner(page).startswith(cheap_wins)
    slider(page, "cost").get_by_role("slider").press("Home")  # cost weight to -1: cheaper is better
    expect(page.get_by_text(re.compile(r"^Winner: "))).to_have_text(re.compile(re.escape(cheap_wins)))
    expect(page).to_have_url(re.compile(r"w=.*cost%3A-1"))
    screenshot(page, "weights_moved")

    shared = browser.new_page(viewport={"width": 1280, "height": 1000})
    try:
        shared.goto(page.url)
        expect(shared.get_by_text(re.compile(r"^Winner: "))).to_have_text(re.compile(re.escape(cheap_wins)))
        expect(slider(shared, "cost")).to_contain_text("-100")
        screenshot(shared, "shared_url")
    finally:
        shared.close()


def test_a_weight_moved_before_the_chart_comes_is_kept(page, app_url, demo_run_file):
    """A tab's first chart comes in the script run after its tables are on screen (pages._widgets.charts_now):
    a slider moved the moment the table shows is neither lost to that run nor undone by it."""
    cheap_wins = expected_winner(demo_run_file, cost=-1.0)
    page.goto(app_url)
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    slider(page, "cost").get_by_role("slider").press("Home")
    expect(page.get_by_test_id("stPlotlyChart").first).to_be_attached()
    expect(page.get_by_text(re.compile(r"^Winner: "))).to_have_text(re.compile(re.escape(cheap_wins)))
    expect(slider(page, "cost")).to_contain_text("-100")
    expect(page.get_by_text("The chart follows once the tables are on screen.")).to_have_count(0)


def test_a_weight_moved_as_the_charts_are_asked_for_re_ranks_the_tables(page, app_url, demo_run_file):
    """The browser sends the widget changes of one moment as one rerun: a slider moved the moment the page asks
    for its charts reaches the server inside the charts' request, a rerun of the charts' fragment only. The
    relay below makes that moment: it keeps the slider's own request back and lets the charts' one carry it."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    cheap_wins = expected_winner(demo_run_file, cost=-1.0)
    held_tables: list = []
    page.route(re.compile(r"/DataFrame[^/]*\.js$"), lambda route: held_tables.append(route))  # no table yet
    link = {"merging": False, "merged": 0}

    def relay(ws) -> None:  # noqa: ANN001
        server = ws.connect_to_server()

        def to_server(message) -> None:  # noqa: ANN001
            sent = BackMsg.FromString(message) if link["merging"] and isinstance(message, bytes) else None
            if sent is not None and sent.WhichOneof("type") == "rerun_script":
                if not sent.rerun_script.fragment_id:
                    link["merged"] += 1  # its widget states go with the charts' request, as in the browser's batch
                    return
                link["merging"] = False
            server.send(message)

        ws.on_message(to_server)
        server.on_message(ws.send)

    page.route_web_socket(re.compile(r"/_stcore/stream"), relay)
    page.goto(app_url)
    cost = slider(page, "cost")
    expect(cost).to_be_visible()
    link["merging"] = True
    cost.get_by_role("slider").press("Home")
    expect(cost).to_contain_text("-100")
    for route in held_tables:
        route.continue_()
    expect(page.get_by_test_id("stPlotlyChart").first).to_be_attached()
    assert link["merged"] == 1, "the slider's own request did not come before the charts' request"
    expect(page.get_by_text(re.compile(r"^Winner: "))).to_have_text(re.compile(re.escape(cheap_wins)))


def test_a_filter_applies_and_stays_when_the_filters_close_and_the_page_changes(page, app_url):
    open_app(page, app_url)
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    page.get_by_text("Filters", exact=True).click()  # drawn only when open
    datasets = page.get_by_test_id("stMultiSelect").filter(has=page.get_by_text("Datasets", exact=True))
    datasets.get_by_role("combobox").click()
    page.get_by_role("option", name="roofing").click()
    page.keyboard.press("Escape")
    tabs = page.get_by_role("tab")
    expect(tabs.filter(has_text="immigration")).to_have_count(0)  # one dataset tab: roofing
    expect(page).to_have_url(re.compile(r"dataset=roofing"))
    expect(page.get_by_text("Filtered by datasets: roofing")).to_be_visible()
    page.get_by_text("Filters", exact=True).click()  # closed: its widgets are gone, the filter is not
    expect(page.get_by_test_id("stMultiSelect")).to_have_count(0)
    expect(tabs.filter(has_text="immigration")).to_have_count(0)
    page.get_by_test_id("stSidebarNavLink").filter(has_text="Cases").click()
    expect(page.get_by_role("heading", name="Cases")).to_be_visible()
    page.get_by_test_id("stSidebarNavLink").filter(has_text="Leaderboard").click()
    expect(page.get_by_text("Filtered by datasets: roofing")).to_be_visible()
    page.get_by_text("Filters", exact=True).click()
    expect(datasets).to_contain_text("roofing")
    screenshot(page, "filters_kept")


def test_uploading_a_run_file_shows_its_table(page, app_url, demo_run_file):
    open_app(page, app_url, "upload")
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(demo_run_file))
    expect(page.get_by_text("Valid run file")).to_be_visible()
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    screenshot(page, "upload")


def test_a_bad_upload_lists_its_problems(page, app_url, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "evalcore.run", "schema_version": 1, "run": {}}')
    open_app(page, app_url, "upload")
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(bad))
    expect(page.get_by_text("bad.json is not a valid run file")).to_be_visible()
    expect(page.get_by_text(re.compile(r"^run\.id: "))).to_be_visible()
    screenshot(page, "upload_bad")


def test_launching_the_demo_shows_progress_then_results(page, app_url):
    open_app(page, app_url, "run")
    page.get_by_role("button", name="Launch").click()
    expect(page.get_by_test_id("stProgress").first).to_be_visible()
    expect(page.get_by_text("The run is complete.")).to_be_visible(timeout=60_000)
    page.get_by_text("Run completed").scroll_into_view_if_needed()
    screenshot(page, "run_complete")
    page.get_by_role("button", name="Open the leaderboard").click()
    expect(page.get_by_text(re.compile(r"^Winner: "))).to_be_visible()
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()


def test_cancelling_a_run_stops_it_and_keeps_it_resumable(page, app_url):
    open_app(page, app_url, "run")
    samples = page.get_by_label("Samples per case")
    samples.fill("10")
    samples.press("Enter")
    expect(page.get_by_text("5760", exact=True)).to_be_visible()
    page.get_by_role("button", name="Launch").click()
    page.get_by_role("button", name="Cancel").click()
    stopped = re.compile(r"The run stopped \((cancelled|interrupted)\)")
    expect(page.get_by_text(stopped)).to_be_visible(timeout=30_000)
    page.get_by_text(re.compile(r"^Run (cancelled|interrupted)$")).scroll_into_view_if_needed()
    screenshot(page, "run_cancelled")
    page.get_by_test_id("stSidebarNavLink").filter(has_text="Runs").click()
    expect(page.get_by_role("heading", name="Runs")).to_be_visible()
    click_first_row(page, page.get_by_test_id("stDataFrame").first)  # the newest run: the one just cancelled
    expect(page.get_by_role("button", name="Resume")).to_be_visible()
    screenshot(page, "runs_resume")


def test_a_case_shows_want_vs_got(page, app_url):
    open_app(page, app_url, "cases")
    page.get_by_text("Failures only").click()
    click_first_row(page, page.get_by_test_id("stDataFrame").first)
    expect(page.get_by_text("Want vs got")).to_be_visible()
    expect(page.get_by_text("Expected", exact=True)).to_be_visible()
    page.get_by_text("Want vs got").scroll_into_view_if_needed()
    screenshot(page, "case_detail")


def test_clicking_a_leaderboard_row_opens_that_contenders_cases(page, app_url):
    open_app(page, app_url)
    first = winner(page)
    click_first_row(page, page.get_by_test_id("stDataFrame").first)
    expect(page).to_have_url(re.compile(r"/cases"))
    expect(page.get_by_role("combobox", name="Contender")).to_have_value(first.split(";")[0])


def test_a_deep_link_opened_first_on_a_fresh_server_keeps_the_shared_frame(browser, demo_run_file, tmp_path):
    from tests.browser.conftest import streamlit_server

    with streamlit_server(tmp_path / "evalcore.db", demo_run_file.parent, tmp_path / "streamlit.log") as url:
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        try:
            page.goto(f"{url}/cases")
            expect(page.get_by_role("heading", name="Cases")).to_be_visible()
            expect(page.get_by_test_id("stSlider").first).to_be_visible()  # the shared sidebar is there
            nav = page.get_by_test_id("stSidebarNavLink")
            expect(nav).to_have_count(7)  # Leaderboard, Cases, Run, Runs, Compare, Upload, Rate
            expect(nav.filter(has_text="shared")).to_have_count(0)
            expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
            expect(page.get_by_text("Page not found")).to_have_count(0)
            screenshot(page, "deep_link_first")
        finally:
            page.close()


def test_a_run_is_exported_when_its_button_is_clicked(page, app_url, tmp_path):
    """The run file is written on the click (not when the run is selected) and is a valid run file."""
    import gzip

    from evalcore.runfile.read import read_run_file
    from evalcore.runfile.write import write_run_file

    open_app(page, app_url, "runs")
    click_first_row(page, page.get_by_test_id("stDataFrame").first)
    files = {}
    for label in ("Export .json", "Export .json.gz"):
        with page.expect_download(timeout=30_000) as download:
            page.get_by_role("button", name=label, exact=True).click()
        files[label] = tmp_path / download.value.suggested_filename
        download.value.save_as(files[label])
    plain, packed = files["Export .json"].read_bytes(), files["Export .json.gz"].read_bytes()
    assert gzip.decompress(packed) == plain
    run = read_run_file(plain)
    assert files["Export .json"].name == f"run-{run.info.id[:8]}.json" and run.results
    assert write_run_file(run, tmp_path / "cli.json.gz").read_bytes() == packed  # as `evalcore export` writes it


def test_a_score_weight_below_zero_is_warned_in_the_sidebar(page, app_url):
    open_app(page, app_url)
    slider(page, "score").get_by_role("slider").press("Home")  # score weight to -1: the worst ranks first
    warning = page.get_by_test_id("stSidebar").get_by_text(re.compile(r"^Weight score=-1 ranks the contenders"))
    expect(warning).to_have_count(1)
    why = page.get_by_text(re.compile(r"Why: .*ranks first on the weighted score"))
    expect(why).to_be_visible()
    expect(why).not_to_contain_text("ahead on score")  # a higher score is no edge under score=-1
    screenshot(page, "score_weight_reversed")
