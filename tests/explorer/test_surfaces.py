"""One number on every surface: the demo run's P(best), weight stability, intervals and p-values read the same
in the CLI (table, JSON, Markdown), the app, the HTML report and compare/gate, whatever order the weights,
filters and contenders come in; an adaptive run's stopped contenders are marked and ranked the same on each."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from evalcore.analysis.decisions.compare import compare
from evalcore.analysis.decisions.gate import evaluate
from evalcore.analysis.tables.runs import rank_run
from evalcore.analysis.tables.text import STOPPED_MARK
from evalcore.analysis.tables.view import leaderboard_view
from evalcore.cli import main
from evalcore.core.metric_set import MetricSet
from evalcore.explorer.report import ReportOptions, build_report, read_embedded
from evalcore.runfile.read import read_run_file
from evalcore.runfile.write import write_run_file
from evalcore.storage.frames import results_frame
from evalcore.storage.history import StoredRun
from evalcore.suite.config import GateModel
from tests.app.test_app_shared import open_page, seed, unescaped
from tests.report_runs import adaptive_run

DEMO = Path(__file__).resolve().parents[2] / "data" / "runs" / "intake-demo.json"
NUMBERS = ["p_best", "stability", "score_lo", "score_hi", "wscore_lo", "wscore_hi"]
SURE = re.compile(r"stays first in (\d+)% of weight jitters .*; ranks first in (\d+)% of bootstrap resamples")


@pytest.fixture(scope="module")
def demo():
    return read_run_file(DEMO)


@pytest.fixture(scope="module")
def reference(demo):
    """The leaderboard's numbers, contender → {name: value}, under the run's own weights."""
    table = rank_run(demo, demo.info.weights)
    return {row["contender"]: {k: row[k] for k in NUMBERS} for row in table.to_dict("records")}


def reversed_weights(weights: dict[str, float]) -> dict[str, float]:
    return dict(reversed(list(weights.items())))


def cli(capsys, *argv) -> str:
    assert main([str(a) for a in argv]) == 0
    return capsys.readouterr().out


def sure_of(text: str) -> tuple[str, str]:
    found = SURE.search(unescaped(" ".join(text.split())))
    assert found, text
    return found.group(1), found.group(2)


def winner_sure(reference: dict) -> tuple[str, str]:
    winner = max(reference, key=lambda c: reference[c]["p_best"])
    return f"{100 * reference[winner]['stability']:.0f}", f"{100 * reference[winner]['p_best']:.0f}"


def test_the_cli_json_gives_the_same_numbers_whatever_order_the_weights_come_in(capsys, demo, reference):
    for weights in (demo.info.weights, reversed_weights(demo.info.weights)):
        text = ",".join(f"{k}={v}" for k, v in weights.items())
        rows = json.loads(cli(capsys, "leaderboard", DEMO, "--weights", text, "--format", "json"))
        assert {r["contender"]: {k: r[k] for k in NUMBERS} for r in rows} == reference


def test_a_contender_filter_gives_the_same_numbers_whatever_order_it_lists_them_in(capsys, demo):
    some = [c.id for c in demo.contenders[:5]]
    seen = []
    for chosen in (some, list(reversed(some))):
        args = [a for c in chosen for a in ("-c", c)]
        seen.append(json.loads(cli(capsys, "leaderboard", DEMO, *args, "--format", "json")))
    assert sorted(seen[0], key=lambda r: r["contender"]) == sorted(seen[1], key=lambda r: r["contender"])


def test_the_cli_table_and_markdown_say_the_banners_numbers(capsys, reference):
    for fmt in ("table", "markdown"):
        assert sure_of(cli(capsys, "leaderboard", DEMO, "--format", fmt, "--wide")) == winner_sure(reference)


def test_the_html_report_embeds_and_says_the_same_numbers(demo, reference):
    for weights in (None, reversed_weights(demo.info.weights)):
        document = build_report(demo, ReportOptions(weights=weights))
        rows = read_embedded(document)["tables"][0]["rows"]
        assert {r["contender"]: {k: r[k] for k in NUMBERS} for r in rows} == reference
        banner = re.search(r"<span data-role='sure'>(.*?)</span>", document)
        assert banner is not None and sure_of(banner.group(1)) == winner_sure(reference)


def test_the_markdown_report_says_the_same_numbers(demo, reference):
    assert sure_of(build_report(demo, fmt="markdown")) == winner_sure(reference)


def test_the_app_shows_the_same_banner_and_p_best(monkeypatch, tmp_path, demo, reference):
    seed(monkeypatch, tmp_path, demo)
    at = open_page("pages/leaderboard.py")
    assert not at.exception
    assert sure_of(at.success[0].value) == winner_sure(reference)
    shown = at.dataframe[0].value.set_index("contender")
    for contender, numbers in reference.items():
        assert shown.loc[contender, "P(best)"] == pytest.approx(100 * numbers["p_best"])
        low, high = 100 * numbers["score_lo"], 100 * numbers["score_hi"]
        assert shown.loc[contender, "score 95% CI"] == f"{low:.1f}–{high:.1f}"


def test_the_views_numbers_do_not_depend_on_the_order_of_the_weights(demo):
    frame = results_frame(demo)
    views = [
        leaderboard_view(frame, MetricSet.of(demo.metrics), weights, contenders=demo.contenders)
        for weights in (demo.info.weights, reversed_weights(demo.info.weights))
    ]
    assert views[0].banner == views[1].banner
    assert views[0].ranked[NUMBERS].equals(views[1].ranked[NUMBERS])


def test_compare_gate_and_significance_give_a_pair_the_same_interval_and_p_value(capsys, demo):
    base, candidate = demo.contenders[1].id, demo.contenders[0].id
    pairs = json.loads(cli(capsys, "significance", DEMO, "--format", "json"))
    tested = next(p for p in pairs if (p["a"], p["b"]) == (candidate, base))
    change = next(c for c in compare(demo, demo, {base: candidate}).pairs[0].changes if c.name == "score")
    gate = GateModel.model_validate({"regression": {"score": {"tolerance": 0.5}}})
    gated = evaluate(demo, gate, contender=candidate, baseline=demo, baseline_contender=base).comparison
    assert gated is not None
    gated_change = next(c for c in gated.pairs[0].changes if c.name == "score")
    for found in (change, gated_change):
        assert (found.lo, found.hi, found.p_value) == pytest.approx((tested["lo"], tested["hi"], tested["p_value"]))


def written(run, tmp_path_factory, name: str):
    """``run`` as the run file <name>.json in a folder of its own."""
    return write_run_file(run, tmp_path_factory.mktemp(name) / f"{name}.json")


# --- an adaptive run: the same marks and order on every surface ----------------------------------------


@pytest.fixture(scope="module")
def raced():
    return adaptive_run()


@pytest.fixture(scope="module")
def raced_file(raced, tmp_path_factory):
    return written(raced, tmp_path_factory, "raced")


@pytest.fixture(scope="module")
def raced_order(raced):
    """The contenders in rank order, and each one's stop text (None while still in)."""
    table = rank_run(raced, raced.info.weights)
    return list(table["contender"]), dict(zip(table["contender"], table["stopped"], strict=True))


def order_in(text: str, contenders) -> list[str]:
    """The contenders in the order a table lists them (each id's first appearance in the text)."""
    return sorted(contenders, key=lambda c: text.index(c))


def test_an_adaptive_runs_stopped_contenders_rank_below_those_still_in(raced_order):
    order, stops = raced_order
    assert [stops[c] is not None for c in order] == [False, False, True, True]


def test_the_cli_json_gives_an_adaptive_runs_order_and_stops(capsys, raced_file, raced_order):
    rows = json.loads(cli(capsys, "leaderboard", raced_file, "--format", "json"))
    assert [(r["contender"], r["stopped"]) for r in rows] == [(c, raced_order[1][c]) for c in raced_order[0]]


def test_the_cli_table_and_markdown_mark_an_adaptive_runs_stopped_contenders(capsys, raced_file, raced_order):
    order, stops = raced_order
    for fmt in ("table", "markdown"):
        text = cli(capsys, "leaderboard", raced_file, "--format", fmt, "--wide")
        table, notes = text.split("\n\n", 1)
        assert order_in(table, order) == order
        marked = [line for line in table.splitlines() if line.rstrip(" |").endswith(STOPPED_MARK)]
        assert order_in("\n".join(marked), [c for c in order if stops[c]]) == [c for c in order if stops[c]]
        assert len(marked) == 2
        for contender, stop in stops.items():
            assert (stop is None) or f"{contender}: {stop}" in " ".join(notes.split())


def test_the_html_report_ranks_and_marks_an_adaptive_run_as_the_cli(raced, raced_order):
    document = build_report(raced, ReportOptions(B=200))
    rows = read_embedded(document)["tables"][0]["rows"]
    assert [(r["contender"], r["stopped"]) for r in rows] == [(c, raced_order[1][c]) for c in raced_order[0]]


def test_the_markdown_report_ranks_and_marks_an_adaptive_run_as_the_cli(raced, raced_order):
    text = unescaped(build_report(raced, ReportOptions(B=200), fmt="markdown"))
    overall = text.split("## Overall", 1)[1].split("\n## ", 1)[0]
    assert order_in(overall, raced_order[0]) == raced_order[0]
    for stop in filter(None, raced_order[1].values()):
        assert stop in text


def test_the_app_ranks_and_marks_an_adaptive_run_as_the_cli(monkeypatch, tmp_path, raced, raced_order):
    seed(monkeypatch, tmp_path, raced)
    at = open_page("pages/leaderboard.py")
    assert not at.exception
    shown = at.dataframe[0].value
    assert list(shown["contender"]) == raced_order[0]
    for contender, mark in zip(shown["contender"], shown["mark"], strict=True):
        stop = raced_order[1][contender]
        assert (stop in mark) if stop else STOPPED_MARK not in mark


# --- a run whose cases declare minimum scores: the same pass rate on every surface ---------------------


@pytest.fixture(scope="module")
def floored():
    """The demo run with ``minimum_scores`` on every third case."""
    run = read_run_file(DEMO)
    for case in run.cases[::3]:
        case.metadata["minimum_scores"] = {"score": 1.0}
    return run


@pytest.fixture(scope="module")
def floored_file(floored, tmp_path_factory):
    return written(floored, tmp_path_factory, "floored")


@pytest.fixture(scope="module")
def pass_rates(floored):
    """contender → pass rate, as ``evalcore leaderboard`` ranks it."""
    table = rank_run(floored, floored.info.weights, ci=False)
    rates = dict(zip(table["contender"], table["pass_rate"], strict=True))
    assert len(set(rates.values())) > 1  # the contenders differ, so a mix-up would show
    return rates


def rates_in_table(text: str, contenders) -> dict[str, str]:
    """contender → the ``pass rate`` cell of a plain-text table's row."""
    lines = text.splitlines()
    header = next(line for line in lines if "pass rate" in line)
    at = header.index("pass rate")
    return {
        c: next(line for line in lines if f" {c} " in f" {line} ")[at : at + len("pass rate")].strip()
        for c in contenders
    }


def test_the_cli_json_gives_each_contenders_pass_rate(capsys, floored_file, pass_rates):
    rows = json.loads(cli(capsys, "leaderboard", floored_file, "--format", "json"))
    assert {r["contender"]: r["pass_rate"] for r in rows} == pytest.approx(pass_rates)


def test_the_run_commands_end_table_shows_the_same_pass_rate(capsys, monkeypatch, tmp_path, floored, pass_rates):
    from evalcore.analysis.tables.summaries import write_summary
    from evalcore.analysis.tables.text import format_percent
    from evalcore.cli.ranking import print_run_leaderboard
    from evalcore.storage.store import Store

    monkeypatch.setenv("COLUMNS", "300")  # wide enough for every column
    with Store(tmp_path / "s.db") as store:
        store.import_run(floored)
        run_id = floored.info.id
        print_run_leaderboard(StoredRun(store, run_id), write_summary(store, run_id))
    shown = rates_in_table(capsys.readouterr().out, pass_rates)
    assert shown == {c: format_percent(rate) for c, rate in pass_rates.items()}


def test_the_html_report_embeds_the_same_pass_rate(floored, pass_rates):
    document = build_report(floored, ReportOptions(B=200))
    rows = read_embedded(document)["tables"][0]["rows"]
    assert {r["contender"]: r["pass_rate"] for r in rows} == pytest.approx(pass_rates)


def test_the_markdown_report_has_a_pass_rate_column(floored):
    assert "pass rate" in build_report(floored, ReportOptions(B=200), fmt="markdown")


def test_the_app_shows_the_same_pass_rate(monkeypatch, tmp_path, floored, pass_rates):
    seed(monkeypatch, tmp_path, floored)
    at = open_page("pages/leaderboard.py")
    assert not at.exception
    shown = at.dataframe[0].value.set_index("contender")["pass rate"].to_dict()
    assert shown == pytest.approx({c: 100 * rate for c, rate in pass_rates.items()})


def test_a_per_dataset_table_ranked_by_the_corrected_score_reads_the_same_in_the_cli_and_the_app(
    capsys, monkeypatch, tmp_path
):
    from evalcore.core.records import CORRECTED, RANK_BY, Rating
    from tests.factories import rated_run

    run = rated_run("run-corrected")
    run.info.settings[RANK_BY] = CORRECTED
    run.info.weights = {"judge_score": 1.0}
    case = run.cases[1]  # roofing: people rate every contender's reply there, only c0's in tax_preparation
    run.ratings += [Rating(case.dataset, case.id, 0, c.id, None, "ana", "pass") for c in run.contenders[1:]]
    path = write_run_file(run, tmp_path / "run.json")
    rows = json.loads(cli(capsys, "leaderboard", path, "--by-dataset", "--format", "json"))
    seed(monkeypatch, tmp_path, run)
    c0 = run.contenders[0].id
    for dataset, basis in (("roofing", "corrected by people"), ("tax_preparation", "judge's own")):
        shown = open_page("pages/leaderboard.py", dataset_tab=dataset).dataframe[1].value.set_index("contender")
        mine = {r["contender"]: r for r in rows if r["dataset"] == dataset}
        assert set(shown["ranked by"]) == {r["ranked_by"] for r in mine.values()} == {basis}
        assert {c: shown.at[c, "judge_score"] for c in mine} == {
            c: pytest.approx(100 * r["judge_score"]) for c, r in mine.items()
        }
        if dataset == "roofing":  # c0's one reply, judged 1, failed by people, is corrected to 0: last on both
            assert shown["rank"].idxmax() == max(mine.values(), key=lambda r: r["rank"])["contender"] == c0


def test_a_gate_checks_the_judged_metric_of_a_run_ranked_by_the_corrected_score_as_its_leaderboard_shows_it():
    from evalcore.analysis.decisions.gate import FAIL
    from tests.factories import corrected_run

    run = corrected_run()
    c0 = run.contenders[0].id
    shown = rank_run(run, run.info.weights, ci=False).set_index("contender").loc[c0, "judge_score"]
    report = evaluate(run, GateModel.model_validate({"minimum": {"judge_score": 0.9}}), contender=c0, B=50)
    check = next(c for c in report.checks if c.name == "judge_score")
    assert check.value == pytest.approx(shown) == pytest.approx(0.5) and report.verdict == FAIL
