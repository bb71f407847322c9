"""The explorer's pure functions: what every page shows, computed without a browser."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from evalcore.errors import EvalcoreError, WeightsError
from evalcore.explorer import (
    CaseFilters,
    Filters,
    ViewState,
    as_text,
    build_plan,
    bundled_suites,
    case_detail,
    cases_view,
    compare_answers,
    decode_query,
    default_run,
    encode_query,
    escape_markdown,
    filter_options,
    find_result,
    format_settings,
    headline,
    leaderboard_view,
    live_shares,
    money_format,
    plan_summary,
    progress_rows,
    run_label,
    run_summaries,
    seed_store_from_bundled,
    slider_values,
    slider_weights,
    usable_weights,
    viewer_mode,
    want_vs_got,
    weight_hint,
    weight_names,
)
from evalcore.frames import results_frame
from evalcore.runfile import write_run_file
from evalcore.suite import load_suite
from tests.factories import make_run

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def run():
    return make_run(n_contenders=4, n_cases=9)


@pytest.fixture(scope="module")
def frame(run):
    return results_frame(run)


def view(run, frame, weights=None, filters=None, **kwargs):
    weights = run.info.weights if weights is None else weights
    return leaderboard_view(frame, run.metrics, weights, filters, run.contenders, B=200, **kwargs)


class MemoryStore:
    """The few Store methods the explorer calls, in memory."""

    def __init__(self, *runs):
        self.runs = {r.info.id: r for r in runs}

    def list_runs(self):
        return [{"id": r.info.id, "suite": r.info.suite, "created_at": r.info.created_at,
                 "status": r.info.status, "contenders": len(r.contenders), "cases": len(r.cases),
                 "results": len(r.results), "errors": sum(x.status == "error" for x in r.results),
                 "cost_usd": 0.01} for r in self.runs.values()]

    def load_run(self, run_id):
        return self.runs[run_id]

    def import_run(self, run, replace=False):
        self.runs[run.info.id] = run


# --- leaderboard ---------------------------------------------------------------------------------


def test_overall_table_has_one_ranked_row_per_contender_with_scores_in_percent(run, frame):
    v = view(run, frame)
    assert list(v.overall["rank"]) == [1, 2, 3, 4]
    assert sorted(v.overall["contender"]) == sorted(c.id for c in run.contenders)
    assert list(v.overall["score"]) == pytest.approx(list(100 * v.ranked["score"]))


def test_best_and_best_value_are_marked_and_named(run, frame):
    v = view(run, frame)
    marks = dict(zip(v.overall["contender"], v.overall["mark"], strict=True))
    assert "★ best" in marks[v.winner]
    assert "$ value" in marks[v.best_value]


def test_a_table_per_dataset_ranks_every_contender_in_it(run, frame):
    v = view(run, frame)
    assert sorted(v.per_dataset) == ["immigration_law", "roofing", "tax_preparation"]
    assert all(len(t) == 4 and list(t["rank"]) == [1, 2, 3, 4] for t in v.per_dataset.values())


def test_weights_re_rank_the_table(run, frame):
    cheapest = view(run, frame, weights={"cost": -1}).overall.iloc[0]["contender"]
    assert cheapest == frame.groupby("contender", observed=True)["cost_usd"].mean().idxmin()
    best_score = view(run, frame, weights={"score": 1}).overall.iloc[0]["contender"]
    assert best_score == view(run, frame, weights={"score": 1}).ranked.sort_values(
        "score", ascending=False).iloc[0]["contender"]


def test_filters_keep_only_the_chosen_contenders_and_datasets(run, frame):
    chosen = [run.contenders[0].id, run.contenders[2].id]
    v = view(run, frame, filters=Filters(contenders=chosen, datasets=["roofing"]))
    assert sorted(v.overall["contender"]) == sorted(chosen)
    assert list(v.per_dataset) == ["roofing"]
    assert set(v.overall["cases"]) == {3}


def test_weight_stability_is_a_share_beside_the_winner_and_absent_without_weights(run, frame):
    assert 0 < view(run, frame).stability <= 1
    assert view(run, frame, weights={}).stability is None


def test_a_weight_on_an_unknown_name_is_refused_with_the_allowed_names(run, frame):
    with pytest.raises(WeightsError, match="allowed names"):
        view(run, frame, weights={"tokens": 1})


def test_every_display_column_is_described_and_in_the_table(run, frame):
    v = view(run, frame)
    assert [c.name for c in v.columns] == list(v.overall.columns)
    assert all(c.help for c in v.columns)
    assert next(c for c in v.columns if c.name == "cost").format.startswith("$%.")


def test_without_intervals_there_are_no_interval_columns(run, frame):
    v = view(run, frame, ci=False)
    assert "score 95% CI" not in v.overall.columns and "P(best)" not in v.overall.columns
    assert [c.name for c in v.columns] == list(v.overall.columns)


def test_intervals_are_written_as_low_to_high_text(run, frame):
    text = view(run, frame).overall["score 95% CI"].iloc[0]
    low, high = (float(x) for x in text.split("–"))
    assert low <= high


def test_settings_column_shows_every_setting_sent(run, frame):
    assert view(run, frame).overall["settings"].iloc[0] == "max_tokens=256 · t=0.0"


def test_glossary_explains_metrics_and_weights(run, frame):
    lines = view(run, frame).glossary
    assert any(line.startswith("hallucinated_rate:") and "lower is better" in line for line in lines)
    assert any(line.startswith("weights:") for line in lines)


@pytest.mark.parametrize(("values", "fmt"), [
    ([0.0004, 0.01], "$%.5f"), ([0.000012], "$%.6f"), ([1.5, 20.0], "$%.2f"), ([], "$%.2f"),
    ([0.0, float("nan"), 0.03], "$%.3f"),
])
def test_money_format_keeps_two_significant_digits_of_the_smallest_cost(values, fmt):
    assert money_format(values) == fmt
    smallest = min((v for v in values if v > 0), default=None)
    if smallest is not None:
        assert float((fmt % smallest).lstrip("$")) == pytest.approx(smallest, rel=0.1)


def test_format_settings_uses_short_names_in_a_stable_order():
    assert format_settings({"temperature": 0.7, "reasoning_effort": "high"}) == "effort=high · t=0.7"


def test_weight_names_cover_score_each_metric_errors_cost_and_time(run):
    names = weight_names(run.metrics)
    assert names[0] == "score" and names[-3:] == ["errors", "cost", "time"]
    assert "hallucinated_rate" in names


def test_live_shares_sum_to_one_and_a_zero_weight_has_none():
    shares = live_shares({"score": 0.5, "cost": -0.5, "time": 0.0})
    assert shares == {"score": 0.5, "cost": 0.5, "time": 0.0}


def test_filter_options_list_values_and_useful_metadata_keys(frame):
    options = filter_options(frame)
    assert options["datasets"] == ["immigration_law", "roofing", "tax_preparation"]
    assert options["metadata"] == {"difficulty": ["easy", "hard", "medium"]}  # "words" is a number


# --- cases ---------------------------------------------------------------------------------------


def test_cases_view_lists_every_result_with_its_origin_and_numbers(run):
    table = cases_view(run)
    assert len(table) == len(run.results)
    assert {"dataset", "case", "variant", "score", "hallucinated_rate", "error", "input"} <= set(table.columns)
    assert "field_accuracy" not in table.columns  # the primary metric is the score


def test_cases_view_for_one_contender(run):
    contender = run.contenders[1].id
    assert set(cases_view(run, CaseFilters(contender=contender))["contender"]) == {contender}


def test_failures_only_keeps_errors_and_scores_below_one(run):
    table = cases_view(run, CaseFilters(failures_only=True))
    assert len(table) and ((table["score"] < 100) | table["score"].isna()).all()


def test_errors_only_keeps_failed_calls_and_unusable_replies(run):
    table = cases_view(run, CaseFilters(errors_only=True))
    assert sorted(e.split(":")[0] for e in table["error"]) == ["model", "transport"]


def test_hallucinations_only_keeps_results_that_invented_a_value(run):
    table = cases_view(run, CaseFilters(hallucinations_only=True))
    assert len(table) and (table["hallucinated_rate"] > 0).all()


def test_text_search_ignores_case_and_searches_object_inputs_too(run):
    assert set(cases_view(run, CaseFilters(text="CLIENT 3 "))["case"]) == {"partial/003"}
    assert set(cases_view(run, CaseFilters(text="Case 7"))["case"]) == {"vague/007"}


def test_variant_and_dataset_filters(run):
    table = cases_view(run, CaseFilters(variants=["partial"], datasets=["roofing"]))
    assert set(table["variant"]) == {"partial"} and set(table["dataset"]) == {"roofing"}


def test_case_detail_shows_input_expected_output_and_wrong_fields_first(run):
    r = next(r for r in run.results if r.status == "scored" and r.diagnostics)
    detail = case_detail(run, r.contender, r.dataset, r.case, r.sample)
    assert detail["input"].startswith("Hi, I'm Client") or detail["input"].startswith("{")
    assert '"client_name"' in detail["expected"]
    assert detail["wrong"] == len(r.diagnostics) >= 1
    assert not detail["fields"]["right"].iloc[0] and detail["fields"]["right"].iloc[-1]
    assert detail["usage"]["input tokens"] == r.usage.input_tokens
    assert detail["attempts"] == 1 and detail["raw"] == r.raw


def test_case_detail_of_a_failed_call_says_so_in_plain_words(run):
    r = next(r for r in run.results if r.status == "error")
    detail = case_detail(run, r.contender, r.dataset, r.case, r.sample)
    assert detail["output"].startswith("(no reply")
    assert detail["error"].startswith("transport:")
    assert not detail["fields"]["right"].any()


def test_unknown_result_is_a_plain_error(run):
    with pytest.raises(EvalcoreError, match="no result for nobody"):
        find_result(run, "nobody", "roofing", "x")
    with pytest.raises(EvalcoreError, match="no case"):
        case_detail(run, run.contenders[0].id, "roofing", "missing")


def test_want_vs_got_for_a_plain_text_answer_is_one_row():
    result = make_run(1, 1, with_errors=False).results[0]
    result.output, result.score = "yes", 1.0
    table = want_vs_got("yes", result)
    assert table.to_dict("records") == [{"field": "answer", "want": '"yes"', "got": '"yes"', "right": True}]


def test_compare_answers_puts_contenders_side_by_side(run):
    a, b = run.contenders[0].id, run.contenders[3].id
    failed = next(r for r in run.results if r.status == "error")
    table = compare_answers(run, [a, b], failed.dataset, failed.case)
    assert list(table.columns) == ["field", "want", a, b]
    assert set(table[b]) == {"(error)"}


def test_html_in_a_run_stays_text():
    assert as_text("<script>alert(1)</script>") == "<script>alert(1)</script>"
    assert as_text({"a": "<b>"}) == '{\n  "a": "<b>"\n}'


# --- the address bar -----------------------------------------------------------------------------


def test_query_string_round_trips_run_filters_and_weights():
    state = ViewState(run="r1", filters=Filters(datasets=["tax", "roof"], contenders=["fake/oracle · t=0"],
                                                metadata={"difficulty": ["hard"]}),
                      weights={"score": 0.6, "cost": -0.25})
    params = encode_query(state)
    assert params["w"] == "score:0.6,cost:-0.25"
    assert decode_query(params) == state


def test_an_empty_view_has_an_empty_query_string():
    assert encode_query(ViewState()) == {}
    assert decode_query({}) == ViewState()


def test_all_weights_zero_survive_the_query_string():
    assert decode_query(encode_query(ViewState(weights={}))).weights == {}


def test_a_malformed_weight_in_the_address_is_skipped():
    assert decode_query({"w": "score:0.5,cost:lots,:1,time"}).weights == {"score": 0.5}


def test_usable_weights_drop_names_this_run_cannot_weight(run):
    assert usable_weights({"score": 1, "latency": 2}, run.metrics) == {"score": 1}
    assert usable_weights(None, run.metrics) is None


# --- runs and the store --------------------------------------------------------------------------


def test_run_summaries_are_newest_first_with_winner_and_cost():
    old, new = make_run(2, 3, run_id="old"), make_run(3, 3, run_id="new")
    new.info.created_at = "2027-01-01T00:00:00.000Z"
    table = run_summaries(MemoryStore(old, new))
    assert list(table["id"]) == ["new", "old"]
    assert table["winner"].iloc[0] in {c.id for c in new.contenders}
    assert table["cost"].iloc[0] == 0.01


def test_run_summaries_of_an_empty_store_is_an_empty_table():
    assert run_summaries(MemoryStore()).empty


def test_run_label_names_suite_date_status_and_short_id():
    info = {"id": "3f2c9a1b-aaaa", "suite": "intake", "created_at": "2026-11-29T18:04:05.123Z",
            "status": "completed"}
    assert run_label(info) == "intake · 2026-11-29 18:04 · completed · 3f2c9a1b"


def test_seeding_imports_every_bundled_run_file_into_an_empty_store(tmp_path):
    write_run_file(make_run(run_id="a"), tmp_path / "a.json")
    write_run_file(make_run(run_id="b"), tmp_path / "b.json.gz")
    (tmp_path / "notes.txt").write_text("not a run")
    store = MemoryStore()
    assert seed_store_from_bundled(store, tmp_path) == ["a", "b"]
    assert sorted(store.runs) == ["a", "b"]


def test_seeding_skips_a_bad_file_and_keeps_the_others(tmp_path):
    (tmp_path / "a.json").write_text('{"format": "nope"}')
    write_run_file(make_run(run_id="b"), tmp_path / "b.json")
    assert seed_store_from_bundled(MemoryStore(), tmp_path) == ["b"]


def test_seeding_leaves_a_store_with_runs_alone(tmp_path):
    write_run_file(make_run(run_id="a"), tmp_path / "a.json")
    store = MemoryStore(make_run(run_id="mine"))
    assert seed_store_from_bundled(store, tmp_path) == []
    assert list(store.runs) == ["mine"]


def test_seeding_from_a_missing_folder_does_nothing(tmp_path):
    assert seed_store_from_bundled(MemoryStore(), tmp_path / "nowhere") == []


@pytest.mark.parametrize(("env", "secret", "expected"), [
    ({}, None, False), ({"EVALCORE_VIEWER": "1"}, None, True), ({"EVALCORE_VIEWER": "true"}, None, True),
    ({"EVALCORE_VIEWER": "0"}, None, False), ({}, True, True), ({"EVALCORE_VIEWER": "1"}, "no", False),
])
def test_viewer_mode_from_environment_or_secret(env, secret, expected):
    assert viewer_mode(env, secret) is expected


# --- planning and launching ----------------------------------------------------------------------


def test_bundled_suites_include_the_demo():
    assert "intake" in bundled_suites(REPO / "data" / "suites")
    assert bundled_suites(REPO / "nowhere") == {}


def test_plan_summary_of_the_demo_counts_calls_cost_and_refusals():
    suite = load_suite(REPO / "data" / "suites" / "intake")
    chosen = ["fake/oracle · t=0", "fake/sloppy"]
    plan = build_plan(suite, datasets=["roofing"], contenders=chosen, samples=2)
    summary = plan_summary(plan)
    assert list(summary["matrix"]["contender"]) == chosen
    assert summary["calls"] == 2 * 16 * 2 == summary["matrix"]["calls"].sum()
    assert summary["cost"] > 0
    assert summary["missing_keys"] == {}
    assert list(summary["refused"].columns) == ["model", "settings", "reason"]


def test_progress_rows_without_progress_yet_is_empty():
    assert progress_rows(None).empty


def test_progress_rows_give_each_contender_its_share():
    from evalcore.runner import ContenderProgress, Progress

    progress = Progress("r", {"a": ContenderProgress(total=4, done=1, errors=1), "b": ContenderProgress(total=0)})
    rows = progress_rows(progress)
    assert rows.to_dict("records")[0] == {"contender": "a", "done": 1, "total": 4, "errors": 1, "share": 0.25}
    assert rows["share"].iloc[1] == 1.0


def test_a_failed_call_has_no_score_in_the_cases_view():
    table = cases_view(make_run(1, 2))
    assert math.isnan(table["score"].iloc[0]) and table["error"].iloc[0].startswith("transport:")


def test_the_default_run_is_the_newest_completed_one():
    infos = [{"id": "new", "status": "interrupted"}, {"id": "done", "status": "completed"},
             {"id": "old", "status": "completed"}]
    assert default_run(infos) == "done"
    assert default_run(infos[:1]) == "new"
    assert default_run([]) is None


def test_slider_positions_are_whole_numbers_that_keep_the_shares():
    assert slider_values({"score": 0.6, "cost": -0.05}) == {"score": 60, "cost": -5}
    assert slider_values({"score": 4, "cost": -2}) == {"score": 100, "cost": -50}
    assert slider_weights({"score": 60, "cost": -5, "time": 0}) == {"score": 0.6, "cost": -0.05}


def test_headline_names_the_winner_how_sure_and_the_best_value_escaped(run, frame):
    v = view(run, frame)
    text = headline(v)
    assert text.startswith("**Winner: fake/") and "weight jitters" in text and "bootstrap" in text
    assert "t\\=0\\.0" in text  # escaped for Markdown
    assert "**Best value:**" in text


def test_headline_without_a_winner_says_why(run, frame):
    v = view(run, frame, filters=Filters(contenders=[run.contenders[3].id]))
    assert v.winner is None and headline(v).startswith("**No winner:**")


@pytest.mark.parametrize("text", ["[click](http://evil)", "![x](http://evil/x.png)", "<b>hi</b>", "$x^2$",
                                  ":red[alarm]", "**bold**"])
def test_escaped_markdown_has_no_live_syntax_left(text):
    escaped = escape_markdown(text)
    assert escaped.replace("\\", "") == text
    assert all(escaped[i - 1] == "\\" for i, ch in enumerate(escaped) if ch in "[]()<>$:*!" and i)


def test_a_run_without_a_winner_shows_a_dash_in_the_history():
    run = make_run(1, 2, run_id="only-errors")
    for result in run.results:
        result.status, result.score, result.metrics = "error", None, {}
    table = run_summaries(MemoryStore(run))
    assert table["winner"].iloc[0] == "–"
    assert table["created"].iloc[0] == "2026-11-29 18:04:05"


def test_every_weight_name_has_a_hint_with_its_direction(run):
    for name in weight_names(run.metrics):
        hint = weight_hint(name, run.metrics)
        assert hint.endswith("negative: lower is better.") and ". Positive" in hint


def test_a_launched_run_works_in_the_background_and_reports_progress(tmp_path):
    from evalcore.explorer import launch_run
    from evalcore.store import Store
    from tests.suites import write_suite

    plan = build_plan(load_suite(write_suite(tmp_path / "suite")), samples=2)
    job = launch_run(plan, tmp_path / "evalcore.db")
    assert Store(tmp_path / "evalcore.db").list_runs()[0]["id"] == job.run_id  # in the history at once
    job.join(timeout=30)
    assert (job.status, job.error, job.alive) == ("completed", None, False)
    rows = job.rows()
    assert list(rows["total"]) == [6, 6, 6] and list(rows["share"]) == [1.0, 1.0, 1.0]


def test_a_cancelled_run_stops_as_interrupted_and_can_be_resumed(tmp_path, monkeypatch):
    from evalcore.explorer import launch_run, resume_run
    from evalcore.store import Store
    from tests.suites import write_suite

    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0.2")
    plan = build_plan(load_suite(write_suite(tmp_path / "suite")), samples=20)
    job = launch_run(plan, tmp_path / "evalcore.db")
    job.cancel()
    job.join(timeout=30)
    assert job.status == "interrupted"
    monkeypatch.setenv("EVALCORE_FAKE_LATENCY_SCALE", "0")
    again = resume_run(job.run_id, tmp_path / "evalcore.db")
    again.join(timeout=30)
    assert again.status == "completed"
    assert len(Store(tmp_path / "evalcore.db").load_run(job.run_id).results) == plan.calls


def test_a_plan_that_cannot_run_is_refused_before_anything_is_stored(tmp_path, monkeypatch):
    from evalcore.errors import ConfigError
    from evalcore.explorer import launch_run
    from evalcore.store import Store
    from tests.suites import write_suite

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    plan = build_plan(load_suite(write_suite(tmp_path / "suite", {"lineup": [{"model": "openai/gpt-4o-mini"}]})))
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        launch_run(plan, tmp_path / "evalcore.db")
    assert Store(tmp_path / "evalcore.db").list_runs() == []
