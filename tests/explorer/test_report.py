"""The report file: what it embeds equals the leaderboard, its script ranks as the Python does, it is stable
and offline, and a run's text stays text."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType

import numpy as np
import pandas as pd
import pytest

from evalcore.analysis.ranking.leaderboard import aggregate, rank
from evalcore.analysis.scores.results import Filters
from evalcore.analysis.scores.rules import BEST_VALUE_POINTS, ranking_rules
from evalcore.analysis.tables.runs import rank_run, run_stops
from evalcore.analysis.tables.view import leaderboard_view, weight_names
from evalcore.core.metric_set import MetricSet
from evalcore.explorer.report import (
    ReportOptions,
    build_report,
    embed_json,
    read_embedded,
    report_payload,
    report_script,
)
from evalcore.runfile.read import read_run_file
from evalcore.storage.frames import results_frame
from tests.report_runs import EDGE_WEIGHTS, adaptive_run, edge_run
from tests.untrusted import PAYLOADS, untrusted_run

DEMO = Path(__file__).resolve().parents[2] / "data" / "runs" / "intake-demo.json"
#: Runs report.js's ranking half under node: every table under every weight draw, as plain lists.
HARNESS = """
const ranking = require(process.argv[1]);
if (process.argv[2] === "rules") { process.stdout.write(JSON.stringify(ranking.rules)); process.exit(0); }
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = input.draws.map((w) => input.tables.map((t) => ranking.rankTable(t.rows, w, input.points).map(
  (r) => [r.contender, r.rank, r.wscore, r.best, r.best_value])));
process.stdout.write(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def node() -> str:
    """The ``node`` binary; ``tests/run.sh`` installs it and sets ``EVALCORE_REQUIRE_NODE``, so CI never skips."""
    found = shutil.which("node")
    if found is None:
        message = "node is missing: apt-get install -y nodejs"
        if os.environ.get("EVALCORE_REQUIRE_NODE"):
            pytest.fail(message)
        pytest.skip(message)
    return found


@pytest.fixture(scope="module")
def script_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report's script as a page gets it (the ranking's numbers written in), in a file node can require."""
    path = tmp_path_factory.mktemp("report-js") / "report.js"
    path.write_text(report_script(), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def demo():
    return read_run_file(DEMO)


@pytest.fixture(scope="module")
def demo_html(demo):
    return build_report(demo, ReportOptions(B=200))


def test_the_embedded_aggregates_equal_the_leaderboards(demo, demo_html):
    data = read_embedded(demo_html)
    expected = rank_run(demo, demo.info.weights, ci=True)
    rows = data["tables"][0]["rows"]
    assert [r["contender"] for r in rows] == list(expected["contender"])
    for row, (_, want) in zip(rows, expected.iterrows(), strict=True):
        for name in ("cases", "scored", "errors", "score", "cost", "time", *(m.name for m in demo.metrics)):
            assert row["values"][name] == pytest.approx(want[name], rel=1e-12, abs=1e-15), name
        assert row["rank"] == want["rank"] and row["best"] == want["best"] and row["best_value"] == want["best_value"]
        assert row["wscore"] == pytest.approx(want["wscore"], rel=1e-12)


def test_the_embedded_per_dataset_tables_equal_the_leaderboards(demo, demo_html):
    data = read_embedded(demo_html)
    expected = rank_run(demo, demo.info.weights, by_dataset=True, ci=False)
    for table in data["tables"][1:]:
        want = expected[expected["dataset"] == table["dataset"]]
        assert [r["contender"] for r in table["rows"]] == list(want["contender"])
        assert [r["values"]["cost"] for r in table["rows"]] == pytest.approx(list(want["cost"]))
    assert [t["dataset"] for t in data["tables"][1:]] == sorted(expected["dataset"].unique())


def test_sliders_cover_every_weightable_name_and_start_at_the_reports_weights(demo, demo_html):
    data = read_embedded(demo_html)
    assert data["names"] == weight_names(MetricSet.of(demo.metrics))
    assert data["sliders"]["score"] == 60 and data["sliders"]["cost"] == -5 and data["sliders"]["exact_match"] == 0
    assert data["weights"] == demo.info.weights


def test_the_sliders_tooltips_are_plain_text_not_escaped_markdown(demo):
    metric_set = MetricSet.of(demo.metrics)
    hints = report_payload(metric_set, leaderboard_view(results_frame(demo), metric_set, {}, ci=False))["hints"]
    described = {m.name: m.description for m in demo.metrics}
    assert hints["exact_match"].startswith(described["exact_match"] + " Positive")
    assert described["field_accuracy"].rstrip(".") in hints["score"]  # the primary metric weighs on score
    assert not any("\\" in hint for hint in hints.values())


def test_the_same_run_and_options_give_the_same_bytes(demo, demo_html):
    assert build_report(demo, ReportOptions(B=200)) == demo_html


def test_the_only_times_in_the_report_are_the_runs_own(demo, demo_html):
    stamps = set(re.findall(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z?", demo_html))
    assert stamps == {demo.info.created_at, demo.info.finished_at}


def test_the_report_requests_nothing_from_any_host(demo_html):
    without_data = demo_html.split('<script type="application/json"', 1)[0]
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", without_data)
    assert "default-src 'none'" in demo_html  # the browser itself refuses any fetch, whatever slipped in


def test_the_demo_report_is_under_a_megabyte(demo_html):
    assert len(demo_html.encode("utf-8")) < 1_000_000


def test_the_pages_script_ranks_with_the_python_rules(node, script_file):
    reply = subprocess.run([node, "-e", HARNESS, str(script_file), "rules"], capture_output=True, text=True, check=True)
    assert json.loads(reply.stdout) == ranking_rules()


def test_the_report_js_file_holds_no_number_of_the_rules():
    source = (Path(__file__).resolve().parents[2] / "evalcore" / "explorer" / "report.js").read_text()
    ranking_half = source[: source.index('if (typeof module !== "undefined")')]
    assert "/*{{RULES}}*/" in ranking_half
    for literal in ("1e9", "1e-9", "0.02", "15", "5 *", '"cost" ||'):
        assert literal not in ranking_half, literal


def test_the_page_embeds_the_rules_it_ranks_with(demo_html):
    assert json.dumps(ranking_rules(), separators=(",", ":")) in demo_html
    assert "/*{{RULES}}*/" not in demo_html


@pytest.mark.parametrize("which", ["demo", "edges", "adaptive"])
def test_the_pages_ranking_equals_the_pythons_under_any_weights(which, demo, node, script_file):
    run = {"demo": demo, "edges": edge_run(), "adaptive": adaptive_run()}[which]
    stops = run_stops(run)
    metric_set = MetricSet.of(run.metrics)
    view = leaderboard_view(results_frame(run), metric_set, run.info.weights, ci=False, stops=stops)
    payload = report_payload(metric_set, view)
    names = payload["names"]
    rng = np.random.default_rng(7)
    draws = [{}, {"errors": -1.0}, {"cost": -1.0}, {"time": 0.5}, {"score": 1.0, "errors": -0.01}]
    for _ in range(60):
        positions = rng.integers(-100, 101, size=len(names)) * (rng.random(len(names)) < 0.6)
        draws.append({n: int(p) / 100 for n, p in zip(names, positions, strict=True) if p})
    reply = subprocess.run(
        [node, "-e", HARNESS, str(script_file)],
        input=json.dumps({"draws": draws, "tables": payload["tables"], "points": BEST_VALUE_POINTS}),
        capture_output=True,
        text=True,
        check=True,
    )
    ranked_in_js = json.loads(reply.stdout)
    frame = results_frame(run)
    tables = [aggregate(frame, run.metrics), aggregate(frame, run.metrics, by=("contender", "dataset"))]
    for weights, js_tables in zip(draws, ranked_in_js, strict=True):
        python = [rank(tables[0], weights, run.metrics, stops=stops)]
        by_dataset = rank(tables[1], weights, run.metrics, stops=stops)
        python += [part for _, part in by_dataset.groupby("dataset", sort=True)]
        for want, got in zip(python, js_tables, strict=True):
            assert [g[0] for g in got] == list(want["contender"]), weights
            assert [g[1] for g in got] == [None if pd.isna(r) else int(r) for r in want["rank"]], weights
            assert [g[3] for g in got] == list(want["best"]) and [g[4] for g in got] == list(want["best_value"])
            wscores = [np.nan if g[2] is None else g[2] for g in got]
            np.testing.assert_allclose(wscores, want["wscore"].to_numpy(float), rtol=1e-12, atol=1e-12)


def test_the_edge_run_embeds_nulls_as_null():
    html = build_report(edge_run(), ReportOptions(B=50))
    rows = {r["contender"]: r for r in read_embedded(html)["tables"][0]["rows"]}
    dead = rows["fake/perfect · t=0.5"]
    assert dead["rank"] is None and dead["values"]["score"] is None and dead["p_best"] is None
    assert rows["fake/guesser · t=0.0"]["values"]["cost"] is None
    assert rows["fake/perfect · t=0.0"]["values"]["cost"] == 0.0
    assert read_embedded(html)["weights"] == EDGE_WEIGHTS


def test_a_runs_text_is_escaped_everywhere():
    html = build_report(untrusted_run(), ReportOptions(B=50))
    for payload in (p for p in PAYLOADS if "<" in p):
        assert payload not in html, payload  # each one is in the page, but only as escaped text
    for markup in ("<script>window", "<img src", "<svg onload", "<iframe", "<a href", "<b id"):
        assert markup not in html, markup
    assert "&lt;img src=x onerror=" in html
    # The JSON block cannot be closed early: its only "</script>" is its own end.
    data_block = html.split('<script type="application/json" id="report-data">', 1)[1]
    assert data_block.index("</script>") == data_block.index("</script>\n<script>")
    assert read_embedded(html)["tables"][0]["rows"]  # and it still reads back


def test_a_template_marker_in_a_runs_text_is_not_filled_in(demo):
    run = edge_run()
    run.info.suite = "{{DATA}} {{SCRIPT}}"
    html = build_report(run, ReportOptions(B=50))
    assert "evalcore report: {{DATA}} {{SCRIPT}}" in html


def test_embedded_json_escapes_what_could_end_a_script_block():
    text = embed_json({"a": "</script><!-- & -->"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"a": "</script><!-- & -->"}


def test_failing_cases_are_capped_per_contender_with_a_note(demo):
    html = build_report(demo, ReportOptions(B=50, failing_per_contender=2))
    assert html.count("<details class='case'>") <= 2 * len(demo.contenders)
    assert "(the first 2 shown," in html and "left out)" in html
    assert "<th>want</th><th>got</th>" in html


def test_a_dataset_filter_narrows_tables_and_failing_cases(demo):
    html = build_report(demo, ReportOptions(B=50, filters=Filters(datasets=["roofing"])))
    data = read_embedded(html)
    assert [t["dataset"] for t in data["tables"][1:]] == ["roofing"]
    cases = re.findall(r"<details class='case'><summary>([^/]+) / ", html)
    assert cases and set(cases) == {"roofing"}
    assert "<th>only</th><td>roofing</td>" in html


def test_both_charts_draw_the_pareto_frontier(demo_html):
    assert demo_html.count('<figure class="chart">') == 2
    assert "Score vs cost" in demo_html and "Score vs time" in demo_html
    assert demo_html.count('stroke-dasharray="6 4"') == 2


def test_the_markdown_report_has_the_banner_and_tables_and_no_links(demo):
    text = build_report(demo, ReportOptions(B=50), fmt="markdown")
    assert text.startswith("# evalcore report: intake")
    assert "**Winner: fake/oracle · t\\=0**" in text and "**Best value:**" in text
    assert text.count("| # | contender |") == 1 + len({c.dataset for c in demo.cases})
    assert "http" not in text and "](" not in text


def test_the_markdown_report_escapes_a_runs_text():
    text = build_report(untrusted_run(), ReportOptions(B=50), fmt="markdown")
    assert "\\<script\\>" in text  # shown as text
    assert not re.search(r"(?<!\\)<", text), "a < that a renderer could read as HTML"
    assert not re.search(r"(?<!\\)\]\(", text), "a ]( that a renderer could read as a link"


def test_an_unknown_format_is_refused(demo):
    with pytest.raises(ValueError, match="unknown report format 'pdf'"):
        build_report(demo, fmt="pdf")


def test_a_stored_runs_report_is_read_on_a_connection_of_its_own(tmp_path):
    from evalcore.explorer.report import stored_run_report
    from evalcore.storage.store import Store

    run = edge_run()
    with Store(tmp_path / "store.db") as store:
        store.import_run(run)
    page = stored_run_report(tmp_path / "store.db", "run-edges", ReportOptions(weights={"cost": -1}, B=50))
    data = read_embedded(page.decode("utf-8"))
    assert data["weights"] == {"cost": -1.0} and len(data["tables"][0]["rows"]) == len(run.contenders)
    assert page.count(b"<details class='case'>") > 0


def test_a_filter_that_keeps_nothing_gives_a_report_that_says_so(demo):
    html = build_report(demo, ReportOptions(B=50, filters=Filters(datasets=["no-such-dataset"])))
    assert "No result matches these filters." in html
    assert [t["rows"] for t in read_embedded(html)["tables"]] == [[]]


def test_a_classification_run_reports_each_contenders_per_label_metrics():
    from tests.analysis.test_classification_metrics import labelled_run

    page = build_report(labelled_run(), ReportOptions(B=50))
    section = page.split("<h2>Classification: per label</h2>", 1)[1].split("</section>", 1)[0]
    assert "m1: 6 scored results, accuracy 50.0%, macro-F1 0.292" in section
    assert "<th>precision</th><th>recall</th><th>F1</th><th>support</th>" in section
    assert "<tr><td>c</td><td>–</td><td>0.000</td><td>0.000</td><td>1</td><td>0</td></tr>" in section


def test_a_run_without_labels_has_no_classification_section(demo_html):
    assert "Classification: per label" not in demo_html


def _derivations(build: Callable[[], object]) -> int:
    """How many times ``build`` derives a metric list's aggregate metrics, whichever module asks."""
    from evalcore.core.aggregates import aggregate_metrics

    calls = 0

    def count(frame: FrameType, event: str, arg: object) -> None:
        nonlocal calls
        calls += event == "call" and frame.f_code is aggregate_metrics.__code__

    sys.setprofile(count)
    try:
        build()
    finally:
        sys.setprofile(None)
    return calls


@pytest.mark.parametrize("fmt", ["html", "markdown"])
def test_a_report_derives_its_runs_metric_set_once(fmt):
    from tests.analysis.test_classification_metrics import labelled_run

    run = labelled_run()
    assert _derivations(lambda: build_report(run, ReportOptions(B=20, filters=Filters(contenders=["m1"])), fmt)) == 1
