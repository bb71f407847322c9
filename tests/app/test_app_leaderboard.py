"""pages/leaderboard.py under AppTest: tables, headline, weights, filters, charts, empty store, viewer mode."""

from __future__ import annotations

import json

from evalcore.core.metric_set import MetricSet
from tests.app.test_app_shared import demo_run, open_page, record_page_switches, seed, texts, unescaped
from tests.factories import make_run

PAGE = "pages/leaderboard.py"


def charts(at):
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def test_overall_and_per_dataset_tables_rank_every_contender(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = open_page(PAGE)
    assert not at.exception and not at.error
    overall = at.dataframe[0].value
    assert list(overall["rank"]) == [1, 2, 3, 4]
    assert len(at.dataframe) == 1 + 1  # overall, then the open dataset tab's (tabs are lazy)
    assert [t.label for t in at.tabs][:3] == ["immigration\\_law", "roofing", "tax\\_preparation"]
    assert set(at.dataframe[1].value["contender"]) == set(overall["contender"])
    assert "★ best" in overall["mark"].iloc[0] or overall["errors"].iloc[0] > 0


def test_another_dataset_tab_draws_its_own_table(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    first = open_page(PAGE).dataframe[1].value
    at = open_page(PAGE, dataset_tab="roofing")
    assert len(at.dataframe) == 2
    assert list(at.dataframe[1].value["wscore"]) != list(first["wscore"])


def test_the_headline_names_the_winner_and_how_sure_we_are(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = open_page(PAGE)
    headline = at.success[0].value
    assert headline.startswith("**Winner: ") and "weight jitters" in headline and "bootstrap" in headline


def test_a_run_with_one_contender_names_no_winner(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, make_run(n_contenders=1, n_cases=9, with_errors=False))
    at = open_page(PAGE)
    assert not at.exception and not at.success
    headline = at.info[-1].value
    assert headline.startswith("**Only one contender, ") and "no winner" in headline
    assert "weight jitters" not in headline and "bootstrap" not in headline


def test_weights_from_the_sliders_re_rank_the_table(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    cheapest = open_page(PAGE, weights_for="run-demo", w_cost=-100).dataframe[0].value
    assert list(cheapest["cost"]) == sorted(cheapest["cost"])
    best_score = open_page(PAGE, weights_for="run-demo", w_score=100).dataframe[0].value
    assert list(best_score["score"]) == sorted(best_score["score"], reverse=True)


def test_filters_keep_only_the_chosen_contenders(monkeypatch, tmp_path):
    run = demo_run()
    seed(monkeypatch, tmp_path, run)
    chosen = [run.contenders[0].id, run.contenders[1].id]
    at = open_page(PAGE, filters_for="run-demo", filters={"contender": chosen})
    assert sorted(at.dataframe[0].value["contender"]) == sorted(chosen)


def test_the_filters_are_drawn_when_opened_and_kept_when_closed(monkeypatch, tmp_path):
    run = demo_run()
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE)
    assert not at.multiselect and [e.label for e in at.expander] == ["Filters", "Glossary"]
    at.session_state["filters_open"] = True  # what a click on the expander does (on_change="rerun")
    at.run()
    assert [m.label for m in at.multiselect] == ["Datasets", "Variants", "Contenders", "metadata: difficulty"]
    at.multiselect(key="f_contender").select(run.contenders[0].id).run()
    assert list(at.dataframe[0].value["contender"]) == [run.contenders[0].id]
    at.session_state["filters_open"] = False
    at.run().run()
    assert not at.multiselect and at.expander[0].label == "Filters"
    assert f"Filtered by contenders: {run.contenders[0].id}" in [unescaped(c.value) for c in at.caption]
    assert list(at.dataframe[0].value["contender"]) == [run.contenders[0].id]
    at.session_state["filters_open"] = True
    at.run()
    assert at.multiselect(key="f_contender").value == [run.contenders[0].id]


def test_filter_values_the_run_does_not_have_are_dropped_even_when_the_filters_are_closed(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = open_page(PAGE, filters_for="run-demo", filters={"dataset": ["nope", "roofing"], "meta_nope": ["x"]})
    assert not at.exception
    assert at.session_state["filters"] == {"dataset": ["roofing"]}
    assert "Filtered by datasets: roofing" in [unescaped(c.value) for c in at.caption]
    assert set(at.dataframe[0].value["contender"]) and [t.label for t in at.tabs][0] == "roofing"


def test_a_filtered_view_of_a_run_without_a_saved_summary_never_computes_the_whole_runs(monkeypatch, tmp_path):
    """A filter set on an upload or a run still going: the lists come from the frame the view reads anyway."""
    from evalcore.analysis.tables import summaries

    run = demo_run()
    seed(monkeypatch, tmp_path, run)  # bundled runs are imported without a summary
    whole: list[int] = []
    summarize = summaries.summarize
    monkeypatch.setattr(summaries, "summarize", lambda *args, **kwargs: whole.append(1) or summarize(*args, **kwargs))
    at = open_page(PAGE, filters_for="run-demo", filters={"dataset": ["roofing"]})
    assert not at.exception and whole == []
    assert "Filtered by datasets: roofing" in [unescaped(c.value) for c in at.caption]
    assert [t.label for t in at.tabs][0] == "roofing"
    at.session_state["filters_open"] = True
    at.run()
    datasets = sorted({case.dataset for case in run.cases})
    assert at.multiselect(key="f_dataset").options == datasets and at.multiselect(key="f_dataset").value == ["roofing"]
    assert whole == []
    at.multiselect(key="f_dataset").unselect("roofing").run()  # unfiltered: the whole run's summary, once
    assert whole == [1] and len(at.dataframe[0].value) == len(run.contenders)


def test_the_first_chart_is_score_vs_cost_with_the_pareto_frontier(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    specs = charts(open_page(PAGE, charts_now=True))
    assert len(specs) == 1  # chart tabs are lazy: only the open one is drawn
    assert any(trace.get("name") == "Pareto frontier" for trace in specs[0]["data"])
    assert specs[0]["layout"]["xaxis"]["type"] == "log"


def test_each_chart_tab_draws_its_chart(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    kinds = {
        tab: charts(open_page(PAGE, charts_now=True, chart_tab=tab))[0]["data"][0]["type"]
        for tab in ("Score vs time", "Metrics", "Contender × dataset")
    }
    assert kinds == {"Score vs time": "scatter", "Metrics": "bar", "Contender × dataset": "heatmap"}


def test_a_sessions_first_view_sends_the_tables_and_asks_the_browser_when_they_are_shown(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = open_page(PAGE)
    assert not at.exception and len(at.dataframe) == 2 and not charts(at)
    assert "The chart follows once the tables are on screen." in texts(at)
    reporter = at.get("bidi_component")
    assert len(reporter) == 1 and "stDataFrame" in reporter[0].proto.js_content
    at.run()  # the next script run, whether the reporter's trigger or a click starts it (browser tests: both)
    assert len(charts(at)) == 1 and not at.get("bidi_component")
    assert "The chart follows once the tables are on screen." not in texts(at)


def test_glossary_comes_from_the_metric_descriptions(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    assert "hallucinated_rate: Share of the open fields given a value." in texts(open_page(PAGE))


def test_empty_store_offers_the_demo_run(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    at = open_page(PAGE)
    assert "No runs yet" in texts(at)
    assert [b.label for b in at.button] == ["Run the demo suite"]


def test_viewer_mode_shows_runs_but_never_offers_to_launch(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run(), viewer=True)
    at = open_page(PAGE)
    assert len(at.dataframe[0].value) == 4
    assert not at.button


def test_viewer_mode_with_an_empty_store_offers_no_launch(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, viewer=True)
    at = open_page(PAGE)
    assert "No runs yet" in texts(at) and not at.button


def test_html_in_a_run_file_is_never_rendered(monkeypatch, tmp_path):
    run = demo_run()
    run.metrics[1] = type(run.metrics[1])("exact_match", "<img src=x onerror=alert(1)> [link](http://evil)")
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE)
    assert not at.exception
    glossary = next(t.value for t in at.text)
    assert "<img src=x onerror=alert(1)>" in glossary  # shown as text, in st.text
    assert all("<img" not in m.value for m in at.markdown)


def test_clicking_a_row_opens_that_contenders_cases(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    second = open_page(PAGE).dataframe[0].value["contender"].iloc[1]
    switches = record_page_switches(monkeypatch)
    at = open_page(PAGE, leaderboard_table={"selection": {"rows": [1], "columns": [], "cells": []}})
    assert switches == ["pages/cases.py"]
    assert at.session_state["case_contender"] == second


def test_clicking_a_chart_point_opens_that_contenders_cases(monkeypatch, tmp_path):
    run = demo_run()
    seed(monkeypatch, tmp_path, run)
    switches = record_page_switches(monkeypatch)
    click = {
        "selection": {"points": [{"customdata": run.contenders[2].id}], "point_indices": [0], "box": [], "lasso": []}
    }
    at = open_page(PAGE, charts_now=True, **{"chart_Score vs cost": click})
    assert switches == ["pages/cases.py"]
    assert at.session_state["case_contender"] == run.contenders[2].id


def test_the_demo_button_launches_the_demo_suite_and_opens_the_run_page(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path)
    switches = record_page_switches(monkeypatch)
    at = open_page(PAGE)
    at.button[0].click().run()
    assert switches == ["pages/run.py"]
    from pages._loaders import jobs

    job = jobs()[at.session_state["job"]]
    job.join(timeout=60)
    assert job.status == "completed", job.error
    assert len(job.run.contenders) == 12


def test_a_run_with_a_saved_summary_opens_without_reading_its_results(monkeypatch, tmp_path):
    from evalcore.analysis.tables import summaries, view
    from evalcore.storage.frames import results_frame
    from evalcore.storage.store import Store

    run = demo_run()
    seed(monkeypatch, tmp_path)
    with Store(tmp_path / "evalcore.db") as store:
        store.import_run(run)
        summaries.write_summary(store, run.info.id)

    def no_reading(*_):
        raise AssertionError("the page read every result")

    monkeypatch.setattr(Store, "load_results_frame_and_changes", no_reading)
    monkeypatch.setattr(Store, "load_results_frame", no_reading)
    at = open_page(PAGE, filters_open=True)
    assert not at.exception and not at.error
    expected = view.leaderboard_view(
        results_frame(run), MetricSet.of(run.metrics), run.info.weights, contenders=run.contenders
    )
    shown = at.dataframe[0].value
    assert list(shown["contender"]) == list(expected.overall["contender"])
    assert list(shown["wscore"]) == list(expected.overall["wscore"])
    assert list(shown["P(best)"]) == list(expected.overall["P(best)"])
    assert [m.label for m in at.multiselect][:3] == ["Datasets", "Variants", "Contenders"]


def test_opening_a_finished_run_saves_its_summary_and_a_running_one_does_not(monkeypatch, tmp_path):
    from evalcore.analysis.tables import summaries
    from evalcore.storage.store import Store
    from tests.factories import make_run

    done, going = demo_run(), make_run(3, 4, run_id="run-going", status="running")
    seed(monkeypatch, tmp_path, done, going)
    assert not open_page(PAGE, run="run-demo").exception
    assert not open_page(PAGE, run="run-going").exception
    with Store(tmp_path / "evalcore.db") as store:
        assert summaries.read_summary(store, "run-demo") is not None
        assert summaries.read_summary(store, "run-going") is None


def test_a_click_on_any_cell_of_a_row_opens_that_contenders_cases(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    second = open_page(PAGE).dataframe[0].value["contender"].iloc[1]
    switches = record_page_switches(monkeypatch)
    at = open_page(PAGE, leaderboard_table={"selection": {"rows": [], "columns": [], "cells": [[1, "cost"]]}})
    assert switches == ["pages/cases.py"]
    assert at.session_state["case_contender"] == second


def unweighted_run():
    run = demo_run()
    run.info.weights = {}
    return run


def test_without_weights_the_table_is_ranked_by_score_and_has_no_wscore_column(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, unweighted_run())
    at = open_page(PAGE)
    assert not at.exception and not at.error
    overall = at.dataframe[0].value
    assert "wscore" not in overall.columns and "wscore 95% CI" not in overall.columns
    assert list(overall["score"]) == sorted(overall["score"], reverse=True)
    assert "No weights set: ranked by score." in texts(at)
    assert "no value for a weighted column" not in texts(at)


def test_the_sidebar_says_when_no_weights_are_set(monkeypatch, tmp_path):
    from tests.app.test_app_shared import app

    seed(monkeypatch, tmp_path, unweighted_run())
    at = app()
    assert "No weights set: ranked by score." in [c.value for c in at.sidebar.caption]


def test_rows_scored_on_few_cases_are_marked_and_explained(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())  # 9 cases: every row is scored on fewer than 30
    at = open_page(PAGE)
    assert all("few cases" in mark for mark in at.dataframe[0].value["mark"])
    assert "few cases: scored on fewer than 30 cases" in texts(at)


def test_a_row_with_nothing_scored_has_no_rank_and_says_so(monkeypatch, tmp_path):
    from tests.factories import failed

    run = demo_run()
    last = run.contenders[-1].id
    for result in run.results:
        if result.contender == last:
            failed(result)
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE)
    overall = at.dataframe[0].value
    row = overall[overall["contender"] == last].iloc[0]
    assert row.name == len(overall) - 1  # listed last
    assert row["rank"] != row["rank"] and row["P(best)"] != row["P(best)"]  # NaN: shown as –
    assert "no scored results" in row["mark"]
    assert "no scored results: every call failed" in texts(at)


def test_the_winner_banner_says_why_it_won(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    headline = unescaped(open_page(PAGE).success[0].value)
    assert "\nWhy: " in headline


def test_the_cost_axis_has_readable_dollar_ticks_and_the_frontier_stands_out(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    (spec,) = charts(open_page(PAGE, charts_now=True))
    axis = spec["layout"]["xaxis"]
    assert axis["type"] == "log" and axis["ticktext"][:2] == ["$0.0002", "$0.0005"]
    assert all("e-" not in text for text in axis["ticktext"])
    points = next(t for t in spec["data"] if t.get("name") == "contenders")
    assert "diamond" in points["marker"]["symbol"] and "per case" in points["hovertemplate"]
    labelled = [text for text in points["text"] if text]
    assert len(labelled) == points["marker"]["symbol"].count("diamond")  # frontier points carry their name


def test_time_is_in_seconds_per_case(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    (spec,) = charts(open_page(PAGE, charts_now=True, chart_tab="Score vs time"))
    assert spec["layout"]["xaxis"]["title"]["text"] == "seconds per case"
    at = open_page(PAGE)
    assert "time: seconds per case" in texts(at) or "per call" not in texts(at)


def test_the_prompts_a_run_asked_with_are_shown_with_their_text(monkeypatch, tmp_path):
    from evalcore.runfile.read import read_run_file
    from tests.app.test_app_shared import REPO

    seed(monkeypatch, tmp_path, read_run_file(REPO / "data" / "runs" / "intake-demo.json"))
    at = open_page(PAGE)
    assert not at.exception
    (prompts,) = [e for e in at.expander if e.label == "Prompts (2)"]
    shown = [c.value for c in prompts.code]
    terse = (REPO / "data" / "suites" / "intake" / "prompts" / "terse.txt").read_text()
    assert terse.strip() in [text.strip() for text in shown]
    assert "Asked by fake/guesser · prompt=terse · t=0" in [unescaped(c.value) for c in prompts.caption]


def test_each_prompts_name_is_shown_in_bold_not_between_asterisks(monkeypatch, tmp_path):
    from evalcore.runfile.read import read_run_file
    from tests.app.test_app_shared import REPO

    seed(monkeypatch, tmp_path, read_run_file(REPO / "data" / "runs" / "intake-demo.json"))
    (prompts,) = [e for e in open_page(PAGE).expander if e.label == "Prompts (2)"]
    names = [m.value for m in prompts.markdown]
    assert names[0].startswith("**default** · ") and "\\*" not in names[0]


def test_the_report_can_be_downloaded_from_the_top_of_the_page(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = open_page(PAGE)
    buttons = at.get("download_button")
    assert [b.proto.label for b in buttons] == ["Download report"]
    assert "offline" in buttons[0].proto.help


def test_a_classification_run_shows_per_label_metrics_and_its_confusion_matrix(monkeypatch, tmp_path):
    from evalcore.analysis.scores import classification
    from evalcore.execution.plan import make_plan
    from evalcore.execution.runner import run_suite
    from evalcore.storage.store import Store
    from evalcore.suite.loader import load_suite
    from tests.app.test_app_shared import REPO

    store = Store(tmp_path / "made.db")
    run_id, _ = run_suite(make_plan(load_suite(REPO / "docs" / "examples" / "classification")), store)
    run = store.load_run(run_id)
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE, charts_now=True)
    assert not at.exception
    (panel,) = [e for e in at.expander if e.label.startswith("Classification")]
    at.selectbox(key="classification_contender").set_value("fake/guesser").run()
    (panel,) = [e for e in at.expander if e.label.startswith("Classification")]
    table = panel.dataframe[0].value
    labels = classification.result_labels(run)
    mine = labels[labels["contender"] == "fake/guesser"]
    expected = classification.per_label(list(mine["want"]), list(mine["got"]))
    assert list(table["label"]) == list(expected["label"])
    assert list(table["support"]) == list(expected["support"])
    macro = classification.macro_f1(list(mine["want"]), list(mine["got"]))
    assert f"macro-F1 {macro:.3f}" in unescaped(panel.caption[0].value)
    (matrix,) = [json.loads(c.proto.spec) for c in panel.get("plotly_chart")]
    assert sum(int(v) for row in matrix["data"][0]["text"] for v in row) == len(mine)  # each result counted once


def test_a_run_cut_short_names_the_missing_results_and_the_contenders_without_any(monkeypatch, tmp_path):
    from tests.factories import cut_run

    run = cut_run()
    seed(monkeypatch, tmp_path, run)
    at = open_page(PAGE)
    assert not at.exception
    (warning,) = [unescaped(w.value) for w in at.warning]
    assert "276 of 576 results are missing" in warning and run.contenders[11].id in warning
    assert len(at.dataframe[0].value) == 7


def column_widths(at) -> dict[str, int]:  # noqa: ANN001
    return {name: c.get("width") for name, c in json.loads(at.dataframe[0].proto.columns).items()}


def test_the_contender_and_mark_columns_are_wide_enough_for_their_longest_value(monkeypatch, tmp_path):
    seed(monkeypatch, tmp_path, demo_run())
    at = open_page(PAGE)
    table, widths = at.dataframe[0].value, column_widths(at)
    for name in ("contender", "mark"):
        assert widths[name] >= 7 * max(len(str(v)) for v in table[name]), name


def test_another_runs_leaderboard_sizes_its_contender_column_anew(monkeypatch, tmp_path):
    from dataclasses import replace

    from streamlit.testing.v1 import AppTest

    from tests.app.test_app_shared import REPO

    run, longer = make_run(2, 3, run_id="run-long"), " · prompt=a-much-longer-prompt-name"
    longer = replace(
        run,
        contenders=[replace(c, id=c.id + longer) for c in run.contenders],
        results=[replace(r, contender=r.contender + longer) for r in run.results],
    )
    seed(monkeypatch, tmp_path, demo_run(), longer)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30)
    at.session_state["run"] = "run-demo"
    at.run()
    narrow = column_widths(at)["contender"]
    at.sidebar.selectbox(key="run").select("run-long").run()
    assert not at.exception and column_widths(at)["contender"] > narrow
