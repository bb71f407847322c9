"""The report file opened from disk in Chromium, the network blocked: it asks no host for anything, its
sliders re-rank exactly as ``evalcore leaderboard --weights`` does, and a run's text stays text.

Each test writes one report and opens it as ``file://``; only the last one needs the shared server: it
downloads the report from the Leaderboard page.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from evalcore.cli import main
from evalcore.explorer.report import ReportOptions, build_report
from evalcore.runfile.read import read_run_file
from evalcore.runfile.write import write_run_file
from tests.report_runs import edge_run
from tests.untrusted import untrusted_run

pytestmark = pytest.mark.browser

DEMO = Path(__file__).resolve().parents[2] / "data" / "runs" / "intake-demo.json"


def open_offline(browser, path: Path):  # noqa: ANN001, ANN201
    """Open a report file in a fresh offline context; returns (context, page, requests beyond the file, errors)."""
    context = browser.new_context(viewport={"width": 1280, "height": 1000}, offline=True)
    page = context.new_page()
    others: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: None if r.url == path.as_uri() else others.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    context.route("**/*", lambda route: route.continue_() if route.request.url == path.as_uri() else route.abort())
    page.goto(path.as_uri())
    expect(page.locator("#overall tbody tr").first).to_be_visible()
    return context, page, others, errors


@pytest.fixture
def open_report(chromium, tmp_path):
    """Open a report file offline; yields (page, requests beyond the file, script errors)."""
    contexts = []

    def opener(html: str):
        path = tmp_path / "report.html"
        path.write_text(html, encoding="utf-8")
        context, page, others, errors = open_offline(chromium, path)
        contexts.append(context)
        return page, others, errors

    yield opener
    for context in contexts:
        context.close()


def _order(page, holder: str) -> list[str]:
    return page.locator(f"{holder} tbody tr td:nth-child(2)").all_text_contents()


def _slider_weights(page) -> str:
    pairs = page.eval_on_selector_all("#sliders input", "els => els.map(e => [e.name, parseInt(e.value, 10)])")
    return ",".join(f"{name}={value / 100}" for name, value in pairs if value)


def _leaderboard(capsys, run_file: Path, weights: str, *extra: str) -> list[dict]:
    code = main(["leaderboard", str(run_file), "--weights", weights, "--no-intervals", "--format", "json", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def _check_against_the_cli(page, capsys, run_file: Path) -> None:
    weights = _slider_weights(page)
    overall = _leaderboard(capsys, run_file, weights)
    assert _order(page, "#overall") == [row["contender"] for row in overall], weights
    by_dataset = _leaderboard(capsys, run_file, weights, "--by-dataset")
    for holder in page.locator("#datasets .dataset-table").all():
        dataset = holder.get_attribute("data-dataset")
        shown = holder.locator("tbody tr td:nth-child(2)").all_text_contents()
        assert shown == [r["contender"] for r in by_dataset if r["dataset"] == dataset], (dataset, weights)


def test_the_demo_report_works_offline_and_its_sliders_rank_like_the_cli(open_report, capsys):
    run = read_run_file(DEMO)
    page, others, errors = open_report(build_report(run, ReportOptions(B=200)))
    assert _order(page, "#overall")[0] == "fake/oracle · t=0"
    expect(page.locator("#stale-note")).to_be_hidden()

    page.locator('#sliders input[name="cost"]').focus()
    page.keyboard.press("Home")  # cost weight -1: the cheapest now lead
    expect(page.locator("#weights-text")).to_contain_text("cost=-1")
    _check_against_the_cli(page, capsys, DEMO)
    assert _order(page, "#overall")[0] == "fake/sloppy"
    expect(page.locator("#stale-note")).to_be_visible()
    expect(page.locator("#banner-live [data-role=winner]")).to_have_text("fake/sloppy")

    page.locator("#overall th", has_text="cost").first.click()  # sort by cost, cheapest first
    costs = page.locator("#overall tbody tr td:nth-child(7)").all_text_contents()
    assert costs == sorted(costs, key=lambda c: float(c.lstrip("$")))
    page.locator("#reset").click()
    page.locator("#overall th", has_text="rank").first.click()
    assert _order(page, "#overall")[0] == "fake/oracle · t=0"
    expect(page.locator("#banner-report")).to_be_visible()
    expect(page.locator("#stale-note")).to_be_hidden()
    assert others == [] and errors == []


def test_the_edge_runs_sliders_rank_like_the_cli(open_report, capsys, tmp_path):
    run_file = write_run_file(edge_run(), tmp_path / "edges.json")
    page, others, errors = open_report(build_report(read_run_file(run_file), ReportOptions(B=50)))
    for name, key in (("time", "Home"), ("errors", "End"), ("hallucinated_rate", "ArrowRight")):
        page.locator(f'#sliders input[name="{name}"]').focus()
        page.keyboard.press(key)
        _check_against_the_cli(page, capsys, run_file)
    last = page.locator("#overall tbody tr").last
    expect(last.locator("td").nth(0)).to_have_text("–")  # every call failed: no rank, last
    expect(last.locator("td").nth(2)).to_have_text("no scored results")
    assert others == [] and errors == []


def test_a_report_ranked_by_the_corrected_score_says_so_and_its_sliders_rank_like_the_cli(
    open_report, capsys, tmp_path
):
    from evalcore.core.records import CORRECTED, RANK_BY, Rating
    from tests.factories import rated_run

    run = rated_run("run-corrected")
    run.info.settings[RANK_BY] = CORRECTED
    run.info.weights = {"judge_score": 1.0}
    case = run.cases[1]
    run.ratings += [Rating(case.dataset, case.id, 0, c.id, None, "ana", "pass") for c in run.contenders[1:]]
    run_file = write_run_file(run, tmp_path / "corrected.json")
    page, others, errors = open_report(build_report(read_run_file(run_file), ReportOptions(B=200)))
    expect(page.locator("#rank-basis")).to_contain_text("Ranked by judge_score corrected by people")
    expect(page.locator("#datasets th", has_text="ranked by").first).to_be_visible()
    page.locator('#sliders input[name="cost"]').focus()
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#weights-text")).to_contain_text("cost=-0.01")
    _check_against_the_cli(page, capsys, run_file)
    assert _order(page, "#overall")[-1] == run.contenders[0].id  # its corrected judge_score: 50%
    expect(page.locator("#rank-basis")).to_be_visible()
    assert others == [] and errors == []


def test_a_runs_html_and_scripts_show_as_text(open_report):
    run = untrusted_run()
    page, others, errors = open_report(build_report(run, ReportOptions(B=50)))
    page.locator("details").evaluate_all("els => els.forEach(e => e.open = true)")
    page.locator('#sliders input[name="score"]').focus()
    page.keyboard.press("Home")  # the tables are drawn again from the data
    names = _order(page, "#overall")
    assert set(names) == {c.id for c in run.contenders}
    expect(page.locator("h1")).to_contain_text("<img src=x onerror=\"window.__pwned='img'\">")
    expect(page.locator("details.case").first).to_contain_text("<")
    assert page.evaluate("window.__pwned") is None
    assert page.locator("#pwned").count() == 0  # the payload's <b id=pwned> never became an element
    assert others == [] and errors == []


def test_the_leaderboard_pages_download_is_the_same_offline_report(page, app_url, chromium):
    from tests.browser.conftest import settled

    # The Leaderboard is the app's default page, at the root: "/leaderboard" is no page of the app, and
    # Streamlit answers it with a "Page not found" dialog that leaves every button under it inert.
    page.goto(app_url)
    # The page runs again once its tables are shown (for the charts); a button of the run before is gone.
    expect(page.get_by_test_id("stPlotlyChart").first).to_be_attached()
    settled(page)
    with page.expect_download(timeout=60_000) as download:
        page.get_by_role("button", name="Download report").click()
    name = download.value.suggested_filename
    assert name.startswith("report-") and name.endswith(".html")
    saved = Path(download.value.path()).with_suffix(".html")
    download.value.save_as(saved)
    context, report, others, errors = open_offline(chromium, saved)
    assert len(_order(report, "#overall")) == 12 and others == [] and errors == []
    context.close()
